package memory

import (
	"database/sql"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"
	"github.com/ireneo-app/ireneo/querywords"

	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func openTest(t testing.TB) *Memory {
	t.Helper()
	m, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// conv makes a session whose turns alternate user and assistant, a minute apart from start.
var conv = funestest.Conv

var day0 = funestest.Day0

func mustIngest(t testing.TB, m *Memory, ss ...*funes.Session) IngestReport {
	t.Helper()
	rep, err := m.Ingest(context.Background(), ss, IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// grepDir reports every file under dir whose bytes contain marker, in any case.
func grepDir(t *testing.T, dir, marker string) []string {
	t.Helper()
	var found []string
	low := bytes.ToLower([]byte(marker))
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil && bytes.Contains(bytes.ToLower(data), low) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// searchTurns asks the index (as recall's candidate query does, with the
// engine's default weights) for the turns that match query, best first,
// checked against the exhaustive search: the recall pipeline itself lives
// in package recall, which imports this one.
func searchTurns(t *testing.T, m *Memory, query string) []searchHit {
	t.Helper()
	ctx := context.Background()
	rt, err := m.BeginRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	q := engine.Query{Terms: queryTerms(query), K: 200}
	hits, err := rt.Search(ctx, q, engine.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if all, err := rt.SearchExhaustive(ctx, q, engine.DefaultParams()); err != nil || len(all) != len(hits) {
		t.Fatalf("exhaustive search: %v, %d hits, pruned %d", err, len(all), len(hits))
	}
	out := make([]searchHit, len(hits))
	for i, h := range hits {
		out[i].TurnKey = DocTurn(h.Doc)
		if err := rt.QueryRowContext(ctx, `SELECT session_id FROM sessions WHERE id=?`, out[i].Sess).Scan(&out[i].SessionID); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// searchHit is a turn found and its conversation's id.
type searchHit struct {
	TurnKey
	SessionID string
}

// queryTerms is the engine's query for a question as recall plans one: its
// content words searched in a turn's text, title and date words, its
// identifiers in theirs.
func queryTerms(query string) []engine.QueryTerm {
	st := querywords.SearchTerms(query)
	var ts []engine.QueryTerm
	for _, w := range st.Words {
		ts = append(ts, engine.QueryTerm{Term: engine.Term(w), Fields: 1<<engine.Body | 1<<engine.Title | 1<<engine.Date})
	}
	for _, id := range st.IDs {
		ts = append(ts, engine.QueryTerm{Term: engine.Term(id), Fields: 1 << engine.IDs})
	}
	return ts
}

// listedConv is a conversation's catalog entry as tests read it (package
// conversations owns the list itself).
type listedConv struct {
	SessionID string
	Starred   bool
	Projects  []string
}

// listed reads every stored conversation with its star and projects.
func listed(t testing.TB, m *Memory) []listedConv {
	t.Helper()
	ctx := context.Background()
	var out []listedConv
	err := EachRow(ctx, m.db, `SELECT s.harness, s.session_id, EXISTS(SELECT 1 FROM stars st WHERE st.harness=s.harness AND st.session_id=s.session_id AND st.starred)
		FROM sessions s ORDER BY s.updated DESC, s.id`, nil, func(rows *sql.Rows) error {
		var h string
		var c listedConv
		if err := rows.Scan(&h, &c.SessionID, &c.Starred); err != nil {
			return err
		}
		c.Projects = []string{}
		err := EachRow(ctx, m.db, `SELECT project FROM session_projects WHERE harness=? AND session_id=? ORDER BY project`, []any{h, c.SessionID}, func(rows *sql.Rows) error {
			var p string
			err := rows.Scan(&p)
			c.Projects = append(c.Projects, p)
			return err
		})
		out = append(out, c)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
