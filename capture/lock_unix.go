//go:build unix

package capture

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	sysunix "golang.org/x/sys/unix"
)

// tryLock opens (creating) path and takes an exclusive flock on it without
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
// keeps it after the parent closes its copy (flock's lock belongs to the
// open file, which both share).
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	err = sysunix.Flock(int(f.Fd()), sysunix.LOCK_EX|sysunix.LOCK_NB)
	if errors.Is(err, sysunix.EWOULDBLOCK) {
		f.Close()
		return nil, nil
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Detach makes cmd a process of its own session, so it outlives the hook
// that starts it and the harness's kill of the hook's process group.
func Detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// CanDetach says whether Detach makes a process that outlives its parent's
// group here.
const CanDetach = true

// relock reports whether f holds its file's lock: flock again on the open
// file that holds it succeeds at once.
func relock(f *os.File) bool {
	return sysunix.Flock(int(f.Fd()), sysunix.LOCK_EX|sysunix.LOCK_NB) == nil
}
