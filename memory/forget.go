package memory

import (
	"github.com/ireneo-app/ireneo/sqlitepages"

	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	shredpkg "github.com/ireneo-app/ireneo/shred"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
)

// ForgetReport says what a forget erased: forget's answer, as package
// answer renders it.
type ForgetReport = answer.ForgetReport

// ForgottenSession is one conversation that is gone.
type ForgottenSession = answer.ForgottenSession

// IsForgotten says whether a conversation has a tombstone.
func (m *Memory) IsForgotten(ctx context.Context, harness, sessionID string) (bool, error) {
	return m.isTombstoned(ctx, harness, sessionID)
}

// Forget erases conversations for good: the source file is overwritten and
// removed, every index and catalog row deleted, the audit rows that name it
// or whose query matches it deleted, the freed database pages zeroed
// (secure_delete), the WAL truncated, and a tombstone
// (a hash of harness and id, not the text) keeps a re-import from bringing
// them back. Ireneo's own answers that quoted them, kept in other
// conversations (an agent's transcript holds what recall, get or sessions
// returned to it), lose those quotes first, each replaced by ForgottenText.
// Imports are covered too: what dead imports left is cleared
// first, and the conversation's lines in a running import's staging file
// are zeroed (the import skips it at commit). A conversation that so far
// exists only in a running import can be forgotten. Unknown ids are an
// error and nothing is forgotten.
func (m *Memory) Forget(ctx context.Context, sessionIDs []string, progress func(done, total int)) (ForgetReport, error) {
	var rep ForgetReport
	if err := m.finishErases(ctx); err != nil {
		return rep, fmt.Errorf("forget: %w", err)
	}
	if err := m.recoverLeftovers(ctx); err != nil {
		return rep, fmt.Errorf("forget: clear what interrupted imports left: %w", err)
	}
	var refs []sessionRef
	for _, id := range sessionIDs {
		found, err := m.resolveForget(ctx, id)
		if err != nil {
			return rep, err
		}
		refs = append(refs, found...)
	}
	// What it will remove, journalled before anything changes: killed
	// from here on, the next open finishes it.
	items := make([]eraseItem, len(refs))
	for i, r := range refs {
		items[i] = eraseItem{harness: r.harness, sid: r.sid, path: r.path}
	}
	job, err := m.beginErase(ctx, eraseForget, items)
	if err != nil {
		return rep, fmt.Errorf("forget (nothing was forgotten): %w", err)
	}
	rep, err = m.forgetRefs(withJob(ctx, job), refs, progress)
	var none *nothingForgotten
	switch {
	case errors.As(err, &none):
		job.cancel(ctx) // the person is told nothing went: nothing is to go later either
		return rep, err
	case err != nil:
		job.drop() // the rows stay: the next open finishes the forget
		return rep, err
	}
	killPoint("forget-erased")
	if err := job.done(ctx); err != nil {
		return rep, fmt.Errorf("forget: %w", err)
	}
	return rep, nil
}

// nothingForgotten is a forget's error from before it changed anything.
type nothingForgotten struct{ error }

func (e *nothingForgotten) Unwrap() error { return e.error }

// resolveForget finds what forgetting id means: its stored row; or, not
// stored, its lines in the staging files of imports under way and its
// file left in src/ (by a forget killed after its catalog commit in a
// build before the journal, or an index behind its files). None is
// ErrNotFound.
func (m *Memory) resolveForget(ctx context.Context, id string) ([]sessionRef, error) {
	ref, err := findSession(ctx, m.db, id, nil)
	if !errors.Is(err, ErrNotFound) {
		if err != nil {
			return nil, err
		}
		return []sessionRef{ref}, nil
	}
	harness, sid := "", id
	if h, rest, ok := strings.Cut(id, ":"); ok && isHarness(h) {
		harness, sid = h, rest
	}
	// Not stored yet, but perhaps staged by an import under way; its
	// lines are zeroed after the tombstone is in.
	found, serr := m.eraseStaged(ctx, harness, sid, false)
	if serr != nil {
		return nil, fmt.Errorf("forget %s: %w", id, serr)
	}
	var refs []sessionRef
	seen := map[string]int{}
	for _, f := range found {
		seen[f.harness] = len(refs)
		refs = append(refs, sessionRef{harness: f.harness, sid: f.sid})
	}
	for _, s := range m.strayFiles(harness, sid) {
		if i, ok := seen[s.harness]; ok {
			refs[i].path = s.path
			continue
		}
		refs = append(refs, s)
	}
	if len(refs) == 0 {
		return nil, err
	}
	return refs, nil
}

