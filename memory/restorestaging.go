package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A restore (backup's) extracts an archive's conversation files into a
// folder under .staging/ before it moves them into src/, so an entry that
// fails its checksum leaves src/ untouched. That folder holds a copy of
// every conversation in the archive, so it is treated as an import's
// staging is: every file is overwritten before it goes, and the folder
// holds a lock for the restore's whole life. It is born as .new-* with the
// lock taken inside and renamed restore-*, as a batch is, so that a
// restore-* folder whose lock can be taken is a dead restore's leftovers
// (cleared at the next Open, import, forget or restore) and one whose lock
// cannot is a live restore's, left alone. Before it moves its files into
// src/ a restore lists where they go (WillPlace); killed while it moves
// them, the clearing also takes back those it moved and the index does not
// hold yet, so the memory is left as it was, empty, for the restore to be
// done again.

// restorePrefix names a restore's staging folder.
const restorePrefix = "restore-"

// legacyRestoreQuiet is how long a restore folder without a lock file
// (written by builds before the lock) must have been left untouched before
// it counts as dead: such a restore writes a file every few milliseconds
// while it extracts and has moved them all out by the time it indexes.
const legacyRestoreQuiet = 10 * time.Minute

// placingName is the file, in a restore's folder, that lists where its
// files go in src/ (paths relative to the memory directory, one a line),
// written before it moves the first.
const placingName = "placing"

// RestoreStaging is a restore's folder for the files it extracts.
type RestoreStaging struct {
	mdir string // the memory directory
	dir  string
	lock *os.File // nil once discarded
}

// NewRestoreStaging clears what dead restores and imports left (best
// effort: Open and Forget report its errors) and makes a locked folder for
// a restore's extracted files. Discard must end it, whatever happens.
func (m *Memory) NewRestoreStaging(ctx context.Context) (*RestoreStaging, error) {
	m.recoverStaging(ctx)
	root := filepath.Join(m.dir, stagingDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("stage the restore: %w", err)
	}
	tmp, err := os.MkdirTemp(root, newBatchPrefix)
	if err != nil {
		return nil, fmt.Errorf("stage the restore: %w", err)
	}
	lock, err := tryLock(filepath.Join(tmp, lockName))
	if err == nil && lock == nil {
		err = fmt.Errorf("%s is locked by another process", tmp)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("stage the restore: %w", err)
	}
	dir := filepath.Join(root, restorePrefix+strings.TrimPrefix(filepath.Base(tmp), newBatchPrefix))
	if err := os.Rename(tmp, dir); err != nil {
		closeLock(lock)
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("stage the restore: %w", err)
	}
	return &RestoreStaging{mdir: m.dir, dir: dir, lock: lock}, nil
}

// Dir is the folder to extract into.
func (s *RestoreStaging) Dir() string { return s.dir }

// WillPlace records where in the memory the restore is about to move its
// files (finals, full paths under src/), so that a restore killed half way
// through is undone at the next open: each file it had moved that no index
// row names yet is overwritten and removed, leaving the memory empty for the
// restore to be done again. Call Discard once they are all in place.
func (s *RestoreStaging) WillPlace(finals []string) error {
	var b strings.Builder
	for _, f := range finals {
		rel, err := filepath.Rel(s.mdir, f)
		if err != nil || !placeable(rel) {
			return fmt.Errorf("stage the restore: %s is not under %s", f, filepath.Join(s.mdir, SrcDir))
		}
		b.WriteString(rel)
		b.WriteByte('\n')
	}
	p := filepath.Join(s.dir, placingName)
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("stage the restore: %w", err)
	}
	if err := syncEach([]string{p}); err != nil {
		return fmt.Errorf("stage the restore: %w", err)
	}
	return nil
}

// placeable says whether rel, relative to the memory directory, is a file
// under src/: what a placing list may name.
func placeable(rel string) bool {
	return rel == filepath.Clean(rel) && filepath.IsLocal(rel) && strings.HasPrefix(rel, SrcDir+string(filepath.Separator))
}

// Discard overwrites every file left in the folder, removes it, and drops
// the lock. It may be called more than once.
func (s *RestoreStaging) Discard() error {
	if s.lock == nil {
		return nil
	}
	err := removeStaging(s.dir)
	closeLock(s.lock)
	s.lock = nil
	if err != nil {
		return fmt.Errorf("clear the restore's staging folder %s: %w", s.dir, err)
	}
	return nil
}

// Shred overwrites a file with zeros, syncs it and removes it: for a copy
// of conversations thrown away, whose old blocks would otherwise keep the
// text on file systems that write in place.
func Shred(path string) error { return shred(path) }

// recoverRestore clears a restore folder if its restore is dead, and
// undoes what it had moved into src/ (WillPlace).
func (m *Memory) recoverRestore(ctx context.Context, dir string) error {
	if _, err := os.Lstat(filepath.Join(dir, lockName)); os.IsNotExist(err) {
		if _, err := os.Lstat(dir); os.IsNotExist(err) {
			return nil // gone meanwhile
		}
		if changedWithin(dir, legacyRestoreQuiet) {
			return nil // perhaps an older build's restore, still running
		}
		return shredTree(dir)
	}
	lock, err := lockDead(dir)
	if err != nil || lock == nil {
		return err
	}
	defer lock.Close()
	return errors.Join(m.unplace(ctx, filepath.Join(dir, placingName)), removeStaging(dir))
}

// unplace overwrites and removes each file a placing list names that no
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
