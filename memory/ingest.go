package memory

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Outcomes of ingesting one session.
const (
	OutcomeNew       = "new"
	OutcomeUpdated   = "updated"
	OutcomeUnchanged = "unchanged"
	OutcomeForgotten = "forgotten"
	// OutcomeOlder is a copy that holds less than the stored one (a strict
	// prefix of its turns, or an older last turn); the stored one stays.
	OutcomeOlder = "older"
)

// ErrPathTaken is returned for a conversation whose file name is already
// another conversation's: it is refused rather than written over the other.
var ErrPathTaken = errors.New("file name already holds another conversation")

// IngestOptions tunes an ingest.
type IngestOptions struct {
	// IncludeForgotten brings back sessions that were forgotten before the
	// import started; a forget during the import still wins.
	IncludeForgotten bool
	// Redact, if set, edits each session in place before it is written or
	// indexed and returns its redactions per rule id.
	Redact func(*funes.Session) map[string]int
}

// IngestReport says what an ingest did.
type IngestReport struct {
	New       int              `json:"new"`
	Updated   int              `json:"updated"`
	Unchanged int              `json:"unchanged"`
	Forgotten int              `json:"forgotten"`
	Older     int              `json:"older"` // older copies skipped: the stored one holds more
	Redacted  map[string]int   `json:"redacted,omitempty"`
	Sessions  []SessionOutcome `json:"sessions,omitempty"`
}

// SessionOutcome is what happened to one session.
type SessionOutcome struct {
	Harness   string `json:"harness"`
	SessionID string `json:"session_id"`
	Title     string `json:"title"`
	Outcome   string `json:"outcome"`
}

func (r *IngestReport) add(o SessionOutcome) {
	switch o.Outcome {
	case OutcomeNew:
		r.New++
	case OutcomeUpdated:
		r.Updated++
	case OutcomeUnchanged:
		r.Unchanged++
	case OutcomeForgotten:
		r.Forgotten++
	case OutcomeOlder:
		r.Older++
	}
	r.Sessions = append(r.Sessions, o)
}

// Merge adds another report's counts to r.
func (r *IngestReport) Merge(o IngestReport) {
	r.New += o.New
	r.Updated += o.Updated
	r.Unchanged += o.Unchanged
	r.Forgotten += o.Forgotten
	r.Older += o.Older
	for k, v := range o.Redacted {
		if r.Redacted == nil {
			r.Redacted = map[string]int{}
		}
		r.Redacted[k] += v
	}
	r.Sessions = append(r.Sessions, o.Sessions...)
}

// The staging area: one folder per batch under .staging/, named batch-*
// once its lock is held (a folder is born as .new-* and renamed), holding
// the lock file, staged.jsonl and, during a commit, in-* files waiting to be
// renamed into src/.
const (
	stagingDir     = ".staging"
	batchPrefix    = "batch-"
	newBatchPrefix = ".new-"
	stagedName     = "staged.jsonl"
	incomingPrefix = "in-"
)

// Batch stages sessions on disk and commits them together, so that a parse
// that fails half way changes nothing, and memory stays bounded however big
// the export. It holds a lock for its whole life, so that its folder is
// never taken for a dead import's leftovers.
type Batch struct {
	m      *Memory
	opts   IngestOptions
	dir    string
	lock   *os.File // nil once discarded
	file   *os.File // staged sessions, appended one after another
	size   int64
	staged []staged
	seen   map[string]int    // key → index in staged
	paths  map[string]string // file path → key of the session staged for it
	report IngestReport
	done   bool
	nIn    int // in-* files written
	// tombs is the tombstones when it began: when they change before its
	// commit, the commit erases quotes of the newly forgotten again.
	tombs tombMark
}

type staged struct {
	harness, id, title string
	hash               string
	path               string // its file, relative to the memory directory
	revive             int64  // with IncludeForgotten: the tombstone it had when staged, which it lifts
	off, n             int64  // where its funes jsonl lies in the staging file; n is 0 when superseded
	outcome            string
	base               string // for a forget's rewrite of a stored copy, that copy's hash (addRewrite)
}

