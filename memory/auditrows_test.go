package memory

import (
	"context"
	"database/sql"
	"testing"
)

// The audit log is package auditlog's, which imports memory; memory's own
// tests (forget deletes the rows naming a conversation, an upgrade keeps
// them, file modes) write and read its rows in SQL.

// auditRow is one audit row as memory's tests see it.
type auditRow struct{ Client, Tool, Args string }

func addAuditRow(t *testing.T, m *Memory, r auditRow) {
	t.Helper()
	err := m.WriteCatalog(context.Background(), func(tx *CatalogTx) error {
		_, err := tx.ExecContext(context.Background(), `INSERT INTO audit(ts, client, tool, args, hits, duration_ms, outcome) VALUES(1,?,?,?,0,0,'ok')`, r.Client, r.Tool, r.Args)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func auditRows(t *testing.T, m *Memory) []auditRow {
	t.Helper()
	var out []auditRow
	err := EachRow(context.Background(), m.db, `SELECT client, tool, args FROM audit ORDER BY id`, nil, func(rows *sql.Rows) error {
		var r auditRow
		if err := rows.Scan(&r.Client, &r.Tool, &r.Args); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
