package memory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	shredpkg "github.com/ireneo-app/ireneo/shred"

	"github.com/ireneo-app/ireneo/funes"
)

// An import that dies (Ctrl-C it could not finish, kill -9, a crash) leaves
// its staging folder behind: staged.jsonl with every conversation it read,
// and perhaps in-* files its last commit wrote but did not rename into src/.
// Versions before the staging lock wrote those as src/**.funes.jsonl.incoming.
// Recovery finishes what the index already committed and erases the rest,
// so a forgotten conversation can't survive in a leftover.

// recoverLeftovers clears what dead imports and restores left behind:
// staging folders whose lock nobody holds, and old-style .incoming files in
// src/.
func (m *Memory) recoverLeftovers(ctx context.Context) error {
	return errors.Join(m.recoverStaging(ctx), m.recoverLegacyIncoming(ctx))
}

// recoverStaging clears the staging folders of dead imports and restores
// and leaves live ones alone.
func (m *Memory) recoverStaging(ctx context.Context) error {
	root := filepath.Join(m.dir, stagingDir)
	ents, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), erasePrefix) {
			if err := m.recoverEraseDir(ctx, filepath.Join(root, e.Name())); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if e.IsDir() && strings.HasPrefix(e.Name(), RestorePrefix) {
			if err := m.recoverRestore(ctx, filepath.Join(root, e.Name())); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		// Otherwise only import batches (and folders being born, a
		// restore's too): scrub keeps other things here.
		if !e.IsDir() || !strings.HasPrefix(e.Name(), batchPrefix) && !strings.HasPrefix(e.Name(), newBatchPrefix) {
			continue
		}
		if strings.HasPrefix(e.Name(), newBatchPrefix) {
			// A batch being born takes its lock within microseconds; give
			// it a minute before calling it dead.
			if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < time.Minute {
				continue
			}
		}
		if err := m.recoverBatch(ctx, filepath.Join(root, e.Name())); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// lockDead takes the lock of the staging folder dir when the process that
// made it is dead; nil, and no error, for a folder gone meanwhile or one a
// live import or restore holds.
func lockDead(dir string) (*os.File, error) {
	lock, err := tryLock(filepath.Join(dir, lockName))
	if os.IsNotExist(err) {
		return nil, nil
	}
	return lock, err
}

// recoverBatch clears one staging folder if its import is dead: committed
// in-* files go to their place in src/, everything else is zeroed and removed.
func (m *Memory) recoverBatch(ctx context.Context, dir string) error {
	lock, err := lockDead(dir)
	if err != nil || lock == nil {
		return err
	}
	defer lock.Close()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), incomingPrefix) {
			errs = append(errs, m.recoverIncoming(ctx, filepath.Join(dir, e.Name()), ""))
		}
	}
	errs = append(errs, shredpkg.Folder(dir, lockName))
	return errors.Join(errs...)
}

// recoverEraseDir clears a dead erase job's folder that no journal row
// names (killed before its rows were in, or after they went); one the
// journal names is left to FinishErases, which finishes its job first.
func (m *Memory) recoverEraseDir(ctx context.Context, dir string) error {
	if jobAlive(dir) {
		return nil
	}
	var named bool
	if err := m.db.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM erase_journal WHERE op=?)`, filepath.Base(dir)).Scan(&named); err != nil || named {
		return err
	}
	return m.clearJobDir(dir)
}

// legacyIncomingKey is the meta key set once src/ has been cleared of
// old-style .incoming files; this version never writes them.
const legacyIncomingKey = "legacy_incoming_cleared"

// recoverLegacyIncoming handles src/**.funes.jsonl.incoming files, which
// only versions before the staging lock wrote. It walks src/ until one
// walk has cleared them all.
func (m *Memory) recoverLegacyIncoming(ctx context.Context) error {
	if m.metaGet(ctx, legacyIncomingKey) != "" {
		return nil
	}
	var found []string
	filepath.WalkDir(filepath.Join(m.dir, SrcDir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".incoming") {
			found = append(found, p)
		}
		return nil
	})
	var errs []error
	for _, p := range found {
		rel, err := filepath.Rel(m.dir, strings.TrimSuffix(p, ".incoming"))
		if err != nil {
			continue
		}
		errs = append(errs, m.recoverIncoming(ctx, p, rel))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return m.metaSet(ctx, m.db, legacyIncomingKey, time.Now().UTC().Format(time.RFC3339))
}

// recoverIncoming renames a file a dead import wrote into its place in src/
// when the index committed exactly that content (and, for an old-style
// file, at that path) and it is not forgotten; otherwise it zeroes and
// removes it. It runs in a write transaction, so no import commits another
// version of the conversation between the check and the rename.
func (m *Memory) recoverIncoming(ctx context.Context, file, wantRel string) error {
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	placed := false
	if ss, _, err := funes.ReadSessions(bytes.NewReader(data)); err == nil && len(ss) == 1 {
		s := ss[0]
		sum := sha256.Sum256(data)
		err := m.withTx(ctx, func(tx *sql.Tx) error {
			var hash, rel string
			var dead int
			err := tx.QueryRowContext(ctx, `SELECT hash, path, EXISTS(SELECT 1 FROM tombstones WHERE hash=?) FROM sessions WHERE harness=? AND session_id=?`,
				tombstoneHash(s.Harness, s.ID), s.Harness, s.ID).Scan(&hash, &rel, &dead)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
			if hash != hex.EncodeToString(sum[:]) || dead != 0 || (wantRel != "" && rel != wantRel) {
				return nil
			}
			final := filepath.Join(m.dir, rel)
			if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
				return err
			}
			if err := syncEach([]string{file}); err != nil {
				return err
			}
			if err := os.Rename(file, final); err != nil {
				return err
			}
			placed = true
			return nil
		})
		if err != nil {
			return err
		}
	}
	if placed {
		return nil
	}
	if err := shred(file); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
