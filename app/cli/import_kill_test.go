//go:build unix

package cli

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// The kill tests run `ireneo import` in a child process (this test binary,
// re-executed into TestImportChildProcess), freeze it with SIGSTOP at a
// point of the import, then SIGINT or SIGKILL it, forget a conversation it
// was importing, and grep every file under the memory folder for that
// conversation's marker.

const (
	killMarker = "KillMarkerQ7Z"
	killID     = "kill-0000"
	childEnv   = "IRENEO_IMPORT_CHILD_ARGS"
)

// TestImportChildProcess is the child's CLI; run directly it does nothing.
func TestImportChildProcess(t *testing.T) {
	args := os.Getenv(childEnv)
	if args == "" {
		t.Skip("runs only as the child of the import kill tests")
	}
	os.Exit(Run(context.Background(), strings.Split(args, "\x1f"), strings.NewReader(""), os.Stdout, os.Stderr))
}

// killSession is conversation i of the test export; the first holds the
// marker in its last turn (turns cut it to fewer turns).
func killSession(i, turns int) *funes.Session {
	day := time.Date(2026, 10, 8, 9, 0, 0, 0, time.UTC)
	s := &funes.Session{ID: fmt.Sprintf("kill-%04d", i), Harness: "funes", Title: fmt.Sprintf("Talk %d", i)}
	for j := 0; j < turns; j++ {
		text := fmt.Sprintf("turn %d of talk %d about pumps, seals and work order MT-%d. %s", j, i, 4000+i, strings.Repeat("filler words here ", 8))
		if i == 0 && j == 2 {
			text = "the secret is " + killMarker
		}
		role := funes.RoleUser
		if j%2 == 1 {
			role = funes.RoleAssistant
		}
		s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("%s-t%d", s.ID, j), Seq: j, TS: day.Add(time.Duration(i)*time.Hour + time.Duration(j)*time.Minute),
			Role: role, Blocks: []funes.Block{{Type: funes.BlockText, Text: text}}})
	}
	return s
}

// killInput writes a funes jsonl export of n conversations.
func killInput(t *testing.T, n int) string {
	t.Helper()
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		data, err := funes.MarshalSession(killSession(i, 3))
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(data)
	}
	p := filepath.Join(t.TempDir(), "export.funes.jsonl")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// child is an `ireneo import` running in another process.
type child struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	done chan struct{} // closed when it has ended and err is set
	err  error
}

// Bounds on waits for the child, far above what its steps take on a loaded
// machine: a stuck child fails the test with its goroutine stacks instead
// of hanging it until go test's own timeout.
const (
	childRunWait  = 3 * time.Minute  // an import of the test export, or its end after a signal
	childStopWait = 30 * time.Second // SIGSTOP taking hold
)

func startImport(t *testing.T, dir, input string) *child {
	t.Helper()
	return startCLI(t, "--memory", dir, "import", "--no-scrub", input)
}

// startCLI runs the CLI with args in a child process.
func startCLI(t *testing.T, args ...string) *child {
	t.Helper()
	c := &child{done: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], "-test.run=^TestImportChildProcess$")
	c.cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.cmd.Process.Kill() // a stopped process dies of SIGKILL too
		select {
		case <-c.done:
		case <-time.After(childRunWait):
			t.Errorf("the child %d has not ended %v after SIGKILL", c.cmd.Process.Pid, childRunWait)
			return
		}
		if t.Failed() {
			t.Logf("child output:\n%s", c.out.String())
		}
	})
	return c
}

func (c *child) signal(sig syscall.Signal) { c.cmd.Process.Signal(sig) }

// wait waits for the child to end, at most childRunWait, and returns how
// it ended; what says what it was doing, for the failure.
func (c *child) wait(t *testing.T, what string) error {
	t.Helper()
	select {
	case <-c.done:
		return c.err
	case <-time.After(childRunWait):
		c.stuck(t, "has not ended %v %s", childRunWait, what)
		return nil
	}
}

