package memory

import "os"

// An import holds an exclusive lock on a file in its staging folder for as
// long as it runs. The operating system drops the lock when the process
// ends, however it ends, so a lock that can be taken marks the leftovers of
// a dead import, and one that cannot marks a live import to leave alone.

// lockName is the lock file inside a batch's staging folder.
const lockName = "lock"

// tryLock opens (creating) path and takes an exclusive lock on it without
// waiting. It returns the open file, which holds the lock until closed, or
// nil when another open file holds it.
func tryLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	ok, err := lockExclusive(f)
	if err != nil || !ok {
		f.Close()
		return nil, err
	}
	return f, nil
}
