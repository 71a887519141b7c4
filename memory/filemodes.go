package memory

import (
	"os"
	"path/filepath"
)

// secureDir makes dir, src/ and .staging/ folders only their owner can
// enter, and creates the database file 0600 before SQLite opens it: SQLite
// gives the WAL and SHM files the database file's mode, so they start 0600
// too, whatever the umask and whoever opens the memory first.
func secureDir(dir string) error {
	for _, d := range []string{dir, filepath.Join(dir, SrcDir), filepath.Join(dir, stagingDir)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		os.Chmod(d, 0o700) // best effort: a folder someone else owns stays as it is
	}
	db := filepath.Join(dir, DBName)
	f, err := os.OpenFile(db, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	// A memory made by an older version, or by hand, may hold looser files.
	for _, p := range []string{db, db + "-wal", db + "-shm", db + "-journal"} {
		os.Chmod(p, 0o600) // best effort, as above
	}
	return nil
}
