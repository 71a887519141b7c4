// Package memorytest opens real memories for other packages' tests: a
// memory in a temporary folder, closed when the test ends, an import that
// fails the test on error, and the erasure checks that look past memory's
// API (the database file read on its own, every file grepped case-folded).
// Memory's own tests cannot import it (it imports memory); they keep the
// same helpers in helpers_test.go.
package memorytest

import (
	"bytes"
	"context"
	"database/sql"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/ireneo-app/ireneo/engine"
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

// DB opens the memory's database in dir read-only, beside any open
// memory, closed at the test's end: for what memory's API does not show
// (its tables' rows, the index's terms).
func DB(t testing.TB, dir string) *sql.DB {
	t.Helper()
	dsn := "file:" + (&url.URL{Path: filepath.Join(dir, memory.DBName)}).EscapedPath() + "?mode=ro&_pragma=busy_timeout(10000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// HasTerm says whether the search index of the memory in dir holds term,
// as the engine stores it (engine.Term, engine.Stem).
func HasTerm(t testing.TB, dir, term string) bool {
	t.Helper()
	ok, err := engine.HasTerm(context.Background(), DB(t, dir), term)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// FilesContaining lists every file under dir (relative to it) whose bytes
// hold marker, as typed or in any case: the index keeps terms lowercased.
func FilesContaining(t testing.TB, dir, marker string) []string {
	t.Helper()
	var found []string
	exact, low := []byte(marker), bytes.ToLower([]byte(marker))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, exact) || bytes.Contains(bytes.ToLower(data), low) {
			rel, _ := filepath.Rel(dir, p)
			found = append(found, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
