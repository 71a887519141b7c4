package shred

import (
	"os"
	"path/filepath"
	"testing"
)

// A staging folder goes whole, its subfolders too, whatever the order the
// directory lists them in; a missing folder is no error.
func TestFolderRemovesEverything(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "stage")
	if err := os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"lock", "a.jsonl", "sub/b.jsonl", "sub/deeper/c.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("secret text"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Folder(dir, "lock"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the folder is still there: %v", err)
	}
	if err := Folder(dir, "lock"); err != nil {
		t.Fatalf("a missing folder: %v", err)
	}
}