// strayFiles finds the files in src/ of a conversation no index row
// names, at the path an import gives it (any harness when harness is "").
func (m *Memory) strayFiles(harness, sid string) []sessionRef {
	hs := []string{harness}
	if harness == "" {
		hs = funes.Harnesses
	}
	var out []sessionRef
	for _, h := range hs {
		rel := srcPath(h, sid)
		f, err := os.Open(filepath.Join(m.dir, rel))
		if err != nil {
			continue
		}
		line, _ := bufio.NewReader(io.LimitReader(f, funes.MaxLineBytes)).ReadBytes('\n')
		f.Close()
		var head struct {
			SessionID string `json:"session_id"`
			Harness   string `json:"harness"`
		}
		if json.Unmarshal(line, &head) == nil && head.SessionID == sid && (head.Harness == h || head.Harness == "" && h == "funes") {
			out = append(out, sessionRef{harness: h, sid: sid, path: rel})
		}
	}
	return out
}

// forgetRefs erases refs (see Forget), as a journalled job's step: each
// of its steps holds when done again, which is how a job killed half way
// is finished. An error before anything changed is a nothingForgotten.
func (m *Memory) forgetRefs(ctx context.Context, refs []sessionRef, progress func(done, total int)) (ForgetReport, error) {
	var rep ForgetReport
	refs = uniqueRefs(refs)
	quoting, swept, err := m.eraseQuotesOf(ctx, refs, sweepMark{})
	if err != nil {
		return rep, &nothingForgotten{fmt.Errorf("forget: erase its quotes from other conversations (nothing was forgotten): %w", err)}
	}
	rep.Quoting, rep.Quotes = quoting.conversations, quoting.quotes
	if afterQuoteSweep != nil {
		afterQuoteSweep()
	}
	killPoint("forget-quotes")
	for i, ref := range refs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		info := ForgottenSession{SessionID: ref.sid, Source: ref.harness}
		if ref.id != 0 {
			var err error
			if ref, info, err = m.forgetInfo(ctx, ref); err != nil {
				return rep, fmt.Errorf("forget %s: %w", ref.sid, err)
			}
		}
		err := m.withTx(ctx, func(tx *sql.Tx) error {
			if err := eraseAudit(ctx, tx, ref.harness, ref.sid, ref.id); err != nil {
				return err
			}
			eng, err := engine.NewWriter(ctx, tx)
			if err != nil {
				return err
			}
			defer eng.Close()
			if err := deleteSessionRows(ctx, tx, eng, ref.harness, ref.sid, nil); err != nil {
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
			// A repeated forget moves the time on, so an import bringing
			// back the earlier forget can tell this one from it.
			_, err = tx.ExecContext(ctx, `INSERT INTO tombstones(hash, forgotten) VALUES(?,?)
				ON CONFLICT(hash) DO UPDATE SET forgotten=max(excluded.forgotten, tombstones.forgotten+1)`,
				tombstoneHash(ref.harness, ref.sid), time.Now().Unix())
			return err
		})
		if err != nil {
			return rep, fmt.Errorf("forget %s: %w", ref.sid, err)
		}
		m.reported(ctx, Choice{Kind: ChoiceForget, Harness: ref.harness, SessionID: ref.sid}, nil)
		killPoint("forget-committed")
		if ref.path != "" {
			path := filepath.Join(m.dir, ref.path)
			err := shred(path)
			if err != nil && !os.IsNotExist(err) {
				return rep, fmt.Errorf("forget %s: %w", ref.sid, err)
			}
			if err == nil {
				rep.Files++
			}
			killPoint("forget-shredded")
		}
		// After the tombstone, so a running import that reads the zeroed
		// lines finds why.
		if _, err := m.eraseStaged(ctx, ref.harness, ref.sid, true); err != nil {
			return rep, fmt.Errorf("forget %s: erase it from an import under way: %w", ref.sid, err)
		}
		info.File = ref.path
		rep.Sessions = append(rep.Sessions, info)
		if progress != nil {
			progress(i+1, len(refs))
		}
	}
	// An import that stored a copy of a quote after the sweep, before the
	// tombstones were in, had no reason to erase it; one that stores it
	// later erases it at its commit. Stored since is by row id or imported
	// time: a re-import of the newest session keeps its row id.
	// (Without passages: the erased rows' ids may be taken again.)
	gone := make([]sessionRef, len(refs))
	for i, r := range refs {
		gone[i] = sessionRef{harness: r.harness, sid: r.sid}
	}
	late, _, err := m.eraseQuotesOf(ctx, gone, swept)
	if err != nil {
		return rep, fmt.Errorf("forget: erase its quotes from conversations imported meanwhile: %w", err)
	}
	rep.Quoting, rep.Quotes = rep.Quoting+late.conversations, rep.Quotes+late.quotes
	vac, err := m.erase(ctx)
	rep.Vacuumed = vac
	if err != nil {
		return rep, fmt.Errorf("forget: erase freed pages: %w", err)
	}
	return rep, nil
}