// NewBatch starts a batch.
func (m *Memory) NewBatch(opts IngestOptions) (b *Batch, err error) {
	if m.openBatches.Add(1) == 1 {
		m.recoverStaging(context.Background()) // best effort; Open and Forget report its errors
	}
	defer func() {
		if err != nil {
			m.openBatches.Add(-1)
		}
	}()
	root := filepath.Join(m.dir, stagingDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("stage the import: %w", err)
	}
	tmp, err := os.MkdirTemp(root, newBatchPrefix)
	if err != nil {
		return nil, fmt.Errorf("stage the import: %w", err)
	}
	lock, err := tryLock(filepath.Join(tmp, lockName))
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("stage the import: %w", err)
	}
	dir := filepath.Join(root, batchPrefix+strings.TrimPrefix(filepath.Base(tmp), newBatchPrefix))
	if err := os.Rename(tmp, dir); err != nil {
		closeLock(lock)
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("stage the import: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, stagedName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		closeLock(lock)
		return nil, fmt.Errorf("stage the import: %w", err)
	}
	tombs, err := tombstoneMark(context.Background(), m.db)
	if err != nil {
		f.Close()
		os.RemoveAll(dir)
		closeLock(lock)
		return nil, fmt.Errorf("stage the import: %w", err)
	}
	return &Batch{m: m, opts: opts, dir: dir, lock: lock, file: f, seen: map[string]int{}, paths: map[string]string{}, tombs: tombs}, nil
}

