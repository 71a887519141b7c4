// Package filelock takes exclusive whole-file locks that the operating
// system drops when the process ends, however it ends (flock on Unix,
// LockFileEx on Windows). A lock that can be taken therefore marks the
// leftovers of a dead process, and one that cannot marks a live one: the
// import staging, erase journal, restore, hook queue, sync engine and the
// tray app's single instance all rest on that. It is a leaf.
//
// The lock belongs to the open file: two opens in one process exclude each
// other, and a child that inherits the file holds the lock with it.
package filelock

import (
	"errors"
	"fmt"
	"os"
)

// ErrUnsupported is returned where this platform has no such locks.
var ErrUnsupported = errors.New("no file locks on this platform")

// TryLock opens path (creating it, mode 0600) and takes an exclusive lock
// on it without waiting. It returns the open file, which holds the lock
// until closed, or nil and no error when another open file holds it.
func TryLock(path string) (*os.File, error) {
	return take(path, false)
}

// Lock is TryLock that waits for the lock instead of giving up.
func Lock(path string) (*os.File, error) {
	return take(path, true)
}

// Held reports whether f, an open file a parent handed down, holds its
// file's lock: on Unix, locking again the open file that holds the lock
// succeeds at once, and fails when another open file holds it. Elsewhere
// it reports false: nothing hands a locked file to a child there.
func Held(f *os.File) bool {
	if f == nil {
		return false
	}
	return held(f)
}

func take(path string, wait bool) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	ok, err := lock(f, wait)
	if err != nil {
		f.Close()
		if errors.Is(err, ErrUnsupported) {
			return nil, err
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		f.Close()
		return nil, nil
	}
	return f, nil
}
