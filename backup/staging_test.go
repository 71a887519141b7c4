package backup

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memory/memorytest"
)

// A restore's staging folder holds a copy of every conversation of the
// archive: each test puts a file in one, hard-links it from outside the
// memory, and checks what became of its blocks.

const restoredToken = "restoredcopyobsidian"

// linkFile hard-links path from outside the memory, to read its blocks
// after it goes.
func linkFile(t *testing.T, path string) string {
	t.Helper()
	l := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.Link(path, l); err != nil {
		t.Skipf("hard link beside the memory: %v", err)
	}
	return l
}

// checkZeroed fails unless the file link shares blocks with was overwritten
// with zeros before it went.
func checkZeroed(t *testing.T, link, what string) {
	t.Helper()
	data, err := os.ReadFile(link)
	if err != nil {
		t.Fatal(err)
	}
	if left := bytes.Trim(data, "\x00"); len(data) == 0 || len(left) > 0 {
		t.Fatalf("%s went without being overwritten: %d of its %d bytes left", what, len(left), len(data))
	}
}

// checkNoStaging fails if anything is left in the memory's staging folder.
func checkNoStaging(t *testing.T, m *memory.Memory) {
	t.Helper()
	if ents, _ := os.ReadDir(filepath.Join(m.Dir(), memory.StagingDir)); len(ents) > 0 {
		t.Fatalf("staging left: %v", ents)
	}
}

// stageRestore makes a restore folder holding one extracted file, laid
// out as Restore extracts (src/<harness>/<file>), and a link to it.
func stageRestore(t *testing.T, m *memory.Memory) (*restoreStaging, string) {
	t.Helper()
	st, err := newRestoreStaging(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(st.dir, memory.SrcDir, funes.HarnessChatGPT, "r1.funes.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"text":"`+restoredToken+`"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return st, linkFile(t, p)
}

func TestDiscardedRestoreStagingIsZeroed(t *testing.T) {
	m := memorytest.Open(t)
	st, link := stageRestore(t, m)
	if err := st.discard(); err != nil {
		t.Fatal(err)
	}
	if err := st.discard(); err != nil {
		t.Fatalf("a second discard: %v", err)
	}
	checkZeroed(t, link, "a discarded restore's file")
	checkNoStaging(t, m)
}

// A killed restore's folder (its lock dropped, as the OS drops it when the
// process dies) is cleared at the memory's next open; a live one, whose
// lock is held, is left alone by open, import, forget and another
// restore's start.
func TestRestoreLeftoversClearedOnlyWhenDead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	memorytest.Ingest(t, m, funestest.Conv("keep", funes.HarnessChatGPT, "", "", funestest.Day0, "something else", "ok"))
	live, liveLink := stageRestore(t, m)
	dead, deadLink := stageRestore(t, m)
	dead.lock.Close() // killed: the folder stays, its lock is free
	m.Close()

	if m, err = memory.Open(dir); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := os.Stat(dead.dir); !os.IsNotExist(err) {
		t.Fatalf("the killed restore's folder is left after open (%v)", err)
	}
	checkZeroed(t, deadLink, "a killed restore's file")

	b, err := m.NewBatch(memory.IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Discard()
	if _, err := m.Forget(ctx, []string{"keep"}, nil); err != nil {
		t.Fatal(err)
	}
	other, err := newRestoreStaging(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.discard(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(live.dir, memory.SrcDir, funes.HarnessChatGPT, "r1.funes.jsonl")); err != nil {
		t.Fatalf("a live restore's file went with open, an import, a forget and another restore: %v", err)
	}
	if err := live.discard(); err != nil {
		t.Fatal(err)
	}
	checkZeroed(t, liveLink, "the live restore's file, discarded")
	checkNoStaging(t, m)
	if found := memorytest.FilesContaining(t, dir, restoredToken); len(found) > 0 {
		t.Fatalf("restored text left in %v", found)
	}
}

// A restore killed while it moves its files into src/: the memory's next
// open takes back (overwrites and removes) those it moved, and the ones
// still staged, but no file the index holds. willPlace refuses a path
// outside src/.
func TestRestoreKilledWhilePlacingIsUndone(t *testing.T) {
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	memorytest.Ingest(t, m, funestest.Conv("kept", funes.HarnessChatGPT, "", "", funestest.Day0, "kept text", "ok"))
	kept, _ := filepath.Glob(filepath.Join(dir, memory.SrcDir, "*", "*.funes.jsonl"))
	if len(kept) != 1 {
		t.Fatalf("the stored conversation's files: %v", kept)
	}
	keptFile := kept[0]
	st, err := newRestoreStaging(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.willPlace([]string{filepath.Join(dir, memory.DBName)}); err == nil {
		t.Fatal("willPlace accepted a path outside src/")
	}
	var finals, links []string
	for _, name := range []string{"moved", "staged"} {
		staged := filepath.Join(st.dir, memory.SrcDir, funes.HarnessClaude, name+".funes.jsonl")
		if err := os.MkdirAll(filepath.Dir(staged), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(staged, []byte(restoredToken+" "+name+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		links = append(links, linkFile(t, staged))
		finals = append(finals, filepath.Join(dir, memory.SrcDir, funes.HarnessClaude, name+".funes.jsonl"))
	}
	if err := st.willPlace(append(finals, keptFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(finals[0]), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(st.dir, memory.SrcDir, funes.HarnessClaude, "moved.funes.jsonl"), finals[0]); err != nil {
		t.Fatal(err)
	}
	st.lock.Close() // killed after the first rename
	m.Close()

	if m, err = memory.Open(dir); err != nil {
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
	if found := memorytest.FilesContaining(t, dir, restoredToken); len(found) > 0 {
		t.Fatalf("restored text left in %v", found)
	}
}
