package sync

import "github.com/ireneo-app/ireneo/filelock"

// lockFile takes an exclusive lock on path (created if needed), waiting
// for it; the operating system drops it if the process dies.
func lockFile(path string) (unlock func(), err error) {
	f, err := filelock.Lock(path)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

// tryLockFile takes the lock without waiting; ok is false when another
// open file holds it.
func tryLockFile(path string) (unlock func(), ok bool, err error) {
	f, err := filelock.TryLock(path)
	if f == nil || err != nil {
		return nil, false, err
	}
	return func() { f.Close() }, true, nil
}
