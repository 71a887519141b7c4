package memory

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Outcomes of ingesting one session.
const (
	OutcomeNew       = "new"
	OutcomeUpdated   = "updated"
	OutcomeUnchanged = "unchanged"
	OutcomeForgotten = "forgotten"
)

// IngestOptions tunes an ingest.
type IngestOptions struct {
	// IncludeForgotten brings back sessions that were forgotten.
	IncludeForgotten bool
	// Redact, if set, edits each session in place before it is written or
	// indexed and returns its redactions per rule id.
	Redact func(*Session) map[string]int
}

// IngestReport says what an ingest did.
type IngestReport struct {
	New       int              `json:"new"`
	Updated   int              `json:"updated"`
	Unchanged int              `json:"unchanged"`
	Forgotten int              `json:"forgotten"`
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
	}
	r.Sessions = append(r.Sessions, o)
}

// Merge adds another report's counts to r.
func (r *IngestReport) Merge(o IngestReport) {
	r.New += o.New
	r.Updated += o.Updated
	r.Unchanged += o.Unchanged
	r.Forgotten += o.Forgotten
	for k, v := range o.Redacted {
		if r.Redacted == nil {
			r.Redacted = map[string]int{}
		}
		r.Redacted[k] += v
	}
	r.Sessions = append(r.Sessions, o.Sessions...)
}

// Batch stages sessions on disk and commits them together, so that a parse
// that fails half way changes nothing, and memory stays bounded however big
// the export.
type Batch struct {
	m      *Memory
	opts   IngestOptions
	dir    string
	file   *os.File // staged sessions, appended one after another
	size   int64
	staged []staged
	seen   map[string]int // key → index in staged
	report IngestReport
	done   bool
}

type staged struct {
	harness, id, title string
	hash               string
	off, n             int64 // where its funes jsonl lies in the staging file; n is 0 when superseded
	outcome            string
}

// NewBatch starts a batch.
func (m *Memory) NewBatch(opts IngestOptions) (*Batch, error) {
	root := filepath.Join(m.dir, ".staging")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(root, "batch-")
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "staged.jsonl"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Batch{m: m, opts: opts, dir: dir, file: f, seen: map[string]int{}}, nil
}

// Add checks a session and stages it unless it is unchanged or forgotten.
func (b *Batch) Add(ctx context.Context, s *Session) error {
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
	data, err := MarshalSession(s)
	if err != nil {
		return fmt.Errorf("session %s: %w", s.ID, err)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	out := SessionOutcome{Harness: s.Harness, SessionID: s.ID, Title: s.Title}

	if !b.opts.IncludeForgotten {
		forgotten, err := b.m.isTombstoned(ctx, s.Harness, s.ID)
		if err != nil {
			return err
		}
		if forgotten {
			out.Outcome = OutcomeForgotten
			b.report.add(out)
			return nil
		}
	}
	var old string
	err = b.m.db.QueryRowContext(ctx, `SELECT hash FROM sessions WHERE harness=? AND session_id=?`, s.Harness, s.ID).Scan(&old)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		out.Outcome = OutcomeNew
	case err != nil:
		return err
	case old == hash:
		out.Outcome = OutcomeUnchanged
		b.report.add(out)
		return nil
	default:
		out.Outcome = OutcomeUpdated
	}
	key := s.Harness + "\x00" + s.ID
	if i, dup := b.seen[key]; dup {
		// The same conversation twice in one input: the later copy wins.
		b.staged[i].n = 0
	}
	if _, err := b.file.Write(data); err != nil {
		return fmt.Errorf("stage session %s: %w", s.ID, err)
	}
	b.seen[key] = len(b.staged)
	b.staged = append(b.staged, staged{harness: s.Harness, id: s.ID, title: s.Title, hash: hash, off: b.size, n: int64(len(data)), outcome: out.Outcome})
	b.size += int64(len(data))
	return nil
}

// Staged is how many sessions wait to be committed.
func (b *Batch) Staged() int { return len(b.seen) }

// Discard drops everything staged; the memory is unchanged.
func (b *Batch) Discard() {
	b.done = true
	b.file.Close()
	os.RemoveAll(b.dir)
}

// commitChunk is how many sessions go in one transaction: each session is
// replaced atomically, and a long import doesn't hold the write lock for minutes.
const commitChunk = 250

