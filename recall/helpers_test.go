package recall

import (
	"context"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"
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
var conv = funestest.Conv

var day0 = funestest.Day0

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
func copyMemory(t *testing.T, from string) string { return funestest.CopyTree(t, from) }
