package sync

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
)

// machine is one test machine: a memory, set up on a sync folder.
type machine struct {
	t      *testing.T
	name   string
	dir    string // the memory directory
	folder string
	m      *memory.Memory
	obs    *Observer
	eng    *Engine
}

// newMachine opens a memory in a new temporary directory and sets it up
// on folder (several machines may share one folder, as on a network disk).
func newMachine(t *testing.T, name, folder string) *machine {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mc := &machine{t: t, name: name, dir: dir, folder: folder, m: m}
	t.Cleanup(mc.close)
	mc.obs = Attach(m, nil)
	if folder != "" {
		if _, err := SetUp(dir, folder, name); err != nil {
			t.Fatal(err)
		}
	}
	return mc
}

func (mc *machine) close() {
	if mc.eng != nil {
		mc.eng.Close()
		mc.eng = nil
	}
	if mc.m != nil {
		mc.m.Close()
		mc.m = nil
	}
}

// pass runs one engine pass.
func (mc *machine) pass() Report {
	mc.t.Helper()
	if mc.eng == nil {
		e, err := Open(mc.m, Options{})
		if err != nil {
			mc.t.Fatalf("%s: open the engine: %v", mc.name, err)
		}
		mc.eng = e
	}
	rep, err := mc.eng.Pass(context.Background())
	if err != nil {
		mc.t.Fatalf("%s: pass: %v", mc.name, err)
	}
	return rep
}

func (mc *machine) ingest(ss ...*funes.Session) memory.IngestReport {
	mc.t.Helper()
	rep, err := mc.m.Ingest(context.Background(), ss, memory.IngestOptions{})
	if err != nil {
		mc.t.Fatalf("%s: ingest: %v", mc.name, err)
	}
	return rep
}

// info is a conversation as the memory lists it, and whether it is there.
func (mc *machine) info(id string) (answer.Conversation, bool) {
	mc.t.Helper()
	ss, _, err := conversations.List(context.Background(), mc.m, conversations.Query{Limit: 100000})
	if err != nil {
		mc.t.Fatal(err)
	}
	for _, s := range ss {
		if s.SessionID == id {
			slices.Sort(s.Projects)
			return s, true
		}
	}
	return answer.Conversation{}, false
}

// finds says whether recall finds the text in conversation id.
func (mc *machine) finds(query, id string) bool {
	mc.t.Helper()
	res, err := recall.Recall(context.Background(), mc.m, recall.Options{Query: query, K: 10, Budget: 4000})
	if err != nil {
		mc.t.Fatalf("%s: recall %q: %v", mc.name, query, err)
	}
	for _, h := range res.Hits {
		if h.SessionID == id {
			return true
		}
	}
	return false
}

var day0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// conv is a conversation of n turns, alternating person and assistant,
// the words of each given (or made up), a minute apart.
func conv(id, harness, title, project string, texts ...string) *funes.Session {
	s := &funes.Session{ID: id, Harness: harness, Title: title, Project: project}
	for i, tx := range texts {
		role := funes.RoleUser
		if i%2 == 1 {
			role = funes.RoleAssistant
		}
		s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("%s-t%d", id, i), Seq: i, TS: day0.Add(time.Duration(i) * time.Minute),
			Role: role, Blocks: []funes.Block{{Type: funes.BlockText, Text: tx}}})
	}
	return s
}

// grepFiles lists the files under dirs that hold marker, case-folded.
func grepFiles(t *testing.T, marker string, dirs ...string) []string {
	t.Helper()
	low := bytes.ToLower([]byte(marker))
	var out []string
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err == nil && bytes.Contains(bytes.ToLower(data), low) {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// indexHas says whether the memory's search index holds the term (as the
// engine stores it), read from the database file itself.
func indexHas(t *testing.T, memDir, word string) bool {
	t.Helper()
	dsn := "file:" + (&url.URL{Path: filepath.Join(memDir, memory.DBName)}).EscapedPath() + "?mode=ro&_pragma=busy_timeout(10000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ok, err := engine.HasTerm(context.Background(), db, engine.Term(strings.ToLower(word)))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func readFile(t *testing.T, p string) ([]byte, error) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data, err
}

// writeOld writes a file as left long ago (an hour old).
func writeOld(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
}
