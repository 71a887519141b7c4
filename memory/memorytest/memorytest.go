// Package memorytest opens real memories for other packages' tests: a
// memory in a temporary folder, closed when the test ends, and an import
// that fails the test on error. Memory's own tests cannot import it (it
// imports memory); they keep the same two helpers in helpers_test.go.
package memorytest

import (
	"context"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// Open opens a new memory in a temporary folder, closed at the test's end.
func Open(t testing.TB) *memory.Memory {
	t.Helper()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// Ingest imports ss into m with the default options, or fails the test.
func Ingest(t testing.TB, m *memory.Memory, ss ...*funes.Session) memory.IngestReport {
	t.Helper()
	rep, err := m.Ingest(context.Background(), ss, memory.IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
