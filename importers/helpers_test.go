package importers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// parsed is everything a parser reported for one input.
type parsed struct {
	sessions []*funes.Session
	skipped  []string
	err      error
}

func parseFile(t *testing.T, fn parseFunc, path string) parsed {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var p parsed
	p.err = fn(context.Background(), f, path, Handler{
		Session: func(s *funes.Session) error { p.sessions = append(p.sessions, s); return nil },
		Skip:    func(what, why string) { p.skipped = append(p.skipped, what+": "+why) },
		Path:    path,
	})
	for _, s := range p.sessions {
		checkSession(t, s)
	}
	return p
}

func parseString(t *testing.T, fn parseFunc, name, data string) parsed {
	t.Helper()
	var p parsed
	p.err = fn(context.Background(), strings.NewReader(data), name, Handler{
		Session: func(s *funes.Session) error { p.sessions = append(p.sessions, s); return nil },
		Skip:    func(what, why string) { p.skipped = append(p.skipped, what+": "+why) },
	})
	for _, s := range p.sessions {
		checkSession(t, s)
	}
	return p
}

// checkSession asserts what every parser promises: ids, seq 0..n-1, UTC
// times, no blank blocks, unique turn ids.
func checkSession(t testing.TB, s *funes.Session) {
	t.Helper()
	if s.ID == "" || s.Harness == "" || len(s.Turns) == 0 {
		t.Fatalf("session %q/%q has %d turns", s.Harness, s.ID, len(s.Turns))
	}
	if s.Title == "" {
		t.Errorf("session %s has no title", s.ID)
	}
	seen := map[string]bool{}
	for i, tu := range s.Turns {
		if tu.Seq != i {
			t.Errorf("session %s turn %d has seq %d", s.ID, i, tu.Seq)
		}
		if tu.TurnUUID == "" || seen[tu.TurnUUID] {
			t.Errorf("session %s turn %d: empty or repeated turn id %q", s.ID, i, tu.TurnUUID)
		}
		seen[tu.TurnUUID] = true
		if !tu.TS.IsZero() && tu.TS.Location() != time.UTC {
			t.Errorf("session %s turn %d: time %v is not UTC", s.ID, i, tu.TS)
		}
		if len(tu.Blocks) == 0 {
			t.Errorf("session %s turn %d has no blocks", s.ID, i)
		}
		for _, b := range tu.Blocks {
			if strings.TrimSpace(b.Text) == "" {
				t.Errorf("session %s turn %d has a blank %s block", s.ID, i, b.Type)
			}
		}
	}
}

// want is one expected turn.
type want struct {
	id     string // "" to skip the check
	ts     string // RFC 3339, "" to skip the check
	role   string
	blocks []funes.Block
}

func txt(s string) funes.Block   { return funes.Block{Type: funes.BlockText, Text: s} }
func think(s string) funes.Block { return funes.Block{Type: funes.BlockThinking, Text: s} }
func use(tool, s string) funes.Block {
	return funes.Block{Type: funes.BlockToolUse, Text: s, ToolName: tool}
}
func result(tool, s string) funes.Block {
	return funes.Block{Type: funes.BlockToolResult, Text: s, ToolName: tool}
}

func checkTurns(t *testing.T, s *funes.Session, ws []want) {
	t.Helper()
	if len(s.Turns) != len(ws) {
		for i, tu := range s.Turns {
			t.Logf("turn %d %s %s %+v", i, tu.TurnUUID, tu.Role, tu.Blocks)
		}
		t.Fatalf("session %s: %d turns, want %d", s.ID, len(s.Turns), len(ws))
	}
	for i, w := range ws {
		tu := s.Turns[i]
		if w.id != "" && tu.TurnUUID != w.id {
			t.Errorf("turn %d: id %q, want %q", i, tu.TurnUUID, w.id)
		}
		if w.ts != "" && tu.TS.Format(time.RFC3339Nano) != w.ts {
			t.Errorf("turn %d: ts %s, want %s", i, tu.TS.Format(time.RFC3339Nano), w.ts)
		}
		if tu.Role != w.role {
			t.Errorf("turn %d: role %q, want %q", i, tu.Role, w.role)
		}
		if fmt.Sprint(tu.Blocks) != fmt.Sprint(w.blocks) {
			t.Errorf("turn %d blocks:\n got %q\nwant %q", i, tu.Blocks, w.blocks)
		}
	}
}

func sessionByID(t *testing.T, ss []*funes.Session, id string) *funes.Session {
	t.Helper()
	for _, s := range ss {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no session %s among %d", id, len(ss))
	return nil
}

func newMemory(t testing.TB) *memory.Memory {
	t.Helper()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// snapshot is everything a person could see of a memory: the catalog's
// conversation list and every file under src/ with its hash.
func snapshot(t testing.TB, m *memory.Memory) string {
	t.Helper()
	infos, total, err := conversations.List(context.Background(), m, conversations.Query{Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "total %d\n", total)
	for _, in := range infos {
		fmt.Fprintf(&b, "%s %s %q %d turns %v\n", in.Source, in.SessionID, in.Title, in.Turns, in.Projects)
	}
	var files []string
	root := filepath.Join(m.Dir(), memory.SrcDir)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(p)
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(root, p)
		files = append(files, rel+" "+hex.EncodeToString(sum[:8]))
		return nil
	})
	sort.Strings(files)
	b.WriteString(strings.Join(files, "\n"))
	return b.String()
}

// testdata returns a path under testdata/.
func testdata(parts ...string) string {
	return filepath.Join(append([]string{"testdata"}, parts...)...)
}
