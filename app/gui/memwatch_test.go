package gui

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ireneo-app/ireneo/memory"
)

// TestSignatureSeesFilesLand: an import commits its counts first and moves
// its files into src/ after; the window's signature must change again when
// a file lands with the counts unchanged, or a reload between the two keeps
// showing the conversation as it was.
func TestSignatureSeesFilesLand(t *testing.T) {
	m := newTestMemory(t)
	ctx := context.Background()
	before, err := memorySignature(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := os.ReadDir(filepath.Join(m.Dir(), memory.SrcDir))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no folders in src/: %v", err)
	}
	// What placing a committed file does: write it beside, rename it in.
	dir := filepath.Join(m.Dir(), memory.SrcDir, dirs[0].Name())
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) == 0 {
		t.Fatalf("no files in %s: %v", dir, err)
	}
	file := filepath.Join(dir, ents[0].Name())
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(m.Dir(), "landing.tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	after, err := memorySignature(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Fatalf("the signature did not change when a file landed in src/: %q", after)
	}
	if again, _ := memorySignature(ctx, m); again != after {
		t.Fatalf("the signature changed with nothing changed: %q, then %q", after, again)
	}
}

// TestWatchReloadsOnceMoreAfterAChange: where folder times are coarse, the
// last of an import's files can land with the signature a poll already
// read; the window reloads at the change and at the poll after, then stops.
func TestWatchReloadsOnceMoreAfterAChange(t *testing.T) {
	w := memoryWatch{last: "a"}
	for i, step := range []struct {
		sig    string
		reload bool
	}{
		{"a", false}, {"b", true}, {"b", true}, {"b", false}, {"b", false},
		{"c", true}, {"d", true}, {"d", true}, {"d", false},
	} {
		if got := w.observe(step.sig); got != step.reload {
			t.Fatalf("poll %d (%q): reload %v, want %v", i, step.sig, got, step.reload)
		}
	}
}