// stuck fails the test over a child that does not move on: it wakes the
// child and asks for its goroutine stacks (SIGQUIT), which the cleanup
// prints with the rest of its output.
func (c *child) stuck(t *testing.T, format string, args ...any) {
	t.Helper()
	c.signal(syscall.SIGCONT)
	c.signal(syscall.SIGQUIT)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
	}
	t.Fatalf("the child import "+format+" (its stacks are in its output below)", args...)
}

// waitStopped waits until every thread of the child has stopped, since
// SIGSTOP takes hold asynchronously. It returns early if the child ended.
// Where there is no /proc it waits a moment instead.
func (c *child) waitStopped(t *testing.T) {
	t.Helper()
	tasks := fmt.Sprintf("/proc/%d/task", c.cmd.Process.Pid)
	if _, err := os.Stat(tasks); err != nil {
		time.Sleep(100 * time.Millisecond)
		return
	}
	deadline := time.Now().Add(childStopWait)
	for !allStopped(tasks) {
		select {
		case <-c.done:
			return
		default:
		}
		if time.Now().After(deadline) {
			c.stuck(t, "has not stopped %v after SIGSTOP", childStopWait)
		}
		time.Sleep(time.Millisecond)
	}
}

// allStopped says whether every thread under a /proc/PID/task folder is
// stopped (state T or t).
func allStopped(tasks string) bool {
	ids, err := os.ReadDir(tasks)
	if err != nil || len(ids) == 0 {
		return false
	}
	for _, id := range ids {
		stat, err := os.ReadFile(filepath.Join(tasks, id.Name(), "stat"))
		if err != nil {
			return false
		}
		// The state follows the command name, which is in parentheses
		// and may hold anything.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || i+2 >= len(stat) || (stat[i+2] != 'T' && stat[i+2] != 't') {
			return false
		}
	}
	return true
}

// startFrozen starts an import into a fresh memory (prepared by prepare,
// if given) and freezes it when cond holds. An import that ends before
// that is tried again with an export twice as large, so the point lasts
// longer; one never seen fails the test (a skip would hide that the case
// went untested). It returns the memory, the child and the export used.
func startFrozen(t *testing.T, inputs *killInputs, prepare func(dir string), cond func(string, importState) bool) (string, *child, string) {
	t.Helper()
	const attempts = 6
	for attempt := range attempts {
		input := inputs.get(t, attempt)
		dir := t.TempDir()
		if prepare != nil {
			prepare(dir)
		}
		c := startImport(t, dir, input)
		if freezeWhen(t, c, dir, cond) {
			t.Logf("frozen at %+v", stateOf(dir))
			return dir, c, input
		}
		c.wait(t, "on its own")
		t.Logf("attempt %d: the import ended before the point was seen (state %+v)", attempt, stateOf(dir))
	}
	t.Fatalf("the point was never seen in %d imports of exports up to %d conversations", attempts, inputs.size(attempts-1))
	return "", nil, ""
}

// killInputs are the test exports, one per size, made up front by the
// test that shares them among its subtests.
type killInputs struct {
	base  int
	paths map[int]string
}

// killSizes is how many times the export doubles for a retry.
const killSizes = 4

func newKillInputs(t *testing.T, base int) *killInputs {
	k := &killInputs{base: base, paths: map[int]string{}}
	for i := range killSizes {
		k.paths[k.size(i)] = killInput(t, k.size(i))
	}
	return k
}

func (k *killInputs) size(attempt int) int { return k.base << min(attempt, killSizes-1) }

func (k *killInputs) get(t *testing.T, attempt int) string { return k.paths[k.size(attempt)] }

// importState is what the child has done so far, seen from its files.
type importState struct {
	staged   int64 // bytes in staging files
	incoming int   // in-* files waiting to be renamed
	placed   int   // conversation files in src/
}

func stateOf(dir string) importState {
	var st importState
	batches, _ := filepath.Glob(filepath.Join(dir, ".staging", "batch-*"))
	for _, b := range batches {
		if fi, err := os.Stat(filepath.Join(b, "staged.jsonl")); err == nil {
			st.staged += fi.Size()
		}
		in, _ := filepath.Glob(filepath.Join(b, "in-*"))
		st.incoming += len(in)
	}
	placed, _ := filepath.Glob(filepath.Join(dir, "src", "*", "*.funes.jsonl"))
	st.placed = len(placed)
	return st
}

