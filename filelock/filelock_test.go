package filelock

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestTryLockExcludesAnotherOpen(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	a, err := TryLock(p)
	if err != nil || a == nil {
		t.Fatalf("first TryLock = %v, %v; want the file", a, err)
	}
	b, err := TryLock(p)
	if err != nil || b != nil {
		t.Fatalf("second TryLock while held = %v, %v; want nil, nil", b, err)
	}
	a.Close()
	c, err := TryLock(p)
	if err != nil || c == nil {
		t.Fatalf("TryLock after release = %v, %v; want the file", c, err)
	}
	c.Close()
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("lock file mode = %v, %v; want 0600", st.Mode().Perm(), err)
	}
}

func TestLockWaitsForRelease(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	a, err := TryLock(p)
	if err != nil || a == nil {
		t.Fatalf("TryLock = %v, %v", a, err)
	}
	got := make(chan *os.File)
	go func() {
		f, err := Lock(p)
		if err != nil {
			t.Errorf("Lock: %v", err)
		}
		got <- f
	}()
	select {
	case f := <-got:
		t.Fatalf("Lock returned %v while another open held the lock", f)
	case <-time.After(200 * time.Millisecond):
	}
	a.Close()
	select {
	case f := <-got:
		if f == nil {
			t.Fatal("Lock returned no file")
		}
		f.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("Lock still waiting 10 s after the release")
	}
}

func TestTryLockNamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing", "lock")
	if _, err := TryLock(p); err == nil {
		t.Fatal("TryLock in a missing folder: no error")
	}
}
