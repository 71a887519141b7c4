//go:build !unix

package capture

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"time"
)

// tryLock takes path by creating it; without flock a crashed import's lock
// stays until removed, so one older than ImportTimeout is taken over.
func tryLock(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		if st, serr := os.Stat(path); serr == nil && time.Since(st.ModTime()) > ImportTimeout {
			os.Remove(path)
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f.Close()
	return func() { os.Remove(path) }, nil
}

// lockFile is not needed here: nothing is handed to a detached child.
func lockFile(string) (*os.File, error) { return nil, errors.ErrUnsupported }

// Detach is a no-op here; the hook runs its import in the foreground.
func Detach(*exec.Cmd) {}

// CanDetach says whether Detach makes a process that outlives its parent.
const CanDetach = false

func relock(*os.File) bool { return false }
