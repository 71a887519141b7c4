package memory

import (
	"errors"
	"os"

	"github.com/ireneo-app/ireneo/filelock"
)

// An import holds an exclusive lock on a file in its staging folder for as
// long as it runs. The operating system drops the lock when the process
// ends, however it ends, so a lock that can be taken marks the leftovers of
// a dead import, and one that cannot marks a live import to leave alone.

// lockName is the lock file inside a batch's staging folder.
const lockName = "lock"

// tryLock opens (creating) path and takes an exclusive lock on it without
// waiting. It returns the open file, which holds the lock until closed, or
// nil when another open file holds it. Where there are no file locks every
// batch looks live, so leftovers wait for a platform that can tell.
func tryLock(path string) (*os.File, error) {
	f, err := filelock.TryLock(path)
	if errors.Is(err, filelock.ErrUnsupported) {
		return nil, nil
	}
	return f, err
}
