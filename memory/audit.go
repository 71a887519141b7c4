package memory

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/answer"
)

// Audit outcomes, as recorded in the audit log.
const (
	AuditOK          = "ok"          // the call answered
	AuditNoMatch     = "no_match"    // the call answered, with nothing found
	AuditNotFound    = "not_found"   // get: no such conversation in the caller's scope
	AuditInvalid     = "invalid"     // bad arguments
	AuditBusy        = "busy"        // refused: too many calls at once
	AuditTimeout     = "timeout"     // the call ran out of time
	AuditUnavailable = "unavailable" // the memory failed
	AuditCancelled   = "cancelled"   // the client cancelled the call or went away first
	// Refused HTTP requests, recorded so a person sees them (rate-limited).
	AuditUnauthorized = "unauthorized" // 401: no, unknown or revoked token
	AuditForbidden    = "forbidden"    // 403: a Host or Origin that is not loopback
)

// AuditEntry is one recorded MCP tool call, as `ireneo audit` answers it
// (package answer's type).
type AuditEntry = answer.AuditEntry

// AuditQuery selects audit entries. Zero fields select everything.
type AuditQuery struct {
	Client string
	Tool   string
	Since  time.Time
	Limit  int // newest first; 0 means 1,000
}

// AddAudit records tool calls, all in one transaction. Times are kept in
// unix milliseconds so calls made within a second keep their order.
func (m *Memory) AddAudit(ctx context.Context, entries ...AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	err := m.withTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO audit(ts, client, tool, args, hits, duration_ms, outcome) VALUES(?,?,?,?,?,?,?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, e := range entries {
			ts := e.TS
			if ts.IsZero() {
				ts = time.Now()
			}
			ms := float64(e.Duration) / float64(time.Millisecond)
			if _, err := st.ExecContext(ctx, ts.UnixMilli(), e.Client, e.Tool, e.Args, e.Hits, ms, e.Outcome); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record audit: %w", err)
	}
	return nil
}

// Audit lists recorded tool calls, newest first.
func (m *Memory) Audit(ctx context.Context, q AuditQuery) ([]AuditEntry, error) {
	var (
		where []string
		args  []any
	)
	if q.Client != "" {
		where = append(where, "client=?")
		args = append(args, q.Client)
	}
	if q.Tool != "" {
		where = append(where, "tool=?")
		args = append(args, q.Tool)
	}
	if !q.Since.IsZero() {
		where = append(where, "ts>=?")
		args = append(args, q.Since.UnixMilli())
	}
	query := `SELECT id, ts, client, tool, args, hits, duration_ms, outcome FROM audit`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 1000
	}
	query += " ORDER BY ts DESC, id DESC LIMIT ?"
	args = append(args, limit)
	var out []AuditEntry
	err := EachRow(ctx, m.db, query, args, func(rows *sql.Rows) error {
		var e AuditEntry
		var ts int64
		var ms float64
		if err := rows.Scan(&e.ID, &ts, &e.Client, &e.Tool, &e.Args, &e.Hits, &ms, &e.Outcome); err != nil {
			return err
		}
		e.TS = time.UnixMilli(ts).UTC()
		e.Duration = time.Duration(ms * float64(time.Millisecond))
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	return out, nil
}
