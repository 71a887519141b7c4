package memory

import (
	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"

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

// searchTurns asks the index (as recall's candidate query does, with
// recall's column weights) for the turns that match query, best first: the
// recall pipeline itself lives in package recall, which imports this one.
func searchTurns(t *testing.T, m *Memory, query string) []searchHit {
	t.Helper()
	cs := readCandidates(t, m, RecallQuery{Query: engine.Query{Terms: queryTerms(query), K: 200}, Params: engine.DefaultParams(), CheckExact: true})
	keys := make([]TurnKey, len(cs))
	for i, c := range cs {
		keys[i] = TurnKey{c.Sess, c.Seq}
	}
	infos, err := m.TurnInfos(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]searchHit, len(cs))
	for i, c := range cs {
		out[i] = searchHit{c, infos[keys[i]].SessionID}
	}
	return out
}

// searchHit is a candidate turn and its conversation's id.
type searchHit struct {
	Candidate
	SessionID string
}

// queryTerms is the engine's query for a question as recall plans one: its
// content words searched in a turn's text, title and date words, its
// identifiers in theirs.
func queryTerms(query string) []engine.QueryTerm {
	st := querySearchTerms(query)
	var ts []engine.QueryTerm
	for _, w := range st.words {
		ts = append(ts, engine.QueryTerm{Term: engine.Term(w), Fields: 1<<engine.Body | 1<<engine.Title | 1<<engine.Date})
	}
	for _, id := range st.ids {
		ts = append(ts, engine.QueryTerm{Term: engine.Term(id), Fields: 1 << engine.IDs})
	}
	return ts
}

// readCandidates reads a recall snapshot's candidates and closes it.
func readCandidates(t *testing.T, m *Memory, q RecallQuery) []Candidate {
	t.Helper()
	snap, err := m.ReadCandidates(context.Background(), q)
	if err != nil {
		t.Fatalf("candidates: %v", err)
	}
	defer snap.Close()
	return snap.Candidates
}