func closeLock(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// Add checks a session and stages it unless it is unchanged, forgotten, or
// an older copy of the stored one.
func (b *Batch) Add(ctx context.Context, s *funes.Session) error {
	if b.done {
		return errors.New("batch already finished")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validate(s); err != nil {
		return err
	}
	if b.opts.Redact != nil {
		for rule, n := range b.opts.Redact(s) {
			if b.report.Redacted == nil {
				b.report.Redacted = map[string]int{}
			}
			b.report.Redacted[rule] += n
		}
	}
	// With IncludeForgotten the person asks for forgotten text back.
	if !b.opts.IncludeForgotten {
		if _, err := b.m.eraseForgottenQuotes(ctx, b.m.db, s); err != nil {
			return err
		}
	}
	data, err := funes.MarshalSession(s)
	if err != nil {
		return fmt.Errorf("session %s: %w", s.ID, err)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	out := SessionOutcome{Harness: s.Harness, SessionID: s.ID, Title: s.Title}

	// A forget that lands after this check is caught again at commit.
	tomb, err := tombstoneTime(ctx, b.m.db, s.Harness, s.ID)
	if err != nil {
		return err
	}
	if tomb != 0 && !b.opts.IncludeForgotten {
		out.Outcome = OutcomeForgotten
		b.report.add(out)
		return nil
	}
	var (
		old, path  string
		oldTurns   int
		oldUpdated int64
	)
	err = b.m.db.QueryRowContext(ctx, `SELECT hash, turns, updated, path FROM sessions WHERE harness=? AND session_id=?`,
		s.Harness, s.ID).Scan(&old, &oldTurns, &oldUpdated, &path)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		out.Outcome = OutcomeNew
		path = srcPath(s.Harness, s.ID)
	case err != nil:
		return err
	case old == hash:
		out.Outcome = OutcomeUnchanged
		b.report.add(out)
		return nil
	default:
		if b.m.isOlderCopy(s, oldTurns, oldUpdated, path) {
			out.Outcome = OutcomeOlder
			b.report.add(out)
			return nil
		}
		out.Outcome = OutcomeUpdated
	}
	key := s.Harness + "\x00" + s.ID
	if other, ok := b.paths[path]; ok && other != key {
		return fmt.Errorf("conversation %s (%s) would be stored as %s, like another conversation in the same input: %w", s.ID, s.Harness, path, ErrPathTaken)
	}
	if out.Outcome == OutcomeNew {
		if err := b.m.checkPathFree(ctx, b.m.db, path, s.Harness, s.ID); err != nil {
			return err
		}
	}
	if i, dup := b.seen[key]; dup {
		// The same conversation twice in one input: the later copy wins.
		b.staged[i].n = 0
	}
	if _, err := b.file.Write(data); err != nil {
		return fmt.Errorf("stage session %s: %w", s.ID, err)
	}
	b.seen[key] = len(b.staged)
	b.paths[path] = key
	b.staged = append(b.staged, staged{harness: s.Harness, id: s.ID, title: s.Title, hash: hash, path: path, revive: tomb,
		off: b.size, n: int64(len(data)), outcome: out.Outcome})
	b.size += int64(len(data))
	return nil
}

// tombstoneTime is when a session was forgotten, or 0. Forget makes the
// time of a repeated forget differ from the one before, so a batch can tell
// the tombstone it was asked to lift from one made while it ran.
func tombstoneTime(ctx context.Context, q rowQueryer, harness, id string) (int64, error) {
	var when int64
	err := q.QueryRowContext(ctx, `SELECT forgotten FROM tombstones WHERE hash=?`, tombstoneHash(harness, id)).Scan(&when)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return when, err
}

// tombstoneTimes is tombstoneTime for many sessions in one query, by
// tombstone hash; sessions without one are absent.
func tombstoneTimes(ctx context.Context, q rowsQueryer, hashes []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(hashes) == 0 {
		return out, nil
	}
	args := make([]any, len(hashes))
	for i, h := range hashes {
		args[i] = h
	}
	rows, err := q.QueryContext(ctx, `SELECT hash, forgotten FROM tombstones WHERE hash IN (?`+strings.Repeat(",?", len(hashes)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			h    string
			when int64
		)
		if err := rows.Scan(&h, &when); err != nil {
			return nil, err
		}
		out[h] = when
	}
	return out, rows.Err()
}

type rowsQueryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// forgotten says whether a staged session must not be stored, given its
// tombstone time (0 if none): it has a tombstone the batch was not asked to
// lift (IncludeForgotten lifts only the one it saw when staging: a forget
// while it ran always wins).
func (b *Batch) forgotten(st staged, when int64) bool {
	return when != 0 && (!b.opts.IncludeForgotten || when != st.revive)
}

type rowQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// isOlderCopy says whether s holds less than the stored copy of itself: its
// last turn is older, or it has fewer turns and they are the stored copy's
// first ones. An unreadable stored file counts as nothing, as before.
func (m *Memory) isOlderCopy(s *funes.Session, storedTurns int, storedUpdated int64, rel string) bool {
	if u := unix(s.Updated()); u != 0 && storedUpdated != 0 && u < storedUpdated {
		return true
	}
	if len(s.Turns) >= storedTurns {
		return false
	}
	f, err := os.Open(filepath.Join(m.dir, rel))
	if err != nil {
		return false
	}
	defer f.Close()
	ss, _, err := funes.ReadSessions(f)
	if err != nil || len(ss) != 1 || len(ss[0].Turns) <= len(s.Turns) {
		return false
	}
	for i, t := range s.Turns {
		st := ss[0].Turns[i]
		if t.TurnUUID != st.TurnUUID || t.Role != st.Role || !t.TS.Equal(st.TS) || !slices.Equal(t.Blocks, st.Blocks) {
			return false
		}
	}
	return true
}

// checkPathFree refuses a new session whose file name another session
// already has, in the index or on disk.
func (m *Memory) checkPathFree(ctx context.Context, q rowQueryer, rel, harness, id string) error {
	if err := checkPathIndexed(ctx, q, rel, harness, id); err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(m.dir, rel))
	if err != nil {
		return nil // nothing there
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadBytes('\n')
	var head struct {
		SessionID string `json:"session_id"`
		Harness   string `json:"harness"`
	}
	if json.Unmarshal(line, &head) != nil || head.SessionID != id || head.Harness != harness {
		return fmt.Errorf("conversation %s (%s) would be stored as %s, which holds another file: %w", id, harness, rel, ErrPathTaken)
	}
	return nil
}

// checkPathIndexed refuses a session whose file name another indexed
// session has.
func checkPathIndexed(ctx context.Context, q rowQueryer, rel, harness, id string) error {
	// The only other session that can hold rel is one whose literal id is
	// its file name, stored before such ids were hashed (two hashed names
	// would need a SHA-256 collision): look it up by that id, on an index.
	var h, sid string
	name := strings.TrimSuffix(filepath.Base(rel), ".funes.jsonl")
	err := q.QueryRowContext(ctx, `SELECT harness, session_id FROM sessions WHERE session_id=? AND path=? AND NOT (harness=? AND session_id=?) LIMIT 1`,
		name, rel, harness, id).Scan(&h, &sid)
	if err == nil {
		return fmt.Errorf("conversation %s (%s) would be stored as %s, which holds conversation %s (%s): %w", id, harness, rel, sid, h, ErrPathTaken)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}

// Staged is how many sessions wait to be committed.
func (b *Batch) Staged() int { return len(b.seen) }

// Holds reports whether the batch will store a copy of the session.
func (b *Batch) Holds(harness, id string) bool {
	i, ok := b.seen[harness+"\x00"+id]
	return ok && b.staged[i].n > 0
}

// Discard drops everything staged and removes the batch's folder, its
// files zeroed first; the memory is unchanged. Every batch ends here,
// committed or not (cancelled, failed, its import stopped). A removed file's
// blocks keep its bytes until the disk reuses them, and the staging file
// holds a copy of every conversation the import read, and of the quotes in
// them: one forgotten or scrubbed later, or while the batch ran, must not
// survive in free space. Zeroing costs one more write of the staging file
// and an fsync: 0.2% of an import of 2,000 conversations (4.7 MB staged,
// ext4, BenchmarkCommitShredsStaging).
func (b *Batch) Discard() {
	b.done = true
	if b.lock == nil {
		return
	}
	b.file.Close()
	removeStaging(b.dir)
	closeLock(b.lock)
	b.lock = nil
	b.m.openBatches.Add(-1)
}

// removeStaging deletes a batch folder, its lock file last; every other
// file is zeroed before it goes.
func removeStaging(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var errs []error
	for _, e := range ents {
		if e.Name() == lockName {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			errs = append(errs, shredTree(p))
			continue
		}
		if err := shred(p); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	}
	os.Remove(filepath.Join(dir, lockName))
	if err := os.Remove(dir); err != nil && !os.IsNotExist(err) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// shredTree shreds every file under dir, then removes it.
func shredTree(dir string) error {
	var errs []error
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if err := shred(p); err != nil && !os.IsNotExist(err) {
				errs = append(errs, err)
			}
		}
		return nil
	})
	return errors.Join(append(errs, os.RemoveAll(dir))...)
}

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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type partResult struct {
		items []item
		ps    []*prepared
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
		var ps []*prepared
		for i, it := range pr.items {
			if _, bad := failed[it.b]; !bad {
				items = append(items, it)
				ps = append(ps, pr.ps[i])
			}
		}
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
		return errs
	}
	if len(todo) > 0 {
		m.metaSet(ctx, m.db, "last_import", time.Now().UTC().Format(time.RFC3339))
	}
	return errs
}

