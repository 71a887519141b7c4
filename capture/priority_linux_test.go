package capture

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Background renices every thread of the process, those it starts after
// too; it runs in a child, so the tests' own process keeps its priority.
func TestBackgroundRenicesEveryThread(t *testing.T) {
	if os.Getenv("IRENEO_TEST_BACKGROUND") == "1" {
		backgroundChild(t)
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBackgroundRenicesEveryThread$", "-test.v")
	cmd.Env = append(os.Environ(), "IRENEO_TEST_BACKGROUND=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "every thread at nice") {
		t.Fatalf("the child: %v\n%s", err, out)
	}
}

func backgroundChild(t *testing.T) {
	if err := Background(); err != nil {
		t.Fatal(err)
	}
	// Threads started after: each goroutine locked to a thread of its own
	// while the others are held.
	var wg sync.WaitGroup
	hold := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			runtime.LockOSThread()
			wg.Done()
			<-hold
		}()
	}
	wg.Wait()
	defer close(hold)
	if err := Background(); err != nil { // already as low: nothing to do
		t.Fatal(err)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 5 {
		t.Fatalf("only %d threads", len(tasks))
	}
	for _, e := range tasks {
		stat, err := os.ReadFile("/proc/self/task/" + e.Name() + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		// Field 19 is the niceness; the name before it, in parentheses, may
		// hold spaces.
		fs := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if nice, _ := strconv.Atoi(fs[16]); nice != BackgroundNice {
			t.Fatalf("thread %s at nice %d, want %d", e.Name(), nice, BackgroundNice)
		}
	}
	t.Logf("every thread at nice %d (%d threads)", BackgroundNice, len(tasks))
}
