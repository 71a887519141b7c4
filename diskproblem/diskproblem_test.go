package diskproblem

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
)

// TestExplainPassesOtherErrors: an error that is not a disk failure, and
// a disk failure whose cause the folder does not show, are returned as
// they are; the memory's own tests (memory/diskproblem_linux_test.go)
// fill a real disk and remount one read-only.
func TestExplainPassesOtherErrors(t *testing.T) {
	dir := t.TempDir()
	other := errors.New("no such conversation")
	if got := Explain(dir, nil, other); got != other {
		t.Errorf("Explain(other) = %v", got)
	}
	full := fmt.Errorf("write: %w", syscall.ENOSPC)
	if got := Explain(dir, nil, full); got != full {
		t.Errorf("a writable folder with room: %v, want the error as it was", got)
	}
	if Explain(dir, nil, nil) != nil {
		t.Error("nil explained")
	}
	for n, want := range map[int64]string{512: "512 bytes", 3 << 10: "3.0 KiB", 5 << 20: "5.0 MiB", 7 << 30: "7.0 GiB"} {
		if got := ByteCount(n); got != want {
			t.Errorf("ByteCount(%d) = %q, want %q", n, got, want)
		}
	}
}
