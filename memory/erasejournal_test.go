package memory

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// The kill tests run a forget in a child process (this test binary,
// re-executed into TestEraseChild) that kills itself with SIGKILL at a
// named step (EnvKillAt), then open the memory again, as any later command
// does, and look for what the forget was to erase.

const eraseChildEnv = "IRENEO_ERASE_CHILD"

// TestEraseChild is the child: it opens the memory named by the
// environment and forgets the conversation named there.
func TestEraseChild(t *testing.T) {
	spec := os.Getenv(eraseChildEnv)
	if spec == "" {
		t.Skip("runs only as the child of the erase kill tests")
	}
	dir, id, _ := strings.Cut(spec, "\x1f")
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Forget(context.Background(), []string{id}, nil); err != nil {
		t.Fatal(err)
	}
	m.Close()
}

// runKilled runs the child's forget of id in dir, killed at step; it
// fails the test unless SIGKILL ended it.
func runKilled(t *testing.T, dir, id, step string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestEraseChild$")
	cmd.Env = append(os.Environ(), eraseChildEnv+"="+dir+"\x1f"+id, EnvKillAt+"="+step)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child at %s was not killed: %v\n%s", step, err, out)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child at %s ended otherwise: %v\n%s", step, err, out)
	}
}

// killFixture is a memory with a conversation to forget (its marker in
// title and text) and one to keep that quotes it in an Ireneo answer.
func killFixture(t *testing.T) (dir string, marker string) {
	t.Helper()
	dir = t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	marker = "JournalMarker4471"
	mustIngest(t, m,
		conv("gone-1", funes.HarnessClaude, "Plans "+marker, "", day0, "the plan is "+marker+" for the spring", "noted, "+marker),
		conv("keep-1", funes.HarnessCodex, "Tea", "", day0, "which tea is best", "green tea"),
	)
	m.Close()
	return dir, marker
}

// TestForgetKilledIsFinished: a forget killed at any step, from the
// journal on, is finished by the next open: the conversation is gone from
// the index and src/, its marker from every file, its tombstone in. A
// forget killed between its catalog commit and the shred kept its file in
// src/ for good.
func TestForgetKilledIsFinished(t *testing.T) {
	for _, step := range []string{"forget-journaled", "forget-quotes", "forget-committed", "forget-shredded", "forget-erased"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			dir, marker := killFixture(t)
			runKilled(t, dir, "gone-1", step)
			m, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			checkForgotten(t, m, "gone-1", marker)
			var left int
			m.db.QueryRow(`SELECT count(*) FROM erase_journal`).Scan(&left)
			if left != 0 {
				t.Errorf("%d journal rows left after the open finished the forget", left)
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, stagingDir)); len(ents) != 0 {
				t.Errorf(".staging holds %d entries after the open", len(ents))
			}
		})
	}
}

// checkForgotten fails unless id is forgotten in m and marker is in no
// file of its folder, the kept conversation still there.
func checkForgotten(t *testing.T, m *Memory, id, marker string) {
	t.Helper()
	ctx := context.Background()
	if _, err := findSession(ctx, m.db, id, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("%s is still stored: %v", id, err)
	}
	if dead, err := m.isTombstoned(ctx, funes.HarnessClaude, id); err != nil || !dead {
		t.Errorf("%s has no tombstone: %v", id, err)
	}
	m.checkpoint(ctx)
	if found := grepDir(t, m.Dir(), marker); len(found) > 0 {
		t.Errorf("%s is still in %v", marker, found)
	}
	if _, err := findSession(ctx, m.db, "keep-1", nil); err != nil {
		t.Errorf("the kept conversation: %v", err)
	}
	var ic string
	if err := m.db.QueryRow(`PRAGMA integrity_check`).Scan(&ic); err != nil || ic != "ok" {
		t.Errorf("integrity_check %q %v", ic, err)
	}
}