// freezeWhen polls until cond holds and stops the child there. It reports
// false, with the child running, if the child ended first or went past the
// point before SIGSTOP took hold and the point did not come again.
func freezeWhen(t *testing.T, c *child, dir string, cond func(string, importState) bool) bool {
	t.Helper()
	deadline := time.Now().Add(childRunWait)
	for {
		select {
		case <-c.done:
			return false
		default:
		}
		if time.Now().After(deadline) {
			c.stuck(t, "neither ended nor reached the point in %v (state %+v)", childRunWait, stateOf(dir))
		}
		if !cond(dir, stateOf(dir)) {
			continue
		}
		c.signal(syscall.SIGSTOP)
		c.waitStopped(t)
		if cond(dir, stateOf(dir)) {
			return true // frozen: what it had done is what it has done
		}
		// It moved on before it stopped: let it go and look again.
		t.Logf("went past the point before SIGSTOP took hold (state %+v): letting it go on", stateOf(dir))
		c.signal(syscall.SIGCONT)
	}
}

// storedCount is how many conversations the child's commits have put in
// the index, read without taking any lock.
func storedCount(dir string) int {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, memory.DBName)+"?mode=ro")
	if err != nil {
		return 0
	}
	defer db.Close()
	n := 0
	db.QueryRow(`SELECT count(*) FROM sessions`).Scan(&n)
	return n
}

