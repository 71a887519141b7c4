package memory

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenClearsStagingBornDead: a staging folder killed while being born
// (.new-*, between its mkdir and the rename after its lock: the kill loop
// saw one after a restore killed at iteration 77) is left alone by an
// open for a minute, since a live one looks the same, and cleared by the
// first open after that.
func TestOpenClearsStagingBornDead(t *testing.T) {
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	born := filepath.Join(dir, stagingDir, newBatchPrefix+"123456")
	if err := os.MkdirAll(born, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(born, lockName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if _, err := os.Stat(born); err != nil {
		t.Fatalf("a folder being born was cleared at once (it may be live): %v", err)
	}
	old := time.Now().Add(-2 * time.Minute)
	os.Chtimes(filepath.Join(born, lockName), old, old)
	os.Chtimes(born, old, old)
	m, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := os.Stat(born); !os.IsNotExist(err) {
		t.Fatalf("a dead folder born a minute ago is still there: %v", err)
	}
}
