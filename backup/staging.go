package backup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ireneo-app/ireneo/filelock"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/shred"
)

// A restore extracts the archive's conversation files into a folder of
// the memory's staging folder before it moves them into src/, so an entry
// that fails its checksum leaves src/ untouched. That folder holds a copy
// of every conversation in the archive, so it is treated as an import's
// staging is: every file is overwritten before it goes, and the folder
// holds a lock for the restore's whole life. It is made as memory knows a
// restore's folder (memory/restoreleftovers.go): born as a .new-* folder
// with the lock taken inside, then renamed restore-*; before its files
// move into src/ the restore writes its place list. Killed at any step,
// the restore is undone by the memory's next open, import or forget: the
// files it moved that the index does not hold yet are overwritten and
// removed, the rest of the folder with them, leaving the memory as it
// was, empty, for the restore to be done again.

// restoreStaging is a restore's folder for the files it extracts.
type restoreStaging struct {
	mdir string // the memory directory
	dir  string
	lock *os.File // nil once discarded
}

// newRestoreStaging clears what dead restores and imports left (best
// effort: the memory's Open and Forget report its errors) and makes a
// locked folder for a restore's extracted files. discard must end it,
// whatever happens.
func newRestoreStaging(ctx context.Context, m *memory.Memory) (*restoreStaging, error) {
	m.ClearStaging(ctx)
	root := filepath.Join(m.Dir(), memory.StagingDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("stage the restore: %w", err)
	}
	tmp, err := os.MkdirTemp(root, memory.NewStagingPrefix)
	if err != nil {
		return nil, fmt.Errorf("stage the restore: %w", err)
	}
	lock, err := filelock.TryLock(filepath.Join(tmp, memory.StagingLock))
	if err == nil && lock == nil {
		err = fmt.Errorf("%s is locked by another process", tmp)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("stage the restore: %w", err)
	}
	dir := filepath.Join(root, memory.RestorePrefix+strings.TrimPrefix(filepath.Base(tmp), memory.NewStagingPrefix))
	if err := os.Rename(tmp, dir); err != nil {
		lock.Close()
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("stage the restore: %w", err)
	}
	return &restoreStaging{mdir: m.Dir(), dir: dir, lock: lock}, nil
}

// willPlace writes the place list: where in the memory the restore is
// about to move its files (finals, full paths under src/), so that a
// restore killed half way through is undone at the next open. Call discard
// once they are all in place.
func (s *restoreStaging) willPlace(finals []string) error {
	var b strings.Builder
	src := filepath.Join(s.mdir, memory.SrcDir)
	for _, f := range finals {
		rel, err := filepath.Rel(s.mdir, f)
		if err != nil || rel != filepath.Clean(rel) || !filepath.IsLocal(rel) || !strings.HasPrefix(rel, memory.SrcDir+string(filepath.Separator)) {
			return fmt.Errorf("stage the restore: %s is not under %s", f, src)
		}
		b.WriteString(rel)
		b.WriteByte('\n')
	}
	p := filepath.Join(s.dir, memory.PlaceList)
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("stage the restore: %w", err)
	}
	if err := funes.SyncEach([]string{p}); err != nil {
		return fmt.Errorf("stage the restore: %w", err)
	}
	return nil
}

// discard overwrites every file left in the folder, removes it, its lock
// file last, and drops the lock. It may be called more than once.
func (s *restoreStaging) discard() error {
	if s.lock == nil {
		return nil
	}
	err := shred.Folder(s.dir, memory.StagingLock)
	s.lock.Close()
	s.lock = nil
	if err != nil {
		return fmt.Errorf("clear the restore's staging folder %s: %w", s.dir, err)
	}
	return nil
}
