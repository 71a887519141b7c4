package memory

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// ForgetReport says what a forget erased.
type ForgetReport struct {
	Sessions []ForgottenSession `json:"sessions"`
	Files    int                `json:"files_removed"`
	Vacuumed bool               `json:"vacuumed"`
}

// ForgottenSession is one conversation that is gone.
type ForgottenSession struct {
	SessionID string `json:"session_id"`
	Source    string `json:"source"`
	Title     string `json:"title"`
	Turns     int    `json:"turns"`
	Bytes     int64  `json:"bytes"`
	File      string `json:"file"`
}

// Forget erases conversations for good: the source file is overwritten and
// removed, every index and catalog row deleted, the freed database pages
// zeroed (secure_delete), FTS segments merged, the WAL truncated, and a
// tombstone (a hash of harness and id, not the text) keeps a re-import from
// bringing them back. Unknown ids are an error and nothing is forgotten.
func (m *Memory) Forget(ctx context.Context, sessionIDs []string, progress func(done, total int)) (ForgetReport, error) {
	var rep ForgetReport
	var refs []sessionRef
	for _, id := range sessionIDs {
		ref, err := m.findSession(ctx, m.db, id, nil)
		if err != nil {
			return rep, err
		}
		refs = append(refs, ref)
	}
	for i, ref := range refs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		info, err := m.sessionInfo(ctx, ref)
		if err != nil {
			return rep, err
		}
		err = m.withTx(ctx, func(tx *sql.Tx) error {
			if err := deleteSessionRows(ctx, tx, ref.harness, ref.sid); err != nil {
				return err
			}
			for _, q := range []string{
				`DELETE FROM session_projects WHERE harness=? AND session_id=?`,
				`DELETE FROM stars WHERE harness=? AND session_id=?`,
				`DELETE FROM known_sessions WHERE harness=? AND session_id=?`,
			} {
				if _, err := tx.ExecContext(ctx, q, ref.harness, ref.sid); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO tombstones(hash, forgotten) VALUES(?,?)`,
				tombstoneHash(ref.harness, ref.sid), time.Now().Unix())
			return err
		})
		if err != nil {
			return rep, fmt.Errorf("forget %s: %w", ref.sid, err)
		}
		path := filepath.Join(m.dir, ref.path)
		if err := shred(path); err != nil && !os.IsNotExist(err) {
			return rep, fmt.Errorf("forget %s: %w", ref.sid, err)
		}
		if err == nil {
			rep.Files++
		}
		rep.Sessions = append(rep.Sessions, ForgottenSession{
			SessionID: info.SessionID, Source: info.Source, Title: info.Title,
			Turns: info.Turns, Bytes: info.Bytes, File: ref.path,
		})
		if progress != nil {
			progress(i+1, len(refs))
		}
	}
	vac, err := m.erase(ctx)
	rep.Vacuumed = vac
	if err != nil {
		return rep, fmt.Errorf("forget: erase freed pages: %w", err)
	}
	return rep, nil
}

// shred overwrites a file with zeros before removing it, so its text is not
// left in the file's old blocks on file systems that write in place.
func shred(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err == nil {
		_, err = io.CopyN(f, zeroReader{}, st.Size())
	}
	if err == nil {
		err = f.Sync()
	}
	f.Close()
	if err != nil {
		return err
	}
	return os.Remove(path)
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// Erase makes deleted text unrecoverable from the database files: it merges
// the FTS segments (so no old segment still holds a deleted term), folds and
// truncates the WAL, and vacuums when a quarter of the file is free pages.
// secure_delete, set on every connection, has already zeroed freed pages.
func (m *Memory) Erase(ctx context.Context) error {
	_, err := m.erase(ctx)
	return err
}

func (m *Memory) erase(ctx context.Context) (bool, error) {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	if _, err := m.db.ExecContext(ctx, `INSERT INTO chunks_fts(chunks_fts) VALUES('optimize')`); err != nil {
		return false, err
	}
	var pages, free int64
	m.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages)
	m.db.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free)
	vacuumed := false
	if pages > 0 && free*4 >= pages {
		if _, err := m.db.ExecContext(ctx, `VACUUM`); err != nil {
			return false, err
		}
		vacuumed = true
	}
	return vacuumed, m.checkpoint(ctx)
}

// checkpoint folds the WAL into the database and truncates it to zero
// bytes, retrying while a reader holds it.
func (m *Memory) checkpoint(ctx context.Context) error {
	for i := 0; ; i++ {
		var busy, logFrames, done int
		if err := m.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done); err != nil {
			return err
		}
		if busy == 0 {
			return nil
		}
		if i == 50 {
			return fmt.Errorf("the write-ahead log is held by another reader; close other Ireneo windows and try again")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