// grepMemory lists every file under dir that holds marker.
func grepMemory(t *testing.T, dir, marker string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		// Lowercased: the index keeps its terms so (the marker is one token).
		if data, err := os.ReadFile(p); err == nil && bytes.Contains(bytes.ToLower(data), bytes.ToLower([]byte(marker))) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

func leftovers(dir string) []string {
	var out []string
	batches, _ := filepath.Glob(filepath.Join(dir, ".staging", "*"))
	out = append(out, batches...)
	filepath.WalkDir(filepath.Join(dir, "src"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".incoming") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestImportKilledThenForgotten(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	inputs := newKillInputs(t, 1000)
	points := []struct {
		name   string
		stored bool // the conversation is in the index at that point
		cond   func(dir string, s importState) bool
	}{
		{"while reading", false, func(_ string, s importState) bool { return s.staged > 0 && s.placed == 0 }},
		{"between commit and rename", true, func(dir string, s importState) bool {
			return s.incoming > 0 && s.placed == 0 && storedCount(dir) > 0
		}},
		{"after a part is stored", true, func(_ string, s importState) bool { return s.placed > 0 }},
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		for _, pt := range points {
			t.Run(fmt.Sprintf("%v %s", sig, pt.name), func(t *testing.T) {
				dir, c, input := startFrozen(t, inputs, nil, pt.cond)
				links := watchStaged(t, dir)
				c.signal(sig)
				c.signal(syscall.SIGCONT)
				err := c.wait(t, fmt.Sprintf("after %v", sig))
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatalf("the child was not stopped: %v", err)
				}
				if sig == syscall.SIGINT {
					if ee.ExitCode() != ExitInterrupted {
						t.Fatalf("exit code %d after SIGINT, want %d", ee.ExitCode(), ExitInterrupted)
					}
					if left := leftovers(dir); len(left) > 0 {
						t.Fatalf("SIGINT left %v", left)
					}
				}
				code, out, errs := run(t, "--memory", dir, "forget", "--yes", "funes:"+killID)
				if code != 0 && !strings.Contains(errs, "not found") {
					t.Fatalf("forget: %d %s %s", code, out, errs)
				}
				if found := grepMemory(t, dir, killMarker); len(found) > 0 {
					t.Fatalf("after forget (%q) the marker is in %v", strings.TrimSpace(out+errs), found)
				}
				if left := leftovers(dir); len(left) > 0 {
					t.Fatalf("left after the next open: %v", left)
				}
				// Its staging file was overwritten before it went, by the
				// import Ctrl-C stopped or by the next open after a kill.
				checkZeroedLinks(t, links)
				// The memory is whole: an import finishes the job, and a
				// forgotten conversation stays out. (Killed before its
				// commit, the conversation was never stored: nothing to
				// forget, and the import brings it in.)
				forgot := code == 0
				if code, out, errs := run(t, "--memory", dir, "import", "--no-scrub", input); code != 0 {
					t.Fatalf("re-import: %d %s %s", code, out, errs)
				}
				if found := grepMemory(t, dir, killMarker); forgot && len(found) > 0 {
					t.Fatalf("re-import brought the marker back in %v", found)
				}
				if !forgot && len(grepMemory(t, dir, strings.ToLower(killMarker))) == 0 {
					// Positive control: the grep sees the re-imported
					// conversation's marker, its index term included.
					t.Fatal("the re-imported marker is in no file")
				}
				if !forgot && !pt.stored {
					t.Logf("not stored when killed: nothing to forget")
				} else if !forgot {
					t.Fatalf("stored when killed, yet forget failed: %s", errs)
				}
			})
		}
	}
}

// A forget from another process while an import holding the conversation
// runs (frozen while reading, or between a commit and its renames): the
// conversation stays forgotten through that import and the next.
func TestForgetDuringImportFromAnotherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	inputs := newKillInputs(t, 1000)
	ctx := context.Background()
	for _, pt := range []struct {
		name string
		cond func(dir string, s importState) bool
	}{
		{"while reading", func(_ string, s importState) bool { return s.staged > 0 && s.incoming == 0 && s.placed <= 1 }},
		{"between commit and rename", func(dir string, s importState) bool {
			return s.incoming > 0 && s.placed <= 1 && storedCount(dir) > 1
		}},
	} {
		t.Run(pt.name, func(t *testing.T) {
			dir, c, input := startFrozen(t, inputs, func(dir string) {
				m, err := memory.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				if _, err := m.Ingest(ctx, []*funes.Session{killSession(0, 2)}, memory.IngestOptions{}); err != nil {
					t.Fatal(err)
				}
			}, pt.cond)
			// Frozen inside a read, the child holds the WAL, and forget's
			// final checkpoint waits for it: let it go on after a while.
			type result struct {
				code      int
				out, errs string
			}
			done := make(chan result, 1)
			go func() {
				code, out, errs := run(t, "--memory", dir, "forget", "--yes", killID)
				done <- result{code, out, errs}
			}()
			var r result
			select {
			case r = <-done:
				c.signal(syscall.SIGCONT)
			case <-time.After(2 * time.Second):
				c.signal(syscall.SIGCONT)
				select {
				case r = <-done:
				case <-time.After(childRunWait):
					c.stuck(t, "was let go, and forget still has not returned %v later", childRunWait)
				}
			}
			if r.code != 0 {
				t.Fatalf("forget: %d %s %s", r.code, r.out, r.errs)
			}
			if found := grepMemory(t, dir, killMarker); len(found) > 0 {
				t.Fatalf("during the import, after forget, the marker is in %v", found)
			}
			if err := c.wait(t, "after the forget"); err != nil {
				t.Fatalf("import: %v", err)
			}
			for round := 0; round < 2; round++ {
				m, err := memory.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				_, lerr := m.LoadSession(ctx, killID)
				st, _ := m.Status(ctx)
				m.Close()
				if !errors.Is(lerr, memory.ErrNotFound) || st.Forgotten != 1 {
					t.Fatalf("round %d: the forgotten conversation is back (%v), tombstones %d", round, lerr, st.Forgotten)
				}
				if found := grepMemory(t, dir, killMarker); len(found) > 0 {
					t.Fatalf("round %d: marker in %v", round, found)
				}
				if left := leftovers(dir); len(left) > 0 {
					t.Fatalf("round %d: left %v", round, left)
				}
				code, out, errs := run(t, "--memory", dir, "import", "--no-scrub", input)
				if code != 0 || !strings.Contains(out, "1 skipped as forgotten") {
					t.Fatalf("next import: %d %s %s", code, out, errs)
				}
			}
		})
	}
}
