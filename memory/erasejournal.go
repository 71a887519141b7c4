package memory

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	shredpkg "github.com/ireneo-app/ireneo/shred"
)

// Every destructive step is a job in the erase journal (the catalog's
// erase_journal table): before a forget or a scrub changes anything it
// writes what it will remove or rewrite there, in a transaction synced to
// disk, and it deletes those rows only once all of it is done, the old
// bytes overwritten and the database erased. A process killed in between
// leaves the rows, and the next open, import, reindex, forget or scrub
// finishes the job before anything else (finishErases): a forget is done
// again from where the rows say (each of its steps holds when done twice),
// a scrub's copies of the old files are overwritten. Without this, a
// forget killed between its catalog commit and the shred kept the file in
// src/ for good, and a killed scrub --apply kept the unredacted text in
// .staging.
//
// A running job holds a lock in its own folder under .staging (erase-*,
// born .new-* as batches are), named in its rows, so others leave it
// alone; rows whose lock nobody holds are a dead job's. A scrub keeps its
// hard links to the old files in that folder. QueueForget writes rows with
// no owner: a forget the next open carries out, for callers that must not
// lose it if they die right after (sync's forgets from other machines).

// Kinds of erase job.
const (
	eraseForget = "forget"
	eraseScrub  = "scrub"
)

// erasePrefix names a job's folder under .staging.
const erasePrefix = "erase-"

// eraseJob is a journalled job this process runs.
type eraseJob struct {
	m     *Memory
	op    string // its folder's name, in its rows
	dir   string
	lock  *os.File
	links int // old-file links made in its folder (keepOld)
}

// eraseItem is one row of a job: a conversation it forgets, or a file it
// rewrites.
type eraseItem struct {
	harness, sid string
	path         string // relative to the memory directory; "" if none
}

