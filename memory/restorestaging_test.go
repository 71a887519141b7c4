package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
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
	p := filepath.Join(st.Dir(), SrcDir, funes.HarnessChatGPT, "r1.funes.jsonl")
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
	mustIngest(t, m, conv("keep", funes.HarnessChatGPT, "", "", day0, "something else", "ok"))
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
	if _, err := os.Stat(filepath.Join(live.Dir(), SrcDir, funes.HarnessChatGPT, "r1.funes.jsonl")); err != nil {
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
		p := filepath.Join(d, SrcDir, funes.HarnessClaude, "a.funes.jsonl")
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
	st, err := m.NewRestoreStaging(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WillPlace([]string{filepath.Join(dir, DBName)}); err == nil {
		t.Fatal("WillPlace accepted a path outside src/")
	}
	var finals, links []string
	for _, name := range []string{"moved", "staged"} {
		staged := filepath.Join(st.Dir(), SrcDir, funes.HarnessClaude, name+".funes.jsonl")
		if err := os.MkdirAll(filepath.Dir(staged), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(staged, []byte(restoredToken+" "+name+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		links = append(links, watchFile(t, staged))
		finals = append(finals, filepath.Join(dir, SrcDir, funes.HarnessClaude, name+".funes.jsonl"))
	}
	if err := st.WillPlace(append(finals, keptFile)); err != nil {
		t.Fatal(err)
	}
	// A list edited to reach outside src/ is not followed.
	f, err := os.OpenFile(filepath.Join(st.Dir(), placingName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(filepath.Join(SrcDir, "..", DBName) + "\n" + DBName + "\n")
	f.Close()
	if err := os.MkdirAll(filepath.Dir(finals[0]), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(st.Dir(), SrcDir, funes.HarnessClaude, "moved.funes.jsonl"), finals[0]); err != nil {
		t.Fatal(err)
	}
	closeLock(st.lock) // killed after the first rename
	m.Close()

	if m, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	checkNoStaging(t, m)
	for i, l := range links {
		checkZeroed(t, l, "a killed restore's "+[]string{"moved", "staged"}[i]+" file")
	}
	if _, err := os.Stat(finals[0]); !os.IsNotExist(err) {
		t.Fatalf("the file the killed restore moved into src/ is left (%v)", err)
	}
	if _, err := os.Stat(keptFile); err != nil {
		t.Fatalf("a stored conversation's file named in the list went: %v", err)
	}
	if s, err := m.Status(context.Background()); err != nil || s.Conversations != 1 {
		t.Fatalf("the memory after the undo: %+v %v", s, err)
	}
	if found := grepDir(t, dir, restoredToken); len(found) > 0 {
		t.Fatalf("restored text left in %v", found)
	}
}
