//go:build unix

package memory

import (
	"errors"
	"os"

	sysunix "golang.org/x/sys/unix"
)

// lockExclusive takes a flock on f without waiting. flock locks belong to
// the open file, so two opens in one process exclude each other too.
func lockExclusive(f *os.File) (bool, error) {
	err := sysunix.Flock(int(f.Fd()), sysunix.LOCK_EX|sysunix.LOCK_NB)
	if errors.Is(err, sysunix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
