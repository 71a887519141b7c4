//go:build unix

package filelock

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

const childEnv = "FILELOCK_TEST_CHILD"

// TestChildHoldsLock is the child of the tests below: it checks that the
// file it inherited as fd 3 holds the lock, says so, and waits to be killed.
func TestChildHoldsLock(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("the child of TestKilledHolderDropsTheLock")
	}
	if !Held(os.NewFile(3, "lock")) {
		os.Stdout.WriteString("not held\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("held\n")
	time.Sleep(time.Minute)
}

// A lock handed to a child stays with it after the parent lets go, and the
// system drops it when the child is killed: what capture's workers and an
// import's staging rest on.
func TestKilledHolderDropsTheLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	f, err := TryLock(p)
	if err != nil || f == nil {
		t.Fatalf("TryLock = %v, %v", f, err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestChildHoldsLock$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.ExtraFiles = []*os.File{f}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf[:4]) != "held" {
		t.Fatalf("child said %q, %v; want held", buf, err)
	}
	f.Close() // the child's copy still holds it
	if g, err := TryLock(p); err != nil || g != nil {
		t.Fatalf("TryLock while the child holds it = %v, %v; want nil, nil", g, err)
	}
	if Held(mustOpen(t, p)) {
		t.Fatal("Held is true for an open file that does not hold the lock")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	g, err := TryLock(p)
	if err != nil || g == nil {
		t.Fatalf("TryLock after the holder was killed = %v, %v; want the file", g, err)
	}
	g.Close()
}

func mustOpen(t *testing.T, p string) *os.File {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
