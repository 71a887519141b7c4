package memory

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	shredpkg "github.com/ireneo-app/ireneo/shred"
)

// A restore (package backup's) extracts an archive's conversation files
// into a folder of the memory's staging folder before it moves them into
// src/, and lists where they go before it moves the first. Memory makes no
// such folder; it knows one by the names below, and clears a dead one
// wherever it clears leftovers (Open, an import, a forget, ClearStaging),
// so that a restore killed at any step leaves the memory as it was:
//
//   - the folder, StagingDir/RestorePrefix*, is born as StagingDir/
//     NewStagingPrefix* with its lock file (StagingLock) taken inside, and
//     then renamed, as every staging folder of the memory is: a restore
//     folder whose lock can be taken is a dead restore's, one whose lock
//     cannot is a live restore's, left alone;
//   - its place list (PlaceList), written and synced before the first file
//     moves, names where its files go in src/ (paths relative to the
//     memory directory, one a line). Of a dead restore's, each file the
//     list names that no stored conversation's row names is overwritten
//     and removed (unplace), and then every file of the folder, so the
//     memory is left empty for the restore to be done again.

// The names a restore's staging folder is known by.
const (
	StagingDir       = stagingDir     // the memory directory's staging folder
	NewStagingPrefix = newBatchPrefix // a staging folder being born
	RestorePrefix    = "restore-"     // a restore's staging folder
	StagingLock      = lockName       // the lock file inside a staging folder
	PlaceList        = "placing"      // a restore's list of where its files go
)

// ClearStaging clears the staging folders that dead imports, erase jobs
// and restores left, and leaves live ones alone: what a restore runs
// before it makes its own folder.
func (m *Memory) ClearStaging(ctx context.Context) error { return m.recoverStaging(ctx) }

// legacyRestoreQuiet is how long a restore folder without a lock file
// (written by builds before the lock) must have been left untouched before
// it counts as dead: such a restore writes a file every few milliseconds
// while it extracts and has moved them all out by the time it indexes.
const legacyRestoreQuiet = 10 * time.Minute

// recoverRestore clears a restore folder if its restore is dead, and
// undoes what it had moved into src/ (its place list).
func (m *Memory) recoverRestore(ctx context.Context, dir string) error {
	if _, err := os.Lstat(filepath.Join(dir, lockName)); os.IsNotExist(err) {
		if _, err := os.Lstat(dir); os.IsNotExist(err) {
			return nil // gone meanwhile
		}
		if changedWithin(dir, legacyRestoreQuiet) {
			return nil // perhaps an older build's restore, still running
		}
		return shredpkg.Tree(dir)
	}
	lock, err := lockDead(dir)
	if err != nil || lock == nil {
		return err
	}
	defer lock.Close()
	return errors.Join(m.unplace(ctx, filepath.Join(dir, PlaceList)), shredpkg.Folder(dir, lockName))
}

// placeable says whether rel, relative to the memory directory, is a file
// under src/: what a place list may name.
func placeable(rel string) bool {
	return rel == filepath.Clean(rel) && filepath.IsLocal(rel) && strings.HasPrefix(rel, SrcDir+string(filepath.Separator))
}

// unplace overwrites and removes each file a place list names that no
// stored conversation's row names. It runs in a write transaction, so an
// import can't store a conversation at one of those paths between the check
// and the removal (an import renames a file into src/ only after the
// transaction that stores it).
func (m *Memory) unplace(ctx context.Context, list string) error {
	data, err := os.ReadFile(list)
	if os.IsNotExist(err) {
		return nil // killed before it moved any
	}
	if err != nil {
		return err
	}
	return m.withTx(ctx, func(tx *sql.Tx) error {
		var errs []error
		for _, rel := range strings.Split(string(data), "\n") {
			if !placeable(rel) {
				continue
			}
			var stored bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM sessions WHERE path=?)`, rel).Scan(&stored); err != nil {
				return err
			}
			if stored {
				continue
			}
			if err := shred(filepath.Join(m.dir, rel)); err != nil && !os.IsNotExist(err) {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	})
}

// changedWithin says whether dir or anything under it was modified less
// than d ago.
func changedWithin(dir string, d time.Duration) bool {
	recent := false
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) < d {
			recent = true
			return filepath.SkipAll
		}
		return nil
	})
	return recent
}
