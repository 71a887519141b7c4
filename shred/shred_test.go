package shred

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// The bytes are zeroed in the same file (its inode), not in a new one.
func TestZeroOverwritesInPlace(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	secret := bytes.Repeat([]byte("hunter2 "), 10_000)
	if err := os.WriteFile(p, secret, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p) // held open: reads the same inode after Zero
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Zero(p); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(secret)+1)
	n, _ := f.ReadAt(got, 0)
	if n != len(secret) || !bytes.Equal(got[:n], make([]byte, len(secret))) {
		t.Fatalf("after Zero the file holds %d bytes, zero: %v", n, bytes.Equal(got[:n], make([]byte, n)))
	}
}

func TestFileRemovesAfterZeroing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := File(p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("still there: %v", err)
	}
	if err := File(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("File of a missing file = %v; want not-exist", err)
	}
}