// Commit indexes and writes every staged session. Sessions are prepared on
// all cores, a part ahead of the writer, and written a part per transaction.
func (b *Batch) Commit(ctx context.Context, progress func(done, total int)) (IngestReport, error) {
	if b.done {
		return b.report, errors.New("batch already finished")
	}
	defer b.Discard()
	var todo []staged
	for _, st := range b.staged {
		if st.n > 0 {
			todo = append(todo, st)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type partResult struct {
		ps  []*prepared
		err error
	}
	parts := make(chan partResult, 1)
	go func() {
		defer close(parts)
		for start := 0; start < len(todo); start += commitChunk {
			ps, err := b.preparePart(ctx, todo[start:min(start+commitChunk, len(todo))])
			select {
			case parts <- partResult{ps, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	done := 0
	for pr := range parts {
		if pr.err != nil {
			return b.report, pr.err
		}
		if err := b.commitPart(ctx, pr.ps, todo[done:done+len(pr.ps)]); err != nil {
			return b.report, err
		}
		done += len(pr.ps)
		if progress != nil {
			progress(done, len(todo))
		}
	}
	if err := ctx.Err(); err != nil {
		return b.report, err
	}
	if len(todo) > 0 {
		b.m.metaSet(ctx, b.m.db, "last_import", time.Now().UTC().Format(time.RFC3339))
	}
	return b.report, nil
}

// preparePart reads back and prepares staged sessions in parallel.
func (b *Batch) preparePart(ctx context.Context, part []staged) ([]*prepared, error) {
	out := make([]*prepared, len(part))
	errs := make([]error, len(part))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				st := part[i]
				data := make([]byte, st.n)
				if _, err := b.file.ReadAt(data, st.off); err != nil {
					errs[i] = fmt.Errorf("staged session %s: %w", st.id, err)
					continue
				}
				ss, _, err := ReadSessions(bytes.NewReader(data))
				if err != nil || len(ss) != 1 {
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
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (b *Batch) commitPart(ctx context.Context, ps []*prepared, part []staged) error {
	type placed struct{ tmp, final string }
	var moves []placed
	defer func() {
		for _, mv := range moves {
			os.Remove(mv.tmp)
		}
	}()
	var outcomes []SessionOutcome
	err := b.m.withTx(ctx, func(tx *sql.Tx) error {
		stmts, err := prepareIndexStmts(ctx, tx)
		if err != nil {
			return err
		}
		defer stmts.Close()
		for i, p := range ps {
			s := p.s
			rel := srcPath(s.Harness, s.ID)
			if err := b.m.indexSession(ctx, tx, stmts, p, rel); err != nil {
				return fmt.Errorf("index session %s: %w", s.ID, err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM tombstones WHERE hash=?`, tombstoneHash(s.Harness, s.ID)); err != nil {
				return err
			}
			if err := deriveProjects(ctx, tx, s); err != nil {
				return err
			}
			final := filepath.Join(b.m.dir, rel)
			if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
				return err
			}
			tmp := final + ".incoming"
			if err := os.WriteFile(tmp, p.data, 0o600); err != nil {
				return fmt.Errorf("write %s: %w", tmp, err)
			}
			moves = append(moves, placed{tmp, final})
			outcomes = append(outcomes, SessionOutcome{Harness: s.Harness, SessionID: s.ID, Title: s.Title, Outcome: part[i].outcome})
		}
		return nil
	})
	if err != nil {
		return err
	}
	tmps := make([]string, len(moves))
	for i, mv := range moves {
		tmps[i] = mv.tmp
	}
	if err := syncFiles(filepath.Join(b.m.dir, SrcDir), tmps); err != nil {
		return err
	}
	for _, mv := range moves {
		if err := os.Rename(mv.tmp, mv.final); err != nil {
			return fmt.Errorf("write %s: %w", mv.final, err)
		}
	}
	moves = nil
	for _, o := range outcomes {
		b.report.add(o)
	}
	return nil
}

// Ingest stages and commits sessions in one call.
func (m *Memory) Ingest(ctx context.Context, sessions []*Session, opts IngestOptions) (IngestReport, error) {
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

func validate(s *Session) error {
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

// srcPath is where a session's file lives, relative to the memory directory.
// Ids that are not plain file names are hashed, so no id can escape src/.
func srcPath(harness, id string) string {
	h := harness
	if !safeName.MatchString(h) {
		h = "h-" + shortHash(harness)
	}
	name := id
	if !safeName.MatchString(name) || strings.Contains(name, "..") {
		name = "id-" + shortHash(id)
	}
	return filepath.Join(SrcDir, h, name+".funes.jsonl")
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

func (m *Memory) isTombstoned(ctx context.Context, harness, id string) (bool, error) {
	var one int
	err := m.db.QueryRowContext(ctx, `SELECT 1 FROM tombstones WHERE hash=?`, tombstoneHash(harness, id)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// deriveProjects tags a session with its derived project the first time
// Ireneo sees it; later imports leave the person's tags alone.
func deriveProjects(ctx context.Context, tx *sql.Tx, s *Session) error {
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
