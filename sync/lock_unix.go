//go:build unix

package sync

import (
	"errors"
	"os"

	sysunix "golang.org/x/sys/unix"
)

// lockFile takes an exclusive lock on path (created if needed), waiting
// for it; the operating system drops it if the process dies.
func lockFile(path string) (func(), error) {
	f, err := openLock(path)
	if err != nil {
		return nil, err
	}
	if err := sysunix.Flock(int(f.Fd()), sysunix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// tryLockFile takes the lock without waiting; ok is false when another
// open file holds it.
func tryLockFile(path string) (unlock func(), ok bool, err error) {
	f, err := openLock(path)
	if err != nil {
		return nil, false, err
	}
	err = sysunix.Flock(int(f.Fd()), sysunix.LOCK_EX|sysunix.LOCK_NB)
	if errors.Is(err, sysunix.EWOULDBLOCK) {
		f.Close()
		return nil, false, nil
	}
	if err != nil {
		f.Close()
		return nil, false, err
	}
	return func() { f.Close() }, true, nil
}

func openLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
