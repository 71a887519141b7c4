//go:build unix

package capture

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/ireneo-app/ireneo/filelock"
)

// tryLock opens (creating) path and takes an exclusive lock on it without
// waiting: the open file holds the lock until closed, and the system drops
// it when the process dies. A nil release means another process holds it.
func tryLock(path string) (release func(), err error) {
	f, err := lockFile(path)
	if f == nil || err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

// lockFile is tryLock's open file: nil when another process holds the
// lock. A child started with it among its files holds the lock too, and
// keeps it after the parent closes its copy (the lock belongs to the open
// file, which both share).
func lockFile(path string) (*os.File, error) { return filelock.TryLock(path) }

// Detach makes cmd a process of its own session, so it outlives the hook
// that starts it and the harness's kill of the hook's process group.
func Detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// CanDetach says whether Detach makes a process that outlives its parent's
// group here.
const CanDetach = true

// relock reports whether f, handed down by a parent, holds its file's lock.
func relock(f *os.File) bool { return filelock.Held(f) }