// newEraseJob makes a locked folder for a job; nothing is journalled yet.
func (m *Memory) newEraseJob() (*eraseJob, error) {
	root := filepath.Join(m.dir, stagingDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(root, newBatchPrefix)
	if err != nil {
		return nil, err
	}
	lock, err := tryLock(filepath.Join(tmp, lockName))
	if err == nil && lock == nil {
		err = fmt.Errorf("%s is locked by another process", tmp)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	op := erasePrefix + strings.TrimPrefix(filepath.Base(tmp), newBatchPrefix)
	dir := filepath.Join(root, op)
	if err := os.Rename(tmp, dir); err != nil {
		closeLock(lock)
		os.RemoveAll(tmp)
		return nil, err
	}
	m.erasing.Add(1)
	return &eraseJob{m: m, op: op, dir: dir, lock: lock}, nil
}

// beginErase starts a job: its folder, then its rows, synced.
func (m *Memory) beginErase(ctx context.Context, kind string, items []eraseItem) (*eraseJob, error) {
	j, err := m.newEraseJob()
	if err != nil {
		return nil, fmt.Errorf("journal the %s: %w", kind, err)
	}
	if err := m.journal(ctx, j.op, kind, items); err != nil {
		j.drop()
		return nil, fmt.Errorf("journal the %s: %w", kind, err)
	}
	killPoint(kind + "-journaled")
	return j, nil
}

// journal writes a job's rows in one transaction synced to disk: in WAL
// mode with synchronous=NORMAL a commit reaches the disk only at the next
// checkpoint, and a power cut must not lose the journal of a forget whose
// file it then shreds.
func (m *Memory) journal(ctx context.Context, op, kind string, items []eraseItem) error {
	return m.syncedTx(ctx, func(tx *sql.Tx) error {
		now := time.Now().Unix()
		for _, it := range items {
			if _, err := tx.ExecContext(ctx, `INSERT INTO erase_journal(op, kind, harness, session_id, path, created) VALUES(?,?,?,?,?,?)`,
				op, kind, it.harness, it.sid, it.path, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// syncedTx is withTx with synchronous=FULL, so the commit is on disk when
// it returns.
func (m *Memory) syncedTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	conn, err := m.db.Conn(ctx)
	if err != nil {
		return explainDisk(m.dir, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous=FULL`); err != nil {
		return explainDisk(m.dir, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous=NORMAL`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return explainDisk(m.dir, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return explainDisk(m.dir, err)
	}
	return explainDisk(m.dir, tx.Commit())
}

// done ends a finished job: its rows, folded into the database file at
// once (they name what it erased, and the file still holds them until a
// checkpoint), then its folder (whatever is left in it overwritten first).
func (j *eraseJob) done(ctx context.Context) error {
	err := j.m.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM erase_journal WHERE op=?`, j.op)
		return err
	})
	if err == nil {
		err = j.m.checkpoint(ctx)
	}
	if err != nil {
		return fmt.Errorf("close the erase journal: %w", err)
	}
	return j.drop()
}

// cancel ends a job that changed nothing: as done.
func (j *eraseJob) cancel(ctx context.Context) { j.done(context.WithoutCancel(ctx)) }

// drop removes the job's folder (its links to old files overwritten, or
// only unlinked where the file was not replaced) and lets its lock go;
// rows stay.
func (j *eraseJob) drop() error {
	if j.lock == nil {
		return nil
	}
	// clearJobDir, not shred.Folder: a link to a file its rewrite did not
	// replace is that live file, and must only be unlinked.
	err := j.m.clearJobDir(j.dir)
	closeLock(j.lock)
	j.lock = nil
	j.m.erasing.Add(-1)
	return err
}

// QueueForget journals a forget of the conversations ids name (harness:id,
// or a bare id when it is in one source only), synced, and changes nothing
// else: the next open of the memory, or FinishErases, carries it out as
// Forget does. A conversation not stored by then is forgotten all the
// same when its harness is known (its tombstone keeps it from being
// imported); a bare id that names none is dropped.
func (m *Memory) QueueForget(ctx context.Context, ids []string) error {
	var items []eraseItem
	for _, id := range ids {
		harness, sid := "", id
		if h, rest, ok := strings.Cut(id, ":"); ok && isHarness(h) {
			harness, sid = h, rest
		}
		if strings.TrimSpace(sid) == "" {
			return fmt.Errorf("queue a forget: %q names no conversation", id)
		}
		items = append(items, eraseItem{harness: harness, sid: sid})
	}
	if err := m.journal(ctx, "", eraseForget, items); err != nil {
		return fmt.Errorf("queue a forget: %w", err)
	}
	return nil
}

// FinishReport says what finishing the erase journal did.
type FinishReport struct {
	Forgotten int // conversations a dead or queued forget erased
	Scrubbed  int // files a dead scrub had rewritten, whose old copies it overwrote
}

// FinishErases finishes every job in the erase journal whose process is
// gone, and every queued forget: see the journal's comment above. Open,
// Forget, ScrubApply, Reindex and imports run it first.
func (m *Memory) FinishErases(ctx context.Context) (FinishReport, error) {
	var rep FinishReport
	var ops []string
	err := EachRow(ctx, m.db, `SELECT DISTINCT op FROM erase_journal`, nil, func(rows *sql.Rows) error {
		var op string
		err := rows.Scan(&op)
		ops = append(ops, op)
		return err
	})
	if err != nil {
		return rep, fmt.Errorf("read the erase journal: %w", err)
	}
	if len(ops) == 0 {
		return rep, nil
	}
	// Dead imports first: a scrub's batch may have committed and not yet
	// put its files in place, and its old copies go only after that.
	recErr := m.recoverStaging(ctx)
	var errs []error
	for _, op := range ops {
		if err := m.finishJob(ctx, op, &rep); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return rep, fmt.Errorf("finish an interrupted forget or scrub: %w", errors.Join(append(errs, recErr)...))
	}
	return rep, nil
}

// finishErases is FinishErases for a step that must not start with a job
// unfinished.
func (m *Memory) finishErases(ctx context.Context) error {
	_, err := m.FinishErases(ctx)
	return err
}

// finishJob takes over job op if nobody runs it, and finishes it.
func (m *Memory) finishJob(ctx context.Context, op string, rep *FinishReport) error {
	if op != "" && jobAlive(filepath.Join(m.dir, stagingDir, op)) {
		return nil
	}
	j, err := m.newEraseJob()
	if err != nil {
		return err
	}
	// Claim its rows for this process; another finisher that got there
	// first leaves none.
	var n int64
	err = m.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE erase_journal SET op=? WHERE op=?`, j.op, op)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil || n == 0 {
		j.drop()
		return err
	}
	if op != "" {
		// The dead job's folder: a scrub's links to the old files.
		if err := m.clearJobDir(filepath.Join(m.dir, stagingDir, op)); err != nil {
			j.drop() // its rows stay, claimed by a job gone now: the next finisher takes them
			return err
		}
	}
	items, kinds, err := m.jobItems(ctx, j.op)
	if err != nil {
		j.drop()
		return err
	}
	var forget []eraseItem
	for i, it := range items {
		switch kinds[i] {
		case eraseForget:
			forget = append(forget, it)
		case eraseScrub:
			if it.path != "" {
				rep.Scrubbed++
			}
		}
	}
	if len(forget) > 0 {
		n, err := m.finishForget(ctx, j, forget)
		rep.Forgotten += n
		if err != nil {
			j.drop()
			return err
		}
	} else if _, err := m.erase(ctx); err != nil {
		j.drop()
		return err
	}
	return j.done(ctx)
}

// jobAlive says whether a job's lock is held.
func jobAlive(dir string) bool {
	lock, err := tryLock(filepath.Join(dir, lockName))
	if err != nil {
		return false // gone: its process is too
	}
	if lock == nil {
		return true
	}
	lock.Close()
	return false
}

// clearJobDir overwrites and removes a dead job's folder. A hard link to
// a file still in place in src/ (its rewrite never landed) is only
// unlinked: overwriting it would overwrite the live file.
func (m *Memory) clearJobDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		if rel, ok := oldLinkTarget(e.Name()); ok {
			errs = append(errs, shredLink(filepath.Join(dir, e.Name()), filepath.Join(m.dir, rel)))
		}
	}
	return errors.Join(append(errs, shredpkg.Folder(dir, lockName))...)
}

// jobItems reads a job's rows.
func (m *Memory) jobItems(ctx context.Context, op string) ([]eraseItem, []string, error) {
	var items []eraseItem
	var kinds []string
	err := EachRow(ctx, m.db, `SELECT kind, harness, session_id, path FROM erase_journal WHERE op=? ORDER BY id`, []any{op}, func(rows *sql.Rows) error {
		var it eraseItem
		var kind string
		err := rows.Scan(&kind, &it.harness, &it.sid, &it.path)
		items = append(items, it)
		kinds = append(kinds, kind)
		return err
	})
	return items, kinds, err
}

// finishForget does a journalled forget again: each conversation as it
// stands now (still stored, or only its file or its staged lines left).
func (m *Memory) finishForget(ctx context.Context, j *eraseJob, items []eraseItem) (int, error) {
	var refs []sessionRef
	for _, it := range items {
		id := it.sid
		if it.harness != "" {
			id = it.harness + ":" + it.sid
		}
		found, err := m.resolveForget(ctx, id)
		if errors.Is(err, ErrNotFound) {
			if it.harness == "" {
				continue // a bare id that names nothing: nothing to keep out
			}
			// Its rows are gone already; the tombstone, the file and any
			// staged lines may not be.
			found = []sessionRef{{harness: it.harness, sid: it.sid, path: it.path}}
		} else if err != nil {
			return 0, err
		}
		refs = append(refs, found...)
	}
	if len(refs) == 0 {
		_, err := m.erase(ctx)
		return 0, err
	}
	rep, err := m.forgetRefs(withJob(ctx, j), refs, nil)
	return len(rep.Sessions), err
}

// oldLinkPrefix names a job's hard link to a file it rewrites:
// old-<n>-<the file's path relative to the memory directory, in hex>.
const oldLinkPrefix = "old-"

// oldLinkName is the name of the n-th old-file link to rel.
func oldLinkName(n int, rel string) string {
	return fmt.Sprintf("%s%d-%s", oldLinkPrefix, n, hex.EncodeToString([]byte(rel)))
}

// oldLinkTarget is the file, relative to the memory directory, a link
// named by oldLinkName points at; false for any other name or a path
// outside src/.
func oldLinkTarget(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, oldLinkPrefix)
	if !ok {
		return "", false
	}
	_, enc, ok := strings.Cut(rest, "-")
	if !ok {
		return "", false
	}
	rel, err := hex.DecodeString(enc)
	if err != nil || !placeable(string(rel)) {
		return "", false
	}
	return string(rel), true
}

// shredLink overwrites and removes link, a hard link to a file's old
// bytes, unless live (the file's place in src/) still is that very file:
// then it only removes the link, since overwriting it would overwrite the
// live file.
func shredLink(link, live string) error {
	a, errA := os.Stat(link)
	if os.IsNotExist(errA) {
		return nil
	}
	b, errB := os.Stat(live)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		return os.Remove(link)
	}
	if err := shred(link); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// jobKey carries the erase job a step runs in, for the steps inside it
// that keep old files (keepOld).
type jobKey struct{}

func withJob(ctx context.Context, j *eraseJob) context.Context {
	return context.WithValue(ctx, jobKey{}, j)
}

// keepOld hard-links a file in src/ (rel) that a rewrite is about to
// replace, so its blocks can be overwritten once the new file is in
// place (shredKept): into the folder of the job ctx carries, where a dead
// job's next finisher overwrites it too, or, outside a job, into .staging
// (linkOld). It returns the link.
func (m *Memory) keepOld(ctx context.Context, rel string) (string, error) {
	j, _ := ctx.Value(jobKey{}).(*eraseJob)
	if j == nil || j.lock == nil {
		return m.linkOld(rel)
	}
	j.links++
	l := filepath.Join(j.dir, oldLinkName(j.links, rel))
	return l, os.Link(filepath.Join(m.dir, rel), l)
}

// shredKept overwrites and removes a link keepOld made, unless the file
// was not replaced (then it only removes the link).
func (m *Memory) shredKept(link string) {
	if rel, ok := oldLinkTarget(filepath.Base(link)); ok && strings.HasPrefix(filepath.Base(filepath.Dir(link)), erasePrefix) {
		if shredLink(link, filepath.Join(m.dir, rel)) != nil {
			os.Remove(link)
		}
		return
	}
	shredOld(m.dir, link)
}
