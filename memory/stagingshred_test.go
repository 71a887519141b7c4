package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// A staging file thrown away is overwritten first, on every path: a
// removed file's blocks keep its bytes until the disk reuses them. Each
// test hard-links the file from outside the memory before it goes: the
// link sees what was done to the file's blocks.

const stagedToken = "stagedcopyzircon"

// watchFile hard-links path from a folder outside the memory.
func watchFile(t *testing.T, path string) string {
	t.Helper()
	l := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.Link(path, l); err != nil {
		t.Skipf("hard link beside the memory: %v", err)
	}
	return l
}

// watchNext makes the batch's next in-* file a hard link of a file outside
// the memory: the commit writes it in place (os.WriteFile truncates, it
// does not replace), so the link sees its bytes.
func watchNext(t *testing.T, b *Batch) string {
	t.Helper()
	l := filepath.Join(t.TempDir(), "in-watch")
	if err := os.WriteFile(l, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(l, filepath.Join(b.dir, fmt.Sprintf("%s%06d", incomingPrefix, b.nIn+1))); err != nil {
		t.Skipf("hard link into the memory: %v", err)
	}
	return l
}

// checkZeroed fails unless the file at link holds only zeros, and some.
func checkZeroed(t *testing.T, link, what string) {
	t.Helper()
	data, err := os.ReadFile(link)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 {
		t.Fatalf("%s: the file was emptied, not overwritten (or never written)", what)
	}
	if n := len(bytes.Trim(data, "\x00")); n > 0 {
		t.Fatalf("%s: %d of its %d bytes are left: %.80q", what, n, len(data), bytes.Trim(data, "\x00"))
	}
}

func stageToken(t *testing.T, m *Memory, ctx context.Context, n int) *Batch {
	t.Helper()
	b, err := m.NewBatch(IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := b.Add(ctx, conv(fmt.Sprintf("st%d", i), funes.HarnessChatGPT, "", "", day0, "The code is "+stagedToken+".", "ok")); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func checkNoStaging(t *testing.T, m *Memory) {
	t.Helper()
	if d := stagingDirs(t, m); len(d) != 0 {
		t.Fatalf("staging left: %v", d)
	}
}

// An import cancelled before its commit (importers.Run discards the batch
// on Ctrl-C).
func TestCancelledImportZeroesItsStagingFile(t *testing.T) {
	m := openTest(t)
	b := stageToken(t, m, context.Background(), 3)
	link := watchFile(t, filepath.Join(b.dir, stagedName))
	b.Discard()
	checkNoStaging(t, m)
	checkZeroed(t, link, "staged.jsonl")
	if found := grepDir(t, m.Dir(), stagedToken); len(found) > 0 {
		t.Fatalf("the staged text is in %v", found)
	}
}

// An import cancelled half way through its commit: the part committed is
// stored, the staging file goes zeroed all the same.
func TestImportCancelledInItsCommitZeroesItsStagingFile(t *testing.T) {
	m := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	b := stageToken(t, m, ctx, commitChunk+50)
	link := watchFile(t, filepath.Join(b.dir, stagedName))
	_, err := b.Commit(ctx, func(done, total int) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("commit after cancel: %v", err)
	}
	checkNoStaging(t, m)
	checkZeroed(t, link, "staged.jsonl")
}

// A commit that fails in its transaction, after writing the in-* file of
// an earlier session of the part: that file is zeroed as well as the
// staging file, and nothing of the import is in the memory.
func TestFailedCommitZeroesItsStagingFiles(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	b := stageToken(t, m, ctx, 1)
	// The second session's folder cannot be made: its commit fails.
	blocked := filepath.Join(m.Dir(), filepath.Dir(srcPath(funes.HarnessCodex, "x")))
	if err := os.MkdirAll(filepath.Dir(blocked), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blocked, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ctx, conv("blocked", funes.HarnessCodex, "", "", day0, "Blocked, with "+stagedToken+".", "ok")); err != nil {
		t.Fatal(err)
	}
	staged := watchFile(t, filepath.Join(b.dir, stagedName))
	in := watchNext(t, b)
	if _, err := b.Commit(ctx, nil); err == nil {
		t.Fatal("the commit went through a file where a folder should be")
	}
	checkNoStaging(t, m)
	checkZeroed(t, staged, "staged.jsonl")
	checkZeroed(t, in, "the in-* file of the session before the failure")
	os.Remove(blocked)
	if found := grepDir(t, m.Dir(), stagedToken); len(found) > 0 {
		t.Fatalf("the failed import's text is in %v", found)
	}
}

// A committed import's staging file is zeroed too: its copy of a
// conversation must not outlive a forget of it in free blocks.
func TestCommittedImportZeroesItsStagingFile(t *testing.T) {
	m := openTest(t)
	b := stageToken(t, m, context.Background(), 2)
	link := watchFile(t, filepath.Join(b.dir, stagedName))
	if r, err := b.Commit(context.Background(), nil); err != nil || r.New != 2 {
		t.Fatalf("commit: %v %+v", err, r)
	}
	checkNoStaging(t, m)
	checkZeroed(t, link, "staged.jsonl")
}

// A killed import's folder, cleared at the next open.
func TestKilledImportsLeftoversAreZeroedAtOpen(t *testing.T) {
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := stageToken(t, m, context.Background(), 2)
	link := watchFile(t, filepath.Join(b.dir, stagedName))
	b.die()
	m.Close()
	if m, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	checkNoStaging(t, m)
	checkZeroed(t, link, "a killed import's staged.jsonl")
	if found := grepDir(t, dir, stagedToken); len(found) > 0 {
		t.Fatalf("the killed import's text is in %v", found)
	}
}
