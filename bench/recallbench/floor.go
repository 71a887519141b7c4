package recallbench

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// FloorName names the plain-FTS5 floor in the summary tables.
const FloorName = "floor"

// Floor is the plain-FTS5 floor run as real SQL: one row per stored turn,
// `porter unicode61`, the query's words quoted and ORed (Query), `ORDER BY
// rank`, with the turn's time kept beside it so a query can be limited to
// what came before it. It shares nothing with memory's recall.
type Floor struct {
	db        *sql.DB
	stmt      *sql.Stmt
	removeDir string // a temporary folder Close removes (floorOf)
}

// FloorHit is one turn the floor returns.
type FloorHit struct {
	Harness, SessionID, TurnUUID string
}

// OpenFloor builds the floor over sessions in a new SQLite file at path.
func OpenFloor(ctx context.Context, path string, sessions []*funes.Session) (*Floor, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	f := &Floor{db: db}
	if err := f.build(ctx, sessions); err != nil {
		db.Close()
		return nil, fmt.Errorf("floor %s: %w", path, err)
	}
	return f, nil
}

func (f *Floor) build(ctx context.Context, sessions []*funes.Session) error {
	if _, err := f.db.ExecContext(ctx, `CREATE VIRTUAL TABLE turns USING fts5(body, harness UNINDEXED, sid UNINDEXED, turn UNINDEXED, ts UNINDEXED, tokenize = 'porter unicode61')`); err != nil {
		return err
	}
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO turns(body, harness, sid, turn, ts) VALUES(?,?,?,?,?)`)
	if err != nil {
		return err
	}
	for _, s := range sessions {
		for _, t := range s.Turns {
			if _, err := st.ExecContext(ctx, t.Text(), s.Harness, s.ID, t.TurnUUID, t.TS.Unix()); err != nil {
				return err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	f.stmt, err = f.db.PrepareContext(ctx, `SELECT harness, sid, turn FROM turns WHERE turns MATCH ? AND ts < ? ORDER BY rank LIMIT ?`)
	return err
}

// Search returns the k best turns for q among those before until (zero:
// all).
func (f *Floor) Search(ctx context.Context, q string, until time.Time, k int) ([]FloorHit, error) {
	expr := Query(q)
	if expr == "" {
		return nil, nil
	}
	lim := int64(1) << 62
	if !until.IsZero() {
		lim = until.Unix()
	}
	rows, err := f.stmt.QueryContext(ctx, expr, lim, k)
	if err != nil {
		return nil, fmt.Errorf("floor query %q: %w", expr, err)
	}
	defer rows.Close()
	var out []FloorHit
	for rows.Next() {
		var h FloorHit
		if err := rows.Scan(&h.Harness, &h.SessionID, &h.TurnUUID); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// Close closes the floor's database.
func (f *Floor) Close() error {
	if f.stmt != nil {
		f.stmt.Close()
	}
	err := f.db.Close()
	if f.removeDir != "" {
		os.RemoveAll(f.removeDir)
	}
	return err
}
