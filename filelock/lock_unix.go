//go:build unix

package filelock

import (
	"errors"
	"os"

	sysunix "golang.org/x/sys/unix"
)

func lock(f *os.File, wait bool) (bool, error) {
	how := sysunix.LOCK_EX
	if !wait {
		how |= sysunix.LOCK_NB
	}
	for {
		err := sysunix.Flock(int(f.Fd()), how)
		if errors.Is(err, sysunix.EINTR) {
			continue // a signal during a wait is not a failure
		}
		if errors.Is(err, sysunix.EWOULDBLOCK) {
			return false, nil
		}
		return err == nil, err
	}
}

func held(f *os.File) bool {
	ok, err := lock(f, false)
	return ok && err == nil
}
