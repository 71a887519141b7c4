//go:build unix

package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ireneo-app/ireneo/backup"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// A restore extracts the archive's conversations into .staging/restore-*
// before it moves them into src/. These tests run `ireneo restore` in a
// child process (as the import kill tests do), freeze it while it
// extracts, and then either SIGKILL it, after which the next open must
// clear and overwrite its folder, or let it go on after another process
// opened the memory and forgot in it, which must have left the running
// restore's files alone.

// restoreArchive writes a backup of a memory of n kill-test conversations.
func restoreArchive(t *testing.T, n int) string {
	t.Helper()
	ctx := context.Background()
	m, err := memory.Open(filepath.Join(t.TempDir(), "source"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ss := make([]*funes.Session, n)
	for i := range ss {
		ss[i] = killSession(i, 3)
	}
	if _, err := m.Ingest(ctx, ss, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "backup.zip")
	if _, err := backup.Write(ctx, m, p, backup.WriteOptions{AppVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	return p
}

// extracted lists the files a restore has extracted into its staging.
func extracted(dir string) []string {
	ps, _ := filepath.Glob(filepath.Join(dir, ".staging", "restore-*", "src", "*", "*.funes.jsonl"))
	return ps
}

// startFrozenRestore starts a restore into a fresh memory and freezes it
// while it extracts, with some files out and none yet in src/; an archive
// restored before that is tried again twice as large.
func startFrozenRestore(t *testing.T) (dir, archive string, c *child, n int) {
	t.Helper()
	t.Setenv("IRENEO_CONFIG", filepath.Join(t.TempDir(), "config"))
	n = 250
	for attempt := range 4 {
		archive = restoreArchive(t, n)
		dir = filepath.Join(t.TempDir(), "memory")
		c = startCLI(t, "--memory", dir, "restore", archive)
		if freezeWhen(t, c, dir, func(dir string, s importState) bool { return len(extracted(dir)) >= 2 && s.placed == 0 }) {
			t.Logf("frozen with %d of %d files extracted", len(extracted(dir)), n)
			return dir, archive, c, n
		}
		c.wait(t, "on its own")
		t.Logf("attempt %d: the restore of %d conversations ended before it was seen extracting", attempt, n)
		n *= 2
	}
	t.Fatalf("a restore was never seen extracting, up to %d conversations", n/2)
	return
}

func TestKilledRestoreIsClearedAtTheNextOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir, archive, c, n := startFrozenRestore(t)
	var written []string // the file being written when frozen may be empty yet
	for _, p := range extracted(dir) {
		if fi, err := os.Stat(p); err == nil && fi.Size() > 0 {
			written = append(written, p)
		}
	}
	if len(written) == 0 {
		t.Fatal("no extracted file holds bytes yet")
	}
	w := newLinkWatch(t, written)
	c.signal(syscall.SIGKILL)
	c.signal(syscall.SIGCONT)
	var ee *exec.ExitError
	if err := c.wait(t, "after SIGKILL"); !errors.As(err, &ee) {
		t.Fatalf("the child was not killed: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".staging", "restore-*"))
	if len(left) != 1 {
		t.Fatalf("a killed restore should leave its folder for the next open: %v", left)
	}
	// The next open, here `ireneo status`, clears it.
	if code, out, errs := run(t, "--memory", dir, "status"); code != 0 {
		t.Fatalf("status: %d %s %s", code, out, errs)
	}
	if l := leftovers(dir); len(l) > 0 {
		t.Fatalf("left after the next open: %v", l)
	}
	checkZeroedLinks(t, w)
	if found := grepMemory(t, dir, "pumps, seals"); len(found) > 0 {
		t.Fatalf("conversation text left in %v", found)
	}
	// Nothing was placed, so the memory is still empty: the restore can
	// be done again.
	code, out, errs := run(t, "--memory", dir, "restore", archive)
	if code != 0 {
		t.Fatalf("restore after the kill: %d %s %s", code, out, errs)
	}
	restoredCount(t, dir, n)
}

func TestRunningRestoreIsLeftAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir, _, c, n := startFrozenRestore(t)
	before := extracted(dir)
	// Another process opens the memory (recovery runs at every open) and
	// forgets there (it clears dead imports' and restores' leftovers first).
	for _, args := range [][]string{{"status"}, {"forget", "--yes", killID}} {
		code, out, errs := run(t, append([]string{"--memory", dir}, args...)...)
		if args[0] == "status" && code != 0 {
			t.Fatalf("status: %d %s %s", code, out, errs)
		}
	}
	for _, p := range before {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("a running restore lost %s to another process's open: %v", p, err)
		}
	}
	c.signal(syscall.SIGCONT)
	if err := c.wait(t, "let go"); err != nil {
		t.Fatalf("the restore failed after another process opened its memory: %v", err)
	}
	if l := leftovers(dir); len(l) > 0 {
		t.Fatalf("left after the restore: %v", l)
	}
	restoredCount(t, dir, n)
}

// restoredCount fails unless the memory holds n conversations.
func restoredCount(t *testing.T, dir string, n int) {
	t.Helper()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, total, err := conversations.List(context.Background(), m, conversations.Query{Limit: 1})
	if err != nil || total != n {
		t.Fatalf("restored %d conversations (%v), want %d", total, err, n)
	}
}

// newLinkWatch hard-links each file from a folder outside the memory, for
// checkZeroedLinks.
func newLinkWatch(t *testing.T, files []string) []string {
	t.Helper()
	out := t.TempDir()
	var links []string
	for _, p := range files {
		l := filepath.Join(out, filepath.Base(filepath.Dir(p))+"-"+filepath.Base(p))
		if err := os.Link(p, l); err != nil {
			t.Skipf("hard link beside the memory: %v", err)
		}
		links = append(links, l)
	}
	return links
}
