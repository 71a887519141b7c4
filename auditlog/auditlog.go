// Package auditlog owns the audit log: one row in the memory's audit table
// for every MCP tool call an agent made (and every refused request), which
// `ireneo audit`, the Activity screen and insights read. Rows are written
// through memory.WriteCatalog and read through a memory.ReadTx;
// memory/schema.go keeps the table's schema, and forget deletes the rows
// that name a forgotten conversation (memory/forgetaudit.go).
package auditlog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/memory"
)

// Outcomes, as recorded.
const (
	OK          = "ok"          // the call answered
	NoMatch     = "no_match"    // the call answered, with nothing found
	NotFound    = "not_found"   // get: no such conversation in the caller's scope
	Invalid     = "invalid"     // bad arguments
	Busy        = "busy"        // refused: too many calls at once
	Timeout     = "timeout"     // the call ran out of time
	Unavailable = "unavailable" // the memory failed
	Cancelled   = "cancelled"   // the client cancelled the call or went away first
	// Refused HTTP requests, recorded so a person sees them (rate-limited).
	Unauthorized = "unauthorized" // 401: no, unknown or revoked token
	Forbidden    = "forbidden"    // 403: a Host or Origin that is not loopback
)

// Entry is one recorded MCP tool call, as `ireneo audit` answers it
// (package answer's type).
type Entry = answer.AuditEntry

// Query selects entries. Zero fields select everything.
type Query struct {
	Client string
	Tool   string
	Since  time.Time
	Limit  int // newest first; 0 means 1,000
}

// Add records tool calls in m's audit log, all in one transaction. Times
// are kept in unix milliseconds so calls made within a second keep their
// order.
func Add(ctx context.Context, m *memory.Memory, entries ...Entry) error {
	if len(entries) == 0 {
		return nil
	}
	err := m.WriteCatalog(ctx, func(tx *memory.CatalogTx) error {
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

// List returns m's recorded tool calls that q selects, newest first.
func List(ctx context.Context, m *memory.Memory, q Query) ([]Entry, error) {
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
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	defer rt.Close()
	var out []Entry
	err = memory.EachRow(ctx, rt, query, args, func(rows *sql.Rows) error {
		var e Entry
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
