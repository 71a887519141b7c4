package sync

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// The engine of a machine in a process of its own, killed with SIGKILL
// while Syncthing delivers files; then Syncthing killed with SIGKILL while
// the engine imports. Nothing is lost, nothing is read half written, and
// the next start catches up.

const childMemoryEnv = "IRENEO_SYNC_CHILD_MEMORY"

// TestSyncEngineChild is the child process: the sync engine of the memory
// the environment names, run until it is killed.
func TestSyncEngineChild(t *testing.T) {
	dir := os.Getenv(childMemoryEnv)
	if dir == "" {
		t.Skip("the child process of TestSyncthingKill9")
	}
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	Run(context.Background(), m, Options{})
}

// child is a running engine process.
type child struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startChild(t *testing.T, memDir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSyncEngineChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childMemoryEnv+"="+memDir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(c.done) }()
	t.Cleanup(c.kill)
	return c
}

func (c *child) kill() {
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.done
}

// bulky is n conversations of about 60 kB each, every one with a word of
// its own.
func bulky(prefix string, n int) []*funes.Session {
	filler := strings.Repeat("the quarterly ledger reconciliation ran long again because the export job timed out; ", 120)
	var out []*funes.Session
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%s-%04d", prefix, i)
		out = append(out, conv(id, funes.HarnessChatGPT, "Ledger "+id, "", fmt.Sprintf("about %sword%04d: %s", prefix, i, filler), "noted: "+filler, "and one more thing", "yes"))
	}
	return out
}

// sameAs says whether b holds exactly a's conversations, each as a holds it.
func sameAs(t *testing.T, a, b *machine) (bool, string) {
	return compareTo(t, a, b, true)
}

// halfRead fails the test if b holds a copy of a conversation that is not
// a's (a file read before it was whole).
func halfRead(t *testing.T, a, b *machine) {
	t.Helper()
	if ok, why := compareTo(t, a, b, false); !ok {
		t.Fatal(why)
	}
}

func compareTo(t *testing.T, a, b *machine, all bool) (bool, string) {
	t.Helper()
	sa, err := readStored(context.Background(), a.m)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := readStored(context.Background(), b.m)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, c := range sa.Conversations {
		want[c.SessionID] = c.Hash
	}
	got := 0
	for _, c := range sb.Conversations {
		w, ok := want[c.SessionID]
		if !ok {
			return false, b.name + " holds " + c.SessionID + ", which a does not"
		}
		if w != c.Hash {
			return false, fmt.Sprintf("%s holds another copy of %s (turns %d)", b.name, c.SessionID, c.Turns)
		}
		got++
	}
	if all && got != len(want) {
		return false, fmt.Sprintf("%s holds %d of %d", b.name, got, len(want))
	}
	return true, ""
}

func count(t *testing.T, mc *machine) int {
	t.Helper()
	snap, err := readStored(context.Background(), mc.m)
	if err != nil {
		t.Fatal(err)
	}
	return len(snap.Conversations)
}

func TestSyncthingKill9(t *testing.T) {
	t.Parallel()
	a := newHost(t, "a")
	// B: its Syncthing paired with A's, slowed down so that delivery takes
	// several seconds; its engine a process of its own.
	bst := newDaemon(t, "b")
	bst.rest(http.MethodPatch, "/rest/config/options", map[string]any{"maxRecvKbps": 400, "limitBandwidthInLan": true}, nil)
	pair(a.st, bst)
	b := &host{st: bst, machine: newMachine(t, "b", t.TempDir()+"/folder-b")}
	b.share()
	a.share()
	// One file after another, not all finishing together at the end.
	bst.rest(http.MethodPatch, "/rest/config/folders/"+SyncthingFolderID, map[string]any{"pullerMaxPendingKiB": 128, "copiers": 1, "order": "alphabetic"}, nil)

	const n = 160
	a.ingest(bulky("first", n)...)
	eng := startChild(t, b.dir)
	// Killed twice while files arrive: a quarter in, and two thirds in.
	arrived := func() int {
		return len(grepFiles(t, "noted: the quarterly", b.folder))
	}
	eventually(t, "files should be arriving", func() (bool, string) {
		files := arrived()
		return files >= n/4 && files < n, fmt.Sprintf("%d files arrived", files)
	})
	eng.kill()
	halfRead(t, a.machine, b.machine)
	eng = startChild(t, b.dir)
	eventually(t, "more should arrive", func() (bool, string) {
		files := arrived()
		return files >= 2*n/3 && files < n, fmt.Sprintf("%d files arrived", files)
	})
	eng.kill()
	halfRead(t, a.machine, b.machine)
	time.Sleep(time.Second)
	eng = startChild(t, b.dir)
	eventually(t, "b should catch up after the kills", func() (bool, string) { return sameAs(t, a.machine, b.machine) })

	// Syncthing killed while the engine imports.
	a.ingest(bulky("second", n)...)
	eventually(t, "b's engine should import some of the second lot", func() (bool, string) {
		got := count(t, b.machine)
		return got > n && got < 2*n, fmt.Sprintf("b holds %d of %d", got, 2*n)
	})
	bst.kill()
	time.Sleep(3 * time.Second) // the engine goes on with what arrived, and the temporary files Syncthing left
	halfRead(t, a.machine, b.machine)
	bst.start()
	eventually(t, "b should catch up after Syncthing's kill", func() (bool, string) { return sameAs(t, a.machine, b.machine) })
	eng.kill()
	st, err := ReadStatus(b.dir)
	if err != nil || st.Waiting.Unreadable != 0 || st.LastError != "" {
		t.Fatalf("b's status: %v %+v", err, st)
	}
	if !b.finds("secondword0159", "second-0159") {
		t.Fatal("b does not find the last conversation")
	}
}