// TestForgottenFileLeftIsErased: a forgotten conversation's file left in
// src/ (a forget killed after its catalog commit, in a build before the
// journal) is erased by a forget of its id, which said "not found", and
// by reindex, which counted it and left it.
func TestForgottenFileLeftIsErased(t *testing.T) {
	for _, how := range []string{"forget", "reindex"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			dir, marker := killFixture(t)
			rel := srcPath(funes.HarnessClaude, "gone-1")
			data, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				t.Fatal(err)
			}
			m, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			ctx := context.Background()
			if _, err := m.Forget(ctx, []string{"gone-1"}, nil); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, rel), data, 0o600) // what the old build left
			switch how {
			case "forget":
				rep, err := m.Forget(ctx, []string{"gone-1"}, nil)
				if err != nil || rep.Files != 1 {
					t.Fatalf("forget of the id whose file is left: %+v %v", rep, err)
				}
			case "reindex":
				rep, err := m.Reindex(ctx, nil)
				if err != nil || rep.Sessions != 1 || rep.Files != 1 || rep.Erased != 1 {
					t.Fatalf("reindex: %+v %v", rep, err)
				}
			}
			checkForgotten(t, m, "gone-1", marker)
		})
	}
}

// TestQueueForget: a queued forget changes nothing until the next open,
// which carries it out; a queued id with its harness is kept out even if
// it is not stored yet.
func TestQueueForget(t *testing.T) {
	dir, marker := killFixture(t)
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := m.QueueForget(ctx, []string{"claude:gone-1", "codex:not-yet"}); err != nil {
		t.Fatal(err)
	}
	if _, err := findSession(ctx, m.db, "gone-1", nil); err != nil {
		t.Fatalf("queueing forgot it at once: %v", err)
	}
	m.Close()
	m, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	checkForgotten(t, m, "gone-1", marker)
	if r := mustIngest(t, m, conv("not-yet", funes.HarnessCodex, "Later", "", day0, "hello", "hi")); r.Forgotten != 1 {
		t.Errorf("a queued forget of a conversation not stored yet let it in: %+v", r)
	}
}

// TestForgetKilledWhileRewritingQuotes: a forget killed after it rewrote
// an agent's transcript without the forgotten quotes, before it overwrote
// the old file's bytes (kept by a hard link), leaves no copy of the quote
// once the next open has finished it.
func TestForgetKilledWhileRewritingQuotes(t *testing.T) {
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mustIngest(t, m,
		conv("gone-1", funes.HarnessChatGPT, "Valve "+goneToken, "", day0, goneSaid, "Noted: "+goneToken+"."),
		conv("kept-1", funes.HarnessChatGPT, "Pump", "", day0.AddDate(0, 0, 1), keptSaid),
		agentSession("agent-1", mcpRecallText(quoteHits())))
	m.Close()
	runKilled(t, dir, "gone-1", "forget-quotes-committed")
	links := 0
	filepath.WalkDir(filepath.Join(dir, stagingDir), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), oldLinkPrefix) {
			links++
		}
		return nil
	})
	if links == 0 {
		t.Fatal("the killed forget kept no old file in its folder: the kill came at another step")
	}
	m, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := findSession(context.Background(), m.db, "gone-1", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("gone-1 is still stored: %v", err)
	}
	m.checkpoint(context.Background())
	if found := forgottenIn(t, m, true); len(found) > 0 {
		t.Errorf("the forgotten text is still in %v", found)
	}
}

// TestForgetSameIDTwice: an id given twice is forgotten once ("sql: no
// rows in result set" before).
func TestForgetSameIDTwice(t *testing.T) {
	dir, marker := killFixture(t)
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	rep, err := m.Forget(context.Background(), []string{"gone-1", "claude:gone-1"}, nil)
	if err != nil || len(rep.Sessions) != 1 {
		t.Fatalf("forget of one id twice: %+v %v", rep, err)
	}
	checkForgotten(t, m, "gone-1", marker)
}

// TestDeadJobFolderWithoutRowsCleared: a job killed before its rows were
// in, or after they went, leaves only its folder; the next open clears it.
func TestDeadJobFolderWithoutRowsCleared(t *testing.T) {
	dir, _ := killFixture(t)
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	j, err := m.newEraseJob()
	if err != nil {
		t.Fatal(err)
	}
	closeLock(j.lock) // its process died
	m.Close()
	m, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := os.Stat(j.dir); !os.IsNotExist(err) {
		t.Fatalf("the dead job's folder is still there: %v", err)
	}
}
