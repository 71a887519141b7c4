package memory

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/indexdoc"
)

// afterCommitTx, set only by tests, runs between a part's transaction and
// the renames of its files.
var afterCommitTx func()

// commitChunk is how many sessions go in one transaction: each session is
// replaced atomically, and a long import doesn't hold the write lock for minutes.
const commitChunk = 250

// Commit indexes and writes every staged session. Sessions are prepared on
// all cores, a part ahead of the writer, and written a part per transaction.
// A session forgotten since it was staged is skipped, and its tombstone kept.
func (b *Batch) Commit(ctx context.Context, progress func(done, total int)) (IngestReport, error) {
	if b.done {
		return b.report, errors.New("batch already finished")
	}
	errs := CommitBatches(ctx, []*Batch{b}, progress)
	return b.report, errs[0]
}

// Report is what a committed batch did.
func (b *Batch) Report() IngestReport { return b.report }

// item is one staged session of one batch, on its way to a transaction.
type item struct {
	b  *Batch
	st staged
}

// CommitBatches commits several batches of one memory together, as Commit
// does each: their sessions share transactions of up to commitChunk
// sessions, so an import of many small inputs (one transcript a file) does
// not pay a transaction per input. The engine rewrites the dictionary row of
// every term a transaction touches, which made 4,400 one-session
// transactions cost about 90 of the heavy import's 168 CPU-seconds. When a
// shared transaction fails, its sessions are committed again batch by
// batch, so a batch that cannot be stored fails alone, as with Commit. It
// returns an error per batch (nil when committed) and discards every batch.
func CommitBatches(ctx context.Context, bs []*Batch, progress func(done, total int)) []error {
	errs := make([]error, len(bs))
	failed := map[*Batch]int{} // batch → its index, once it has an error
	var todo []item
	for i, b := range bs {
		if b.done {
			errs[i] = errors.New("batch already finished")
			failed[b] = i
			continue
		}
		defer b.Discard()
		for _, st := range b.staged {
			if st.n > 0 {
				todo = append(todo, item{b, st})
			}
		}
	}
	if len(bs) == 0 {
		return errs
	}
	m := bs[0].m
	if len(bs) == 1 && bs[0].whole && errs[0] == nil {
		errs[0] = m.commitWhole(ctx, bs[0], todo, progress)
		return errs
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type partResult struct {
		items []item
		ps    []*indexdoc.Prepared
		errs  []error // per item
		err   error   // ctx's
	}
	parts := make(chan partResult, 1)
	go func() {
		defer close(parts)
		for start := 0; start < len(todo); start += commitChunk {
			part := todo[start:min(start+commitChunk, len(todo))]
			ps, perrs, err := preparePart(ctx, part)
			select {
			case parts <- partResult{part, ps, perrs, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	fail := func(b *Batch, err error) {
		for i, o := range bs {
			if o == b && errs[i] == nil {
				errs[i] = err
				failed[b] = i
			}
		}
	}
	failAll := func(err error) {
		for i, b := range bs {
			if errs[i] == nil {
				errs[i] = err
				failed[b] = i
			}
		}
	}
	done := 0
	for pr := range parts {
		if pr.err != nil {
			failAll(pr.err)
			return errs
		}
		for i, err := range pr.errs {
			if err != nil {
				fail(pr.items[i].b, err) // that batch alone
			}
		}
		var items []item
		var ps []*indexdoc.Prepared
		for i, it := range pr.items {
			if _, bad := failed[it.b]; !bad {
				items = append(items, it)
				ps = append(ps, pr.ps[i])
			}
		}
		m.giveWay(ctx)
		if err := m.commitPart(ctx, ps, items); err != nil {
			if ctx.Err() != nil {
				failAll(err)
				return errs
			}
			// Again batch by batch: only the batch at fault fails.
			for lo := 0; lo < len(items); {
				hi := lo + 1
				for hi < len(items) && items[hi].b == items[lo].b {
					hi++
				}
				if len(items) == hi-lo {
					fail(items[lo].b, err) // one batch only: it is the one
				} else if err := m.commitPart(ctx, ps[lo:hi], items[lo:hi]); err != nil {
					if ctx.Err() != nil {
						failAll(err)
						return errs
					}
					fail(items[lo].b, err)
				}
				lo = hi
			}
		}
		done += len(pr.items)
		if progress != nil {
			progress(done, len(todo))
		}
	}
	if err := ctx.Err(); err != nil {
		failAll(err)
	}
	return errs
}

// commitWhole commits a whole batch (Batch.whole) in one transaction,
// its inTx with it: a scrub's rewrite, which a kill must leave all done or
// not begun. Its sessions are read back and indexed commitChunk at a time
// inside that transaction, so what is held in memory stays one chunk's,
// as in CommitBatches; a session that cannot be read back fails it all.
func (m *Memory) commitWhole(ctx context.Context, b *Batch, todo []item, progress func(done, total int)) error {
	var st partState
	defer st.shredMoves()
	err := m.withTx(ctx, func(tx *sql.Tx) error {
		stmts, err := prepareIndexStmts(ctx, tx)
		if err != nil {
			return err
		}
		defer stmts.Close()
		for start := 0; start < len(todo); start += commitChunk {
			part := todo[start:min(start+commitChunk, len(todo))]
			ps, perrs, err := preparePart(ctx, part)
			if err != nil {
				return err
			}
			if err := errors.Join(perrs...); err != nil {
				return err
			}
			if err := m.indexPart(ctx, tx, stmts, ps, part, &st); err != nil {
				return err
			}
			if err := stmts.flush(); err != nil {
				return err
			}
			if progress != nil {
				progress(start+len(part), len(todo))
			}
		}
		if b.inTx != nil {
			if err := b.inTx(ctx, tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return m.placePart(ctx, &st)
}

// preparePart reads back and prepares staged sessions in parallel, with an
// error per session that cannot be read back. A session a forget has zeroed
// in the staging file comes back nil.
func preparePart(ctx context.Context, part []item) ([]*indexdoc.Prepared, []error, error) {
	out := make([]*indexdoc.Prepared, len(part))
	errs := make([]error, len(part))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				b, st := part[i].b, part[i].st
				b.m.giveWay(ctx)
				data := make([]byte, st.n)
				if _, err := b.file.ReadAt(data, st.off); err != nil {
					errs[i] = fmt.Errorf("staged session %s: %w", st.id, err)
					continue
				}
				ss, _, err := funes.ReadSessions(bytes.NewReader(data))
				if err != nil || len(ss) != 1 {
					if when, _ := tombstoneTime(ctx, b.m.db, st.harness, st.id); when != 0 {
						continue
					}
					errs[i] = fmt.Errorf("staged session %s is unreadable", st.id)
					continue
				}
				out[i] = indexdoc.Prepare(ss[0], data, st.hash)
			}
		}()
	}
	for i := range part {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return out, errs, nil
}

// partState is what storing sessions in a transaction leaves for after
// its commit: the files to move into src/ and each session's outcome.
type partState struct {
	moves    []placed
	outcomes []SessionOutcome
	owners   []*Batch // the batch of each outcome
}

type placed struct {
	b          *Batch
	tmp, final string
	outcome    int // index in outcomes
}

// shredMoves zeroes the files that did not go in place (the transaction
// failed): they hold their sessions.
func (st *partState) shredMoves() {
	for _, mv := range st.moves {
		if err := shred(mv.tmp); err != nil {
			os.Remove(mv.tmp)
		}
	}
}

// commitPart stores prepared sessions of one or more batches in one
// transaction, then moves their files into src/. Reports are added to each
// batch only once all of it went well.
func (m *Memory) commitPart(ctx context.Context, ps []*indexdoc.Prepared, part []item) error {
	var st partState
	defer st.shredMoves()
	err := m.withTx(ctx, func(tx *sql.Tx) error {
		stmts, err := prepareIndexStmts(ctx, tx)
		if err != nil {
			return err
		}
		defer stmts.Close()
		if err := m.indexPart(ctx, tx, stmts, ps, part, &st); err != nil {
			return err
		}
		return stmts.flush()
	})
	if err != nil {
		return err
	}
	return m.placePart(ctx, &st)
}

// indexPart stores prepared sessions in tx and writes their files into
// their batches' folders, for placePart to move after the commit.
func (m *Memory) indexPart(ctx context.Context, tx *sql.Tx, stmts *indexStmts, ps []*indexdoc.Prepared, part []item, out *partState) error {
	// Checked inside the transaction, so a forget commits either before
	// it (and wins here) or after it (and erases what this stores).
	hashes := make([]string, len(part))
	for i, it := range part {
		hashes[i] = tombstoneHash(it.st.harness, it.st.id)
	}
	tombs, err := tombstoneTimes(ctx, tx, hashes)
	if err != nil {
		return err
	}
	// A forget that ran while these were staged may have erased
	// quotes they hold a copy of.
	mark, err := tombstoneMark(ctx, tx)
	if err != nil {
		return err
	}
	for i, p := range ps {
		if b := part[i].b; p != nil && mark != b.tombs && !b.opts.IncludeForgotten {
			np, err := m.requote(ctx, tx, p)
			if err != nil {
				return err
			}
			if np != p {
				ps[i] = np
			}
		}
	}
	var gaveWay time.Duration
	for i, p := range ps {
		b, st := part[i].b, part[i].st
		o := SessionOutcome{Harness: st.harness, SessionID: st.id, Title: st.title, Outcome: st.outcome}
		tomb := tombs[hashes[i]]
		if b.forgotten(st, tomb) || p == nil {
			o.Outcome = OutcomeForgotten
			out.outcomes = append(out.outcomes, o)
			out.owners = append(out.owners, b)
			continue
		}
		if again, err := storedAgain(ctx, tx, st); err != nil {
			return err
		} else if again {
			o.Outcome = outcomeStoredAgain
			out.outcomes = append(out.outcomes, o)
			out.owners = append(out.owners, b)
			continue
		}
		if tomb != 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM tombstones WHERE hash=?`, tombstoneHash(st.harness, st.id)); err != nil {
				return err
			}
		}
		if err := checkPathIndexed(ctx, tx, st.path, st.harness, st.id); err != nil {
			return err
		}
		m.giveWayIn(ctx, &gaveWay)
		if err := m.indexSession(ctx, tx, stmts, p, st.path); err != nil {
			return fmt.Errorf("index session %s: %w", st.id, err)
		}
		if err := deriveProjects(ctx, tx, p.Session); err != nil {
			return err
		}
		final := filepath.Join(m.dir, st.path)
		if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
			return err
		}
		b.nIn++
		tmp := filepath.Join(b.dir, fmt.Sprintf("%s%06d", incomingPrefix, b.nIn))
		if err := os.WriteFile(tmp, p.Data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", tmp, err)
		}
		out.moves = append(out.moves, placed{b, tmp, final, len(out.outcomes)})
		out.outcomes = append(out.outcomes, o)
		out.owners = append(out.owners, b)
	}
	return nil
}

// placePart moves the files of a committed transaction into src/, erases
// any a forget committed meanwhile, and adds the outcomes to each batch's
// report.
func (m *Memory) placePart(ctx context.Context, st *partState) error {
	if afterCommitTx != nil {
		afterCommitTx()
	}
	killPoint("commit-tx")
	byDir := map[string][]string{}
	var dirs []string
	for _, mv := range st.moves {
		if byDir[mv.b.dir] == nil {
			dirs = append(dirs, mv.b.dir)
		}
		byDir[mv.b.dir] = append(byDir[mv.b.dir], mv.tmp)
	}
	for _, d := range dirs {
		if err := syncFiles(d, byDir[d]); err != nil {
			return err
		}
	}
	for _, mv := range st.moves {
		if err := os.Rename(mv.tmp, mv.final); err != nil {
			return fmt.Errorf("write %s: %w", mv.final, err)
		}
	}
	placedNow := st.moves
	st.moves = nil
	// A forget that committed after the transaction may have looked for the
	// file before it was in place: look again, and erase it here.
	hashes := make([]string, len(placedNow))
	for i, mv := range placedNow {
		o := st.outcomes[mv.outcome]
		hashes[i] = tombstoneHash(o.Harness, o.SessionID)
	}
	tombs, err := tombstoneTimes(ctx, m.db, hashes)
	if err != nil {
		return err
	}
	for i, mv := range placedNow {
		o := &st.outcomes[mv.outcome]
		if tombs[hashes[i]] != 0 {
			if err := shred(mv.final); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("erase %s: %w", mv.final, err)
			}
			o.Outcome = OutcomeForgotten
		}
	}
	for i, o := range st.outcomes {
		st.owners[i].report.add(o)
	}
	if len(placedNow) > 0 {
		// Stamped once the files are in place, not in the transaction: a
		// watcher that reloads when the counts change may read a file
		// before its move, and must see a change again after it (the
		// window did not: CI, TestListsFollowTheMemory). To the
		// nanosecond, so two imports in one second differ.
		m.metaSet(ctx, m.db, "last_import", time.Now().UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// deriveProjects tags a session with its derived project the first time
// Ireneo sees it; later imports leave the person's tags alone.
func deriveProjects(ctx context.Context, tx *sql.Tx, s *funes.Session) error {
	res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO known_sessions(harness,session_id,first_seen) VALUES(?,?,?)`,
		s.Harness, s.ID, time.Now().Unix())
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 || strings.TrimSpace(s.Project) == "" {
		return nil
	}
	_, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_projects(harness,session_id,project) VALUES(?,?,?)`,
		s.Harness, s.ID, strings.TrimSpace(s.Project))
	return err
}
