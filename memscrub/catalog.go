package memscrub

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/memory"
)

// What a scrub writes in the catalog, over the tables memory/schema.go
// documents: the memory's key for finding hashes, the allow-list of false
// positives and the history of past scrubs, each through one
// memory.WriteCatalog; an apply's redactions (project tags renamed, audit
// arguments rewritten) and its history row in its memory.Rewrite's
// transaction, with the conversations it rewrites.

// keyName is the meta key of the memory's key for finding hashes.
const keyName = "scrub_key"

// findingKey is the memory's key for finding hashes, made on first use.
func findingKey(ctx context.Context, m *memory.Memory) ([]byte, error) {
	v, err := storedKey(ctx, m)
	if err == nil && v == "" {
		err = m.WriteCatalog(ctx, func(c *memory.CatalogTx) error {
			had, err := c.Meta(ctx, keyName)
			if err != nil || had != "" {
				v = had // made meanwhile by another process
				return err
			}
			b := make([]byte, 32)
			if _, err := rand.Read(b); err != nil {
				return err
			}
			v = hex.EncodeToString(b)
			return c.SetMeta(ctx, keyName, v)
		})
	}
	if err != nil {
		return nil, fmt.Errorf("scrub: %w", err)
	}
	return hex.DecodeString(v)
}

// storedKey reads the key's hex digits; "" when there is none yet.
func storedKey(ctx context.Context, m *memory.Memory) (string, error) {
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return "", err
	}
	defer rt.Close()
	var v string
	err = rt.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, keyName).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// addAllowed remembers findings (by Hash and Rule) as false positives and
// returns how many were new.
func addAllowed(ctx context.Context, m *memory.Memory, fs []Finding) (int, error) {
	if len(fs) == 0 {
		return 0, nil
	}
	n := 0
	err := m.WriteCatalog(ctx, func(c *memory.CatalogTx) error {
		n = 0
		now := time.Now().Unix()
		for _, fd := range fs {
			res, err := c.ExecContext(ctx, `INSERT OR IGNORE INTO scrub_allow(hash, rule, added) VALUES(?,?,?)`, fd.Hash, fd.Rule, now)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k > 0 {
				n++
			}
		}
		return nil
	})
	return n, err
}

// Unallow forgets allow-list entries of m by finding id, so those findings
// are reported again. Unknown ids are an error and nothing changes.
func Unallow(ctx context.Context, m *memory.Memory, ids ...string) error {
	return m.WriteCatalog(ctx, func(c *memory.CatalogTx) error {
		for _, id := range ids {
			id = strings.ToLower(strings.TrimSpace(id))
			if len(id) != FindingIDLen || strings.ContainsAny(id, "%_") {
				return fmt.Errorf("scrub: %q is not a finding id", id)
			}
			res, err := c.ExecContext(ctx, `DELETE FROM scrub_allow WHERE hash LIKE ? || '%'`, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return fmt.Errorf("scrub: %s is not on the allow-list", id)
			}
		}
		return nil
	})
}

// RecordHistory adds a history row to m: the time and the counts per
// rule, never the secrets. Apply records its own counts in its rewrite's
// transaction; an import with scrub on records its IngestReport.Redacted
// through this.
func RecordHistory(ctx context.Context, m *memory.Memory, counts map[string]int) error {
	return m.WriteCatalog(ctx, func(c *memory.CatalogTx) error { return insertHistory(ctx, c, counts) })
}

// insertHistory adds a history row in c.
func insertHistory(ctx context.Context, c *memory.CatalogTx, counts map[string]int) error {
	if counts == nil {
		counts = map[string]int{}
	}
	js, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	_, err = c.ExecContext(ctx, `INSERT INTO scrub_history(ts, counts) VALUES(?,?)`, time.Now().Unix(), string(js))
	return err
}

// auditEdit is an audit row's redacted arguments.
type auditEdit struct {
	id   int64
	args string
}

// redactCatalog stages an apply's catalog edits in w: the project tags
// renamed, the audit rows' arguments rewritten, and its history row
// (counts), in the same transaction as the rewritten conversations, so a
// kill cannot keep one without the others. The old tags and arguments are
// erased from the database with the conversations' old text.
func redactCatalog(ctx context.Context, w *memory.Rewrite, tags []tagEdit, audits []auditEdit, counts map[string]int) {
	for _, e := range tags {
		w.Erases(e.harness, e.sid)
	}
	if len(audits) > 0 {
		w.Erases("", "") // the audit log
	}
	w.Catalog(func(c *memory.CatalogTx) error {
		for _, e := range tags {
			// The redacted tag may be one the session has already.
			if _, err := c.ExecContext(ctx, `INSERT OR IGNORE INTO session_projects(harness,session_id,project) VALUES(?,?,?)`, e.harness, e.sid, e.to); err != nil {
				return err
			}
			if _, err := c.ExecContext(ctx, `DELETE FROM session_projects WHERE harness=? AND session_id=? AND project=?`, e.harness, e.sid, e.from); err != nil {
				return err
			}
		}
		for _, e := range audits {
			if _, err := c.ExecContext(ctx, `UPDATE audit SET args=? WHERE id=?`, e.args, e.id); err != nil {
				return err
			}
		}
		return insertHistory(ctx, c, counts)
	})
}

// reportRedactions has w tell the memory's observer what the scrub
// redacted, one choice per conversation, once it is in. Findings in the
// audit log stay on this machine.
func reportRedactions(w *memory.Rewrite, findings []Finding) {
	var order [][2]string
	by := map[[2]string][]memory.Redaction{}
	for _, f := range findings {
		if f.Field == FieldAudit || f.SessionID == "" {
			continue
		}
		k := [2]string{f.Source, f.SessionID}
		if by[k] == nil {
			order = append(order, k)
		}
		by[k] = append(by[k], memory.Redaction{TurnUUID: f.TurnUUID, Seq: f.Seq, Block: f.Block, Field: f.Field, Rule: f.Rule, Start: f.Start, End: f.End, Len: f.TextLen})
	}
	for _, k := range order {
		w.Report(memory.Choice{Kind: memory.ChoiceRedact, Harness: k[0], SessionID: k[1], Redactions: by[k]})
	}
}