// forgetInfo reads what forgetting ref erases. An import or a scrub that
// stored the conversation again since it was found (another process's,
// committing between) gave it a new row: it is looked up again by harness
// and id, and one gone meanwhile is forgotten all the same (its
// tombstone, file and staged lines).
func (m *Memory) forgetInfo(ctx context.Context, ref sessionRef) (sessionRef, ForgottenSession, error) {
	info, err := m.forgottenInfo(ctx, ref)
	if !errors.Is(err, sql.ErrNoRows) {
		return ref, info, err
	}
	again, err := findSession(ctx, m.db, ref.harness+":"+ref.sid, nil)
	if errors.Is(err, ErrNotFound) {
		ref.id = 0
		return ref, ForgottenSession{SessionID: ref.sid, Source: ref.harness}, nil
	}
	if err != nil {
		return ref, info, err
	}
	if again.path == "" {
		again.path = ref.path
	}
	info, err = m.forgottenInfo(ctx, again)
	return again, info, err
}

// forgottenInfo is what the report says of forgetting ref, its row as
// stored (sql.ErrNoRows when no row has its id).
func (m *Memory) forgottenInfo(ctx context.Context, ref sessionRef) (ForgottenSession, error) {
	fs := ForgottenSession{SessionID: ref.sid, Source: ref.harness}
	err := m.db.QueryRowContext(ctx, `SELECT title, turns, bytes FROM sessions WHERE id=?`, ref.id).Scan(&fs.Title, &fs.Turns, &fs.Bytes)
	return fs, err
}

// afterQuoteSweep, set only by tests, runs between forget's sweep of the
// quotes and the erasing of the conversations.
var afterQuoteSweep func()

// shred overwrites a file with zeros before removing it, so its text is not
// left in the file's old blocks on file systems that write in place.
var shred = shredpkg.File

// Erase makes deleted text unrecoverable from the database files: it folds
// and truncates the WAL, and vacuums when a quarter of the file is free
// pages, else zeroes the free space inside live pages (zeroFreeSpace).
// secure_delete, set on every connection, has already zeroed deleted cells
// and freed pages, but not the copies of moved cells that a page rebuild
// leaves in a page's free space (2 of 25 forgets kept a word there).
func (m *Memory) Erase(ctx context.Context) error {
	_, err := m.erase(ctx)
	return err
}

func (m *Memory) erase(ctx context.Context) (bool, error) {
	vac, err := m.eraseOnce(ctx)
	if err == nil && !vac {
		err = m.eraseFreeSpace(ctx)
	}
	return vac, explainDisk(m.dir, err)
}

// eraseFreeSpace zeroes the free space of live pages (zeroFreeSpace) and
// folds the pages it wrote into the file; a write that lands between the
// checkpoint and it sends it round again.
func (m *Memory) eraseFreeSpace(ctx context.Context) error {
	for try := 1; ; try++ {
		n, err := m.zeroFreeSpace(ctx)
		if errors.Is(err, sqlitepages.ErrWALNotEmpty) && try < 5 {
			if err := m.checkpoint(ctx); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("zero the free space of live pages: %w", err)
		}
		if n == 0 {
			return nil
		}
		return m.checkpoint(ctx)
	}
}

func (m *Memory) eraseOnce(ctx context.Context) (bool, error) {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	var pages, free int64
	m.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages)
	m.db.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free)
	vacuumed := false
	if pages > 0 && free*4 >= pages {
		if _, err := m.db.ExecContext(ctx, `VACUUM`); err != nil {
			return false, err
		}
		m.notePacked(ctx)
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

// uniqueRefs drops repeats of a conversation (an id given twice), keeping
// the first.
func uniqueRefs(refs []sessionRef) []sessionRef {
	seen := map[[2]string]bool{}
	out := refs[:0:0]
	for _, r := range refs {
		k := [2]string{r.harness, r.sid}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}
