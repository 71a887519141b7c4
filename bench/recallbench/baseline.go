package recallbench

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	_ "modernc.org/sqlite" // FTS5
)

// Baseline is the bare FTS5 BM25 query the benchmark compares against: one
// row per turn in its own SQLite file, the porter stemmer over unicode61,
// and the query's words ORed, ranked by bm25(). It shares no code and no
// tuning with the memory package's recall.
//
// Search runs that query in SQLite. FTS5 scores every row that matches any
// word, so a long question ORing "the" and "on" costs seconds at 60,000
// turns; Mirror (mirror.go) gives the same ranking from FTS5's own index
// and tokenizer, computed in Go, for scoring thousands of questions.
type Baseline struct {
	db    *sql.DB
	stmt  *sql.Stmt
	Turns int

	mirror *mirror
}

// Doc is one turn as the baseline indexes it.
type Doc struct {
	Harness, SessionID, Title, Text string
}

// OpenBaseline creates the baseline index in path.
func OpenBaseline(path string) (*Baseline, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE turns USING fts5(body, harness UNINDEXED, sid UNINDEXED, tokenize = 'porter unicode61')`); err != nil {
		db.Close()
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	return &Baseline{db: db}, nil
}

// Build indexes the turns, one row each (rowid i+1 for docs[i]), and
// loads the in-memory mirror of the index.
func (b *Baseline) Build(ctx context.Context, docs []Doc) error {
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO turns(rowid, body, harness, sid) VALUES(?,?,?,?)`)
	if err != nil {
		return err
	}
	for i, d := range docs {
		if _, err := st.ExecContext(ctx, i+1, d.Text, d.Harness, d.SessionID); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	b.Turns = len(docs)
	return b.loadMirror(ctx, docs)
}

// Query is the bare FTS5 query for q: each whitespace-separated word,
// stripped of surrounding punctuation, quoted, and ORed. A quoted word
// that the tokenizer splits (MT-4471) becomes a phrase, as a plain FTS5
// integration would have it.
func Query(q string) string {
	var terms []string
	for _, w := range queryWords(q) {
		terms = append(terms, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
	}
	return strings.Join(terms, " OR ")
}

// scoredRow is one row of the SQL query with its bm25().
type scoredRow struct {
	rowid int64
	score float64
	Result
}

// searchSQL runs the bare query in SQLite: the k best turns for q.
func (b *Baseline) searchSQL(ctx context.Context, q string, k int) ([]scoredRow, error) {
	if b.stmt == nil {
		st, err := b.db.PrepareContext(ctx, `SELECT rowid, bm25(turns), harness, sid, body FROM turns WHERE turns MATCH ? ORDER BY rank LIMIT ?`)
		if err != nil {
			return nil, err
		}
		b.stmt = st
	}
	expr := Query(q)
	if expr == "" {
		return nil, nil
	}
	rows, err := b.stmt.QueryContext(ctx, expr, k)
	if err != nil {
		return nil, fmt.Errorf("baseline query %q: %w", expr, err)
	}
	defer rows.Close()
	var out []scoredRow
	for rows.Next() {
		var r scoredRow
		if err := rows.Scan(&r.rowid, &r.score, &r.Harness, &r.SessionID, &r.Text); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// SearchSQL returns the k best turns for q, from SQLite.
func (b *Baseline) SearchSQL(ctx context.Context, q string, k int) ([]Result, error) {
	rs, err := b.searchSQL(ctx, q, k)
	out := make([]Result, len(rs))
	for i, r := range rs {
		out[i] = r.Result
	}
	return out, err
}

// Prepare tokenizes the words of the queries to come in one pass, so that
// Search need not ask SQLite.
func (b *Baseline) Prepare(ctx context.Context, queries []string) error {
	return b.mirror.prepare(ctx, queries)
}

// Search returns the k best turns for q, ranked by the mirror.
func (b *Baseline) Search(ctx context.Context, q string, k int) ([]Result, error) {
	rs, err := b.mirror.search(ctx, q, k)
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(rs))
	for i, r := range rs {
		d := b.mirror.docs[r.doc]
		out[i] = Result{Harness: d.Harness, SessionID: d.SessionID, Text: d.Text, Score: fmt.Sprintf("bm25=%.3f", r.score)}
	}
	return out, nil
}

// Agrees reports whether the mirror ranks q as SQLite does: the same
// scores, rank by rank (rows with equal scores may swap).
func (b *Baseline) Agrees(ctx context.Context, q string, k int) (bool, error) {
	sq, err := b.searchSQL(ctx, q, k)
	if err != nil {
		return false, err
	}
	mq, err := b.mirror.search(ctx, q, k)
	if err != nil {
		return false, err
	}
	if len(sq) != len(mq) {
		return false, nil
	}
	for i := range sq {
		if math.Abs(sq[i].score-mq[i].score) > 1e-9*math.Max(1, math.Abs(sq[i].score)) {
			return false, nil
		}
	}
	return true, nil
}

// Close closes the index.
func (b *Baseline) Close() error {
	if b.stmt != nil {
		b.stmt.Close()
	}
	return b.db.Close()
}

// ReadSources reads every conversation a memory holds from its src/ folder,
// the verbatim funes jsonl files the importers wrote: what the baseline
// indexes, independent of the memory's own index.
func ReadSources(dir string) ([]*funes.Session, error) {
	var out []*funes.Session
	err := filepath.WalkDir(filepath.Join(dir, memory.SrcDir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".funes.jsonl") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		ss, _, err := funes.ReadSessions(f)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, ss...)
		return nil
	})
	return out, err
}
