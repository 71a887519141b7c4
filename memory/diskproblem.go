package memory

import (
	"path/filepath"

	"github.com/ireneo-app/ireneo/diskproblem"
)

// explainDisk returns err explained when it is a failure to write or open
// the memory's files and the cause can be found on disk (package
// diskproblem); otherwise err as it is.
func explainDisk(dir string, err error) error {
	db := filepath.Join(dir, DBName)
	return diskproblem.Explain(dir, []string{db, db + "-wal", db + "-shm"}, err)
}
