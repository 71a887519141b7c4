package memory

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ireneo-app/ireneo/indexdoc"
	shredpkg "github.com/ireneo-app/ireneo/shred"

	"github.com/ireneo-app/ireneo/funes"
)

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
	// whole commits every staged session in one transaction
	// (commitWhole), inTx running in it too (a scrub's tag, audit and
	// history rows), so a scrub killed at any moment is all done or not
	// begun.
	whole bool
	inTx  func(ctx context.Context, tx *sql.Tx) error
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
		// A forget or scrub another process left unfinished goes first (a
		// long-running app imports long after its open); not from inside
		// this process's own erase job, whose rewrites batch too.
		if m.erasing.Load() == 0 {
			m.FinishErases(context.Background())
		}
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
	b.m.giveWay(ctx)
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
	// A turn no reader could read back is refused, not stored to be lost.
	if err := checkTurnSizes(s, data); err != nil {
		return err
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
func tombstoneTime(ctx context.Context, q Querier, harness, id string) (int64, error) {
	var when int64
	err := q.QueryRowContext(ctx, `SELECT forgotten FROM tombstones WHERE hash=?`, tombstoneHash(harness, id)).Scan(&when)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return when, err
}

// tombstoneTimes is tombstoneTime for many sessions in one query, by
// tombstone hash; sessions without one are absent.
func tombstoneTimes(ctx context.Context, q Querier, hashes []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(hashes) == 0 {
		return out, nil
	}
	args := make([]any, len(hashes))
	for i, h := range hashes {
		args[i] = h
	}
	return out, EachRow(ctx, q, `SELECT hash, forgotten FROM tombstones WHERE hash IN (?`+strings.Repeat(",?", len(hashes)-1)+`)`, args, func(rows *sql.Rows) error {
		var h string
		var when int64
		err := rows.Scan(&h, &when)
		out[h] = when
		return err
	})
}

// forgotten says whether a staged session must not be stored, given its
// tombstone time (0 if none): it has a tombstone the batch was not asked to
// lift (IncludeForgotten lifts only the one it saw when staging: a forget
// while it ran always wins).
func (b *Batch) forgotten(st staged, when int64) bool {
	return when != 0 && (!b.opts.IncludeForgotten || when != st.revive)
}

// isOlderCopy says whether s holds less than the stored copy of itself: its
// last turn is older, or it has fewer turns and they are the stored copy's
// first ones. An unreadable stored file counts as nothing, as before.
func (m *Memory) isOlderCopy(s *funes.Session, storedTurns int, storedUpdated int64, rel string) bool {
	if u := indexdoc.Unix(s.Updated()); u != 0 && storedUpdated != 0 && u < storedUpdated {
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
func (m *Memory) checkPathFree(ctx context.Context, q Querier, rel, harness, id string) error {
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
func checkPathIndexed(ctx context.Context, q Querier, rel, harness, id string) error {
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
	shredpkg.Folder(b.dir, lockName)
	closeLock(b.lock)
	b.lock = nil
	b.m.openBatches.Add(-1)
}
