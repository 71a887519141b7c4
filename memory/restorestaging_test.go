package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A restore's staging folder holds a copy of every conversation of the
// archive: each test puts a file in one, hard-links it from outside the
// memory, and checks what became of its blocks.

const restoredToken = "restoredcopyobsidian"

// stageRestore makes a restore folder holding one extracted file, laid
// out as backup extracts (src/<harness>/<file>), and a link to it.
func stageRestore(t *testing.T, m *Memory) (*RestoreStaging, string) {
	t.Helper()
	st, err := m.NewRestoreStaging(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(st.Dir(), SrcDir, HarnessChatGPT, "r1.funes.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"text":"`+restoredToken+`"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return st, watchFile(t, p)
}

func TestDiscardedRestoreStagingIsZeroed(t *testing.T) {
	m := openTest(t)
	st, link := stageRestore(t, m)
	if err := st.Discard(); err != nil {
		t.Fatal(err)
	}
	if err := st.Discard(); err != nil {
		t.Fatalf("a second Discard: %v", err)
	}
	checkZeroed(t, link, "a discarded restore's file")
	checkNoStaging(t, m)
}

// A killed restore's folder (its lock dropped, as the OS drops it when the
// process dies) is cleared at the next open; a live one, whose lock is
// held, is left alone by open, import and forget.
func TestRestoreLeftoversClearedOnlyWhenDead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mustIngest(t, m, conv("keep", HarnessChatGPT, "", "", day0, "something else", "ok"))
	live, liveLink := stageRestore(t, m)
	dead, deadLink := stageRestore(t, m)
	closeLock(dead.lock) // killed: the folder stays, its lock is free
	m.Close()

	if m, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := os.Stat(dead.Dir()); !os.IsNotExist(err) {
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
	if _, err := os.Stat(filepath.Join(live.Dir(), SrcDir, HarnessChatGPT, "r1.funes.jsonl")); err != nil {
		t.Fatalf("a live restore's file went with open, an import and a forget: %v", err)
	}
	if err := live.Discard(); err != nil {
		t.Fatal(err)
	}
	checkZeroed(t, liveLink, "the live restore's file, discarded")
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
		p := filepath.Join(d, SrcDir, HarnessClaude, "a.funes.jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(restoredToken+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return d, watchFile(t, p)
	}
	old, oldLink := mk(restorePrefix + "1111")
	fresh, _ := mk(restorePrefix + "2222")
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
	if _, err := os.Stat(filepath.Join(fresh, SrcDir, HarnessClaude, "a.funes.jsonl")); err != nil {
		t.Fatalf("a fresh lockless restore folder was cleared: %v", err)
	}
}
