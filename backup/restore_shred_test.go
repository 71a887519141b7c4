package backup

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ireneo-app/ireneo/memory"
)

// A restore that fails or is cancelled leaves none of the files it
// extracted, and overwrites each before it goes: the test hard-links every
// extracted file from outside the memory as it appears (in the Progress
// callback), and the links must read all zeros at the end.

// extractWatch links each file a restore has extracted so far.
type extractWatch struct {
	t     *testing.T
	dir   string // the memory
	out   string
	links map[string]string // staged path → link
}

func newExtractWatch(t *testing.T, dir string) *extractWatch {
	return &extractWatch{t: t, dir: dir, out: t.TempDir(), links: map[string]string{}}
}

func (w *extractWatch) take() {
	ps, _ := filepath.Glob(filepath.Join(w.dir, ".staging", "restore-*", "src", "*", "*.funes.jsonl"))
	for _, p := range ps {
		if _, ok := w.links[p]; ok {
			continue
		}
		l := filepath.Join(w.out, filepath.Base(filepath.Dir(p))+"-"+filepath.Base(p))
		if err := os.Link(p, l); err != nil {
			w.t.Skipf("hard link beside the memory: %v", err)
		}
		w.links[p] = l
	}
}

// check fails unless at least min files were watched and each now reads
// only zeros, and no file is left in the memory's staging or src/ but
// those in keep.
func (w *extractWatch) check(min int, keep ...string) {
	w.t.Helper()
	if len(w.links) < min {
		w.t.Fatalf("watched %d extracted files, want at least %d", len(w.links), min)
	}
	for p, l := range w.links {
		data, err := os.ReadFile(l)
		if err != nil {
			w.t.Fatal(err)
		}
		if left := bytes.Trim(data, "\x00"); len(data) == 0 || len(left) > 0 {
			w.t.Fatalf("%s went without being overwritten: %d of its %d bytes left", p, len(left), len(data))
		}
	}
	kept := map[string]bool{}
	for _, k := range keep {
		kept[k] = true
	}
	for _, sub := range []string{".staging", "src"} {
		filepath.Walk(filepath.Join(w.dir, sub), func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && !kept[p] {
				w.t.Errorf("left after the restore: %s", p)
			}
			return nil
		})
	}
	if ents, _ := os.ReadDir(filepath.Join(w.dir, ".staging")); len(ents) > 0 {
		w.t.Errorf("staging folders left: %v", ents)
	}
}

func restoreTarget(t *testing.T) *memory.Memory {
	t.Helper()
	m, err := memory.Open(filepath.Join(t.TempDir(), "target"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestCancelledRestoreShredsWhatItExtracted(t *testing.T) {
	f := newFixture(t)
	path, _ := f.backupTo(t)
	a, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	m := restoreTarget(t)
	w := newExtractWatch(t, m.Dir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = a.Restore(ctx, m, RestoreOptions{Progress: func(phase string, done, total int) {
		w.take()
		if done == total/2 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled restore: %v", err)
	}
	w.check(2)
}

// Extraction fails: the archive is damaged after Open checked it, in its
// last conversation file.
func TestFailedExtractShredsWhatItExtracted(t *testing.T) {
	f := newFixture(t)
	path, _ := f.backupTo(t)
	a, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	zf := a.entries[a.src[len(a.src)-1]]
	off, _ := zf.DataOffset()
	fh, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteAt([]byte{0, 0, 0, 0}, off+int64(zf.CompressedSize64)/2)
	fh.Close()
	m := restoreTarget(t)
	w := newExtractWatch(t, m.Dir())
	_, err = a.Restore(context.Background(), m, RestoreOptions{Progress: func(string, int, int) { w.take() }})
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("restore of an archive damaged after Open: %v", err)
	}
	w.check(len(a.src) - 1)
}

// Placing fails half way (a file appears in src/ where the restore puts
// one): the files already moved into src/ are overwritten as well as those
// still staged.
func TestFailedPlacingShredsWhatItExtracted(t *testing.T) {
	f := newFixture(t)
	path, _ := f.backupTo(t)
	a, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	m := restoreTarget(t)
	w := newExtractWatch(t, m.Dir())
	blocker := filepath.Join(m.Dir(), filepath.FromSlash(a.src[len(a.src)-1]))
	_, err = a.Restore(context.Background(), m, RestoreOptions{Progress: func(phase string, done, total int) {
		w.take()
		if phase == PhaseExtract && done == total {
			os.MkdirAll(filepath.Dir(blocker), 0o700)
			if err := os.WriteFile(blocker, []byte("someone else's\n"), 0o600); err != nil {
				t.Error(err)
			}
		}
	}})
	if !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("restore meeting a file in src/: %v", err)
	}
	w.check(len(a.src), blocker)
}

// A restore that succeeds leaves no staging folder.
func TestRestoreLeavesNoStaging(t *testing.T) {
	f := newFixture(t)
	path, _ := f.backupTo(t)
	a, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	m := restoreTarget(t)
	if _, err := a.Restore(context.Background(), m, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(filepath.Join(m.Dir(), ".staging")); len(ents) > 0 {
		t.Fatalf("staging left: %v", ents)
	}
}
