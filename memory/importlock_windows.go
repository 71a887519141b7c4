//go:build windows

package memory

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockExclusive takes a LockFileEx lock on f's first byte without waiting.
func lockExclusive(f *os.File) (bool, error) {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}
