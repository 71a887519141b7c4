package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// A restore's staging folder (package backup makes it) holds a copy of
// every conversation of the archive: each test lays one out by hand, as
// backup does (memory/restoreleftovers.go), hard-links its files from
// outside the memory, and checks what the memory's clearing made of them.
// Backup's own tests make theirs with backup's code.

const restoredToken = "restoredcopyobsidian"

// restoreFolder lays out a restore's folder in the memory at dir, born and
// locked as backup makes it, holding one extracted file
// (src/<harness>/<file>); it returns the folder, its lock and a link to
// the file. Closing the lock is the restore's death.
func restoreFolder(t *testing.T, dir, name string) (string, *os.File, string) {
	t.Helper()
	root := filepath.Join(dir, StagingDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(root, NewStagingPrefix)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := tryLock(filepath.Join(tmp, StagingLock))
	if err != nil || lock == nil {
		t.Fatalf("lock %s: %v", tmp, err)
	}
	t.Cleanup(func() { closeLock(lock) })
	st := filepath.Join(root, RestorePrefix+strings.TrimPrefix(filepath.Base(tmp), NewStagingPrefix))
	if err := os.Rename(tmp, st); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(st, SrcDir, funes.HarnessChatGPT, name+".funes.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"text":"`+restoredToken+" "+name+`"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return st, lock, watchFile(t, p)
}

// A killed restore's folder (its lock dropped, as the OS drops it when the
// process dies) is cleared at the next open; a live one, whose lock is
// held, is left alone by open, import, forget and ClearStaging.
func TestRestoreLeftoversClearedOnlyWhenDead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mustIngest(t, m, conv("keep", funes.HarnessChatGPT, "", "", day0, "something else", "ok"))
	live, liveLock, _ := restoreFolder(t, dir, "live")
	dead, deadLock, deadLink := restoreFolder(t, dir, "dead")
	closeLock(deadLock) // killed: the folder stays, its lock is free
	m.Close()

	if m, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("the killed restore's folder is left after open (%v)", err)
	}
	checkZeroed(t, deadLink, "a killed restore's file")

	b, err := m.NewBatch(IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Discard()
	if _, err := m.Forget(ctx, []string{"keep"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := m.ClearStaging(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(live, SrcDir, funes.HarnessChatGPT, "live.funes.jsonl")); err != nil {
		t.Fatalf("a live restore's file went with open, an import, a forget and ClearStaging: %v", err)
	}
	closeLock(liveLock)
	if err := m.ClearStaging(ctx); err != nil {
		t.Fatal(err)
	}
	checkNoStaging(t, m)
	if found := grepDir(t, dir, restoredToken); len(found) > 0 {
		t.Fatalf("restored text left in %v", found)
	}
}

// Builds before the lock left restore-* folders with no lock file: one
// untouched for legacyRestoreQuiet is cleared, a fresh one (perhaps that
// build's restore, running) is not.
func TestLegacyRestoreFolders(t *testing.T) {
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	mk := func(name string) (string, string) {
		d := filepath.Join(dir, stagingDir, name)
		p := filepath.Join(d, SrcDir, funes.HarnessClaude, "a.funes.jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(restoredToken+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return d, watchFile(t, p)
	}
	old, oldLink := mk(RestorePrefix + "1111")
	fresh, _ := mk(RestorePrefix + "2222")
	long := time.Now().Add(-2 * legacyRestoreQuiet)
	filepath.Walk(old, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, long, long) })

	if m, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("an old build's killed restore folder is left (%v)", err)
	}
	checkZeroed(t, oldLink, "an old build's restore file")
	if _, err := os.Stat(filepath.Join(fresh, SrcDir, funes.HarnessClaude, "a.funes.jsonl")); err != nil {
		t.Fatalf("a fresh lockless restore folder was cleared: %v", err)
	}
}

// A restore killed while it moves its files into src/: the next open takes
// back (overwrites and removes) those it moved, and the ones still staged,
// but no file the index holds, nor anything outside src/ its list names.
func TestRestoreKilledWhilePlacingIsUndone(t *testing.T) {
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mustIngest(t, m, conv("kept", funes.HarnessChatGPT, "", "", day0, "kept text", "ok"))
	keptFile := filepath.Join(dir, srcPath(funes.HarnessChatGPT, "kept"))
	if _, err := os.Stat(keptFile); err != nil {
		t.Fatal(err)
	}
	st, lock, stagedLink := restoreFolder(t, dir, "staged")
	moved := filepath.Join(st, SrcDir, funes.HarnessChatGPT, "moved.funes.jsonl")
	if err := os.WriteFile(moved, []byte(restoredToken+" moved\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	movedLink := watchFile(t, moved)
	final := filepath.Join(dir, SrcDir, funes.HarnessChatGPT, "moved.funes.jsonl")
	// The place list, and lines reaching outside src/, which are not followed.
	list := []string{
		filepath.Join(SrcDir, funes.HarnessChatGPT, "moved.funes.jsonl"),
		filepath.Join(SrcDir, funes.HarnessChatGPT, "staged.funes.jsonl"),
		srcPath(funes.HarnessChatGPT, "kept"),
		filepath.Join(SrcDir, "..", DBName),
		DBName,
	}
	if err := os.WriteFile(filepath.Join(st, PlaceList), []byte(strings.Join(list, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, final); err != nil {
		t.Fatal(err)
	}
	closeLock(lock) // killed after the first rename
	m.Close()

	if m, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	checkNoStaging(t, m)
	checkZeroed(t, movedLink, "a killed restore's moved file")
	checkZeroed(t, stagedLink, "a killed restore's staged file")
	if _, err := os.Stat(final); !os.IsNotExist(err) {
		t.Fatalf("the file the killed restore moved into src/ is left (%v)", err)
	}
	if _, err := os.Stat(keptFile); err != nil {
		t.Fatalf("a stored conversation's file named in the list went: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, DBName)); err != nil {
		t.Fatalf("the database, named by an edited list, went: %v", err)
	}
	if s, err := m.Status(context.Background()); err != nil || s.Conversations != 1 {
		t.Fatalf("the memory after the undo: %+v %v", s, err)
	}
	if found := grepDir(t, dir, restoredToken); len(found) > 0 {
		t.Fatalf("restored text left in %v", found)
	}
}
