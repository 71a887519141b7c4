package gui

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/ireneo-app/ireneo/filelock"
)

// One instance per memory: the first start takes a lock file and listens on
// a unix socket beside it, in $XDG_RUNTIME_DIR, both named for the memory
// folder; a second start finds the lock taken, asks the first (through the
// socket) to raise its window, and exits. Two memories can run side by side.

// instanceKey names the lock and socket of the memory in dir.
func instanceKey(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	h := sha256.Sum256([]byte(dir))
	return "ireneo-" + hex.EncodeToString(h[:6])
}

// runtimeDir is where the lock and socket go: $XDG_RUNTIME_DIR (private to
// the user), else a folder of the user's own under the temp dir.
func runtimeDir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return d, nil
	}
	d := filepath.Join(os.TempDir(), fmt.Sprintf("ireneo-%d", os.Getuid()))
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", err
	}
	return d, nil
}

// showRequest is the one message a second start sends.
const showRequest = "show\n"

// instance is this process's claim to be the one Ireneo of a memory.
type instance struct {
	release func()
	ln      net.Listener
}

// claimInstance makes this process the memory's instance, or, when another
// process already is, asks that one to show its window and returns
// running=true. Where no lock or socket can be made it returns a nil
// instance and lets the app start anyway: a second window beats none.
func claimInstance(memDir string) (inst *instance, running bool) {
	dir, err := runtimeDir()
	if err != nil {
		return nil, false
	}
	base := filepath.Join(dir, instanceKey(memDir))
	sock := base + ".sock"
	lock, err := filelock.TryLock(base + ".lock")
	if err != nil {
		return nil, false
	}
	if lock == nil {
		// Another start holds it; it may still be opening its socket.
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if askToShow(sock) == nil {
				return nil, true
			}
			time.Sleep(100 * time.Millisecond)
		}
		return nil, false
	}
	os.Remove(sock) // left by an instance that died; the lock says it is gone
	ln, err := net.Listen("unix", sock)
	if err != nil {
		lock.Close()
		return nil, false
	}
	os.Chmod(sock, 0o600)
	return &instance{release: func() { lock.Close() }, ln: ln}, false
}

// askToShow asks the instance listening on sock to raise its window.
func askToShow(sock string) error {
	c, err := net.DialTimeout("unix", sock, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte(showRequest)); err != nil {
		return err
	}
	// The answer says the window is up (or about to be).
	_, err = bufio.NewReader(c).ReadString('\n')
	return err
}

// serve calls show for each request until the listener closes.
func (in *instance) serve(show func()) {
	for {
		c, err := in.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			c.SetDeadline(time.Now().Add(2 * time.Second))
			if line, err := bufio.NewReader(c).ReadString('\n'); err == nil && line == showRequest {
				show()
				c.Write([]byte("ok\n"))
			}
		}()
	}
}

func (in *instance) close() {
	if in == nil {
		return
	}
	in.ln.Close()
	in.release()
}