// preparePart reads back and prepares staged sessions in parallel, with an
// error per session that cannot be read back. A session a forget has zeroed
// in the staging file comes back nil.
func preparePart(ctx context.Context, part []item) ([]*prepared, []error, error) {
	out := make([]*prepared, len(part))
	errs := make([]error, len(part))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				b, st := part[i].b, part[i].st
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
				out[i] = prepare(ss[0], data, st.hash)
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

// commitPart stores prepared sessions of one or more batches in one
// transaction, then moves their files into src/. Reports are added to each
// batch only once all of it went well.
func (m *Memory) commitPart(ctx context.Context, ps []*prepared, part []item) error {
	type placed struct {
		b          *Batch
		tmp, final string
		outcome    int // index in outcomes
	}
	var moves []placed
	defer func() {
		// What is still here did not go in place (the part failed), and
		// holds its sessions: zeroed too.
		for _, mv := range moves {
			if err := shred(mv.tmp); err != nil {
				os.Remove(mv.tmp)
			}
		}
	}()
	var outcomes []SessionOutcome
	var owners []*Batch // the batch of each outcome
	err := m.withTx(ctx, func(tx *sql.Tx) error {
		stmts, err := prepareIndexStmts(ctx, tx)
		if err != nil {
			return err
		}
		defer stmts.Close()
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
		for i, p := range ps {
			b, st := part[i].b, part[i].st
			o := SessionOutcome{Harness: st.harness, SessionID: st.id, Title: st.title, Outcome: st.outcome}
			tomb := tombs[hashes[i]]
			if b.forgotten(st, tomb) || p == nil {
				o.Outcome = OutcomeForgotten
				outcomes = append(outcomes, o)
				owners = append(owners, b)
				continue
			}
			if again, err := storedAgain(ctx, tx, st); err != nil {
				return err
			} else if again {
				o.Outcome = outcomeStoredAgain
				outcomes = append(outcomes, o)
				owners = append(owners, b)
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
			if err := m.indexSession(ctx, tx, stmts, p, st.path); err != nil {
				return fmt.Errorf("index session %s: %w", st.id, err)
			}
			if err := deriveProjects(ctx, tx, p.s); err != nil {
				return err
			}
			final := filepath.Join(m.dir, st.path)
			if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
				return err
			}
			b.nIn++
			tmp := filepath.Join(b.dir, fmt.Sprintf("%s%06d", incomingPrefix, b.nIn))
			if err := os.WriteFile(tmp, p.data, 0o600); err != nil {
				return fmt.Errorf("write %s: %w", tmp, err)
			}
			moves = append(moves, placed{b, tmp, final, len(outcomes)})
			outcomes = append(outcomes, o)
			owners = append(owners, b)
		}
		return stmts.flush()
	})
	if err != nil {
		return err
	}
	if afterCommitTx != nil {
		afterCommitTx()
	}
	byDir := map[string][]string{}
	var dirs []string
	for _, mv := range moves {
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
	for _, mv := range moves {
		if err := os.Rename(mv.tmp, mv.final); err != nil {
			return fmt.Errorf("write %s: %w", mv.final, err)
		}
	}
	placedNow := moves
	moves = nil
	// A forget that committed after the transaction may have looked for the
	// file before it was in place: look again, and erase it here.
	hashes := make([]string, len(placedNow))
	for i, mv := range placedNow {
		o := outcomes[mv.outcome]
		hashes[i] = tombstoneHash(o.Harness, o.SessionID)
	}
	tombs, err := tombstoneTimes(ctx, m.db, hashes)
	if err != nil {
		return err
	}
	for i, mv := range placedNow {
		o := &outcomes[mv.outcome]
		if tombs[hashes[i]] != 0 {
			if err := shred(mv.final); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("erase %s: %w", mv.final, err)
			}
			o.Outcome = OutcomeForgotten
		}
	}
	for i, o := range outcomes {
		owners[i].report.add(o)
	}
	return nil
}

// Ingest stages and commits sessions in one call.
func (m *Memory) Ingest(ctx context.Context, sessions []*funes.Session, opts IngestOptions) (IngestReport, error) {
	b, err := m.NewBatch(opts)
	if err != nil {
		return IngestReport{}, err
	}
	for _, s := range sessions {
		if err := b.Add(ctx, s); err != nil {
			b.Discard()
			return IngestReport{}, err
		}
	}
	return b.Commit(ctx, nil)
}

func validate(s *funes.Session) error {
	switch {
	case s == nil:
		return errors.New("nil session")
	case strings.TrimSpace(s.ID) == "":
		return errors.New("session without an id")
	case strings.TrimSpace(s.Harness) == "":
		return fmt.Errorf("session %s: no harness", s.ID)
	case len(s.Turns) == 0:
		return fmt.Errorf("session %s: no turns", s.ID)
	}
	return nil
}

var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// srcPath is where a new session's file goes, relative to the memory
// directory. A stored session keeps the path it was given (sessions.path).
func srcPath(harness, id string) string {
	return filepath.Join(SrcDir, fileName(harness, "h-"), fileName(id, "id-")+".funes.jsonl")
}

// fileName keeps a plain name as it is and hashes anything else behind
// prefix, so no name can escape src/. A name that starts with the prefix
// (in any case) is hashed too: a plain name can never equal a hashed one,
// which keeps the mapping one to one.
func fileName(name, prefix string) string {
	if safeName.MatchString(name) && !strings.Contains(name, "..") && !strings.HasPrefix(strings.ToLower(name), prefix) {
		return name
	}
	return prefix + shortHash(name)
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// tombstoneHash identifies a forgotten session without keeping its text.
func tombstoneHash(harness, id string) string {
	sum := sha256.Sum256([]byte(harness + "\x00" + id))
	return hex.EncodeToString(sum[:])
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

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (m *Memory) isTombstoned(ctx context.Context, harness, id string) (bool, error) {
	when, err := tombstoneTime(ctx, m.db, harness, id)
	return when != 0, err
}
