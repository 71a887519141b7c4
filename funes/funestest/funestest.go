// Package funestest makes small conversations for tests: the one shape
// the tests of memory, recall, insights and redact all build their
// memories from. It imports only funes, so any package's tests (memory's
// own included) may use it.
package funestest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Day0 is a date tests start their conversations on.
var Day0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// Conv makes a conversation whose turns alternate user and assistant, a
// minute apart from start, one text block each. Turn i's uuid is
// "<id>-t<i>".
func Conv(id, harness, title, project string, start time.Time, texts ...string) *funes.Session {
	s := &funes.Session{ID: id, Harness: harness, Title: title, Project: project}
	for i, tx := range texts {
		role := funes.RoleUser
		if i%2 == 1 {
			role = funes.RoleAssistant
		}
		s.Turns = append(s.Turns, funes.Turn{
			TurnUUID: fmt.Sprintf("%s-t%d", id, i), Seq: i, TS: start.Add(time.Duration(i) * time.Minute), Role: role,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: tx}},
		})
	}
	return s
}

// CopyTree copies the folder from (a memory in testdata, say) into a fresh
// temporary one, files 0600 and folders 0700, so a test can open and
// upgrade it without touching the original.
func CopyTree(t testing.TB, from string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o600)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", from, err)
	}
	return to
}
