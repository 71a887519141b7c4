//go:build unix

package gui

import (
	"errors"
	"os"

	sysunix "golang.org/x/sys/unix"
)

// lockFile takes an exclusive flock on path without waiting; the system
// drops it when the process ends, however it ends. A nil release means
// another process holds it.
func lockFile(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := sysunix.Flock(int(f.Fd()), sysunix.LOCK_EX|sysunix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, sysunix.EWOULDBLOCK) {
			return nil, nil
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
