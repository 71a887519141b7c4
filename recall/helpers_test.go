package recall

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

func openTest(t *testing.T) *memory.Memory {
	t.Helper()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// conv makes a session whose turns alternate user and assistant, a minute apart from start.
func conv(id, harness, title, project string, start time.Time, texts ...string) *funes.Session {
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

var day0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func mustIngest(t *testing.T, m *memory.Memory, ss ...*funes.Session) memory.IngestReport {
	t.Helper()
	rep, err := m.Ingest(context.Background(), ss, memory.IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// v0Memory was written by the first release (memory/schema_test.go says how).
const v0Memory = "../memory/testdata/v0-memory"

// copyMemory copies a memory directory into a fresh temporary one, so a
// test can open (and upgrade) it without touching testdata.
func copyMemory(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
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
		t.Fatal(err)
	}
	return to
}
