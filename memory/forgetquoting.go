package memory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/indexdoc"
)

// quotingScrub is what erasing the quotes of forgotten conversations from
// other conversations did.
type quotingScrub struct {
	conversations int // other conversations rewritten
	quotes        int // quotes erased from them
}

// forgetSet is the conversations a forget erases, by session id then
// harness.
type forgetSet map[string]map[string]bool

func newForgetSet(refs []sessionRef) forgetSet {
	set := forgetSet{}
	for _, r := range refs {
		if set[r.sid] == nil {
			set[r.sid] = map[string]bool{}
		}
		set[r.sid][r.harness] = true
	}
	return set
}

func (f forgetSet) has(harness, sid string) bool { return f[sid][harness] }

// gone matches a receipt: an answer that names no source matches the id
// under any harness (ids are the sources' own, unique in practice).
func (f forgetSet) gone(source, sid string) bool {
	hs := f[sid]
	if source == "" {
		return len(hs) > 0
	}
	return hs[source]
}

// quoteNeedlesPerQuery bounds the instr() terms of one candidate query,
// well under SQLite's limit on bound parameters.
const quoteNeedlesPerQuery = 300

// eraseQuotesOf erases every quote of the conversations refs name from the
// other stored conversations' Ireneo answers, before those conversations
// themselves go, so a failure here leaves everything as it was and the
// forget can be run again. Candidates are the conversations whose
// unsearched chunks (where Ireneo's answers are kept) hold one of the ids;
// each is read from src/, rewritten with the quotes (found by their
// receipts, and the conversations' own passages found verbatim in answers
// that name them) replaced by ForgottenText, and committed as a re-import
// would: its file replaced atomically, its index rows in one transaction,
// the old file's bytes overwritten. A candidate that cannot be read stops
// the forget: its quotes could not be proved gone.
//
// A candidate an import stores again while this runs (an agent's
// transcript grows while it is being rewritten) is not replaced by the
// rewrite of its older copy: the commit skips it and the newer copy is
// read and rewritten in another round.
//
// Only conversations stored since after are looked at (the zero mark:
// all); next marks when it looked, for a later sweep of what was imported
// meanwhile.
func (m *Memory) eraseQuotesOf(ctx context.Context, refs []sessionRef, after sweepMark) (done quotingScrub, next sweepMark, err error) {
	set := newForgetSet(refs)
	if err := m.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0), CAST(strftime('%s','now') AS INTEGER) FROM sessions`).Scan(&next.id, &next.at); err != nil {
		return done, sweepMark{}, fmt.Errorf("find conversations that quote it: %w", err)
	}
	cands, err := m.quotingCandidates(ctx, set, after)
	if err != nil || len(cands) == 0 {
		return done, next, err
	}
	passages, err := m.forgottenPassages(ctx, refs)
	if err != nil {
		return done, next, err
	}
	for round := 1; ; round++ {
		d, moved, err := m.rewriteQuoting(ctx, cands, set, passages)
		if err != nil {
			return quotingScrub{}, next, err
		}
		done.conversations += d.conversations
		done.quotes += d.quotes
		if len(moved) == 0 {
			return done, next, nil
		}
		if round == quoteRounds {
			r := moved[0]
			if after != (sweepMark{}) {
				// The late sweep: the conversations are forgotten already.
				return done, next, fmt.Errorf("conversation %s:%s was stored again %d times while its quotes were being erased (an import is writing it); its quotes of the forgotten conversations may remain until it is imported again", r.harness, r.sid, round)
			}
			return quotingScrub{}, next, fmt.Errorf("conversation %s:%s was stored again %d times while its quotes were being erased (an import is writing it); run the forget again", r.harness, r.sid, round)
		}
		// An import renames its files into place just after its
		// transaction, once they are synced: give it that moment (0.5 s
		// over the rounds).
		select {
		case <-ctx.Done():
			return quotingScrub{}, next, ctx.Err()
		case <-time.After(time.Duration(round) * 50 * time.Millisecond):
		}
		if cands, err = m.currentRefs(ctx, moved); err != nil {
			return quotingScrub{}, next, fmt.Errorf("find conversations that quote it: %w", err)
		}
	}
}

// sweepMark is when a sweep looked: the highest row id and the database's
// clock (seconds). A session stored later has a higher row id or, when it
// took the id of the row it replaced (SQLite gives a new row the highest
// id plus one, so a re-import of the newest session keeps its id), an
// imported time at or after at.
type sweepMark struct{ id, at int64 }

// quoteRounds bounds the rounds of eraseQuotesOf over candidates stored
// again while it ran (an agent's live transcript may grow every second; a
// round takes milliseconds).
const quoteRounds = 5

// rewriteQuoting is one round of eraseQuotesOf over cands: what it erased
// and committed, and the candidates to read again (stored again meanwhile,
// or their file not yet the copy their row describes).
func (m *Memory) rewriteQuoting(ctx context.Context, cands []sessionRef, set forgetSet, passages []string) (done quotingScrub, moved []sessionRef, err error) {
	var (
		batch  *Batch
		olds   []sessionRef
		quotes = map[[2]string]int{}
	)
	for _, ref := range cands {
		if err := ctx.Err(); err != nil {
			if batch != nil {
				batch.Discard()
			}
			return quotingScrub{}, nil, err
		}
		s, base, err := m.loadStored(ctx, ref)
		if err == nil && s == nil {
			moved = append(moved, ref)
			continue
		}
		if err == nil {
			n := eraseQuotesInSession(s, set.gone, passages)
			if n == 0 {
				continue
			}
			if batch == nil {
				batch, err = m.NewBatch(IngestOptions{})
			}
			held := false
			if err == nil {
				held, err = batch.addRewrite(ctx, s, base)
			}
			if err == nil && !held {
				moved = append(moved, ref) // stored again since it was read
				continue
			}
			if err == nil {
				olds = append(olds, ref)
				quotes[[2]string{s.Harness, s.ID}] = n
			}
		}
		if err != nil {
			if batch != nil {
				batch.Discard()
			}
			return quotingScrub{}, nil, fmt.Errorf("conversation %s:%s (%s) quotes it: %w", ref.harness, ref.sid, ref.path, err)
		}
	}
	if batch == nil {
		return done, moved, nil
	}
	// As scrub does: hard links keep the old files' blocks reachable after
	// the commit renames the rewritten files over them, to be overwritten
	// (shredOld leaves a file the commit did not replace alone).
	var links []string
	for _, ref := range olds {
		if l, err := m.keepOld(ctx, ref.path); err == nil {
			links = append(links, l)
		}
	}
	if beforeQuoteCommit != nil {
		beforeQuoteCommit()
	}
	rep, err := batch.Commit(ctx, nil)
	killPoint("forget-quotes-committed")
	for _, l := range links {
		m.shredKept(l)
	}
	if err != nil {
		return quotingScrub{}, nil, err
	}
	for _, o := range rep.Sessions {
		switch o.Outcome {
		case OutcomeNew, OutcomeUpdated:
			done.conversations++
			done.quotes += quotes[[2]string{o.Harness, o.SessionID}]
		case outcomeStoredAgain:
			moved = append(moved, sessionRef{harness: o.Harness, sid: o.SessionID})
		}
	}
	return done, moved, nil
}

// loadStored reads a candidate's file and the hash of the stored copy its
// row describes: s is nil when the file is not that copy (yet: an import
// renames its file into place after its transaction) or the row is gone.
// A file matches its row by its bytes (an import writes them) or by their
// canonical form (reindex hashes that).
func (m *Memory) loadStored(ctx context.Context, ref sessionRef) (s *funes.Session, hash string, err error) {
	err = m.db.QueryRowContext(ctx, `SELECT hash, path FROM sessions WHERE harness=? AND session_id=?`, ref.harness, ref.sid).Scan(&hash, &ref.path)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	data, err := os.ReadFile(filepath.Join(m.dir, ref.path))
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", fmt.Errorf("conversation %s: source file %s is missing; run `ireneo reindex`", ref.sid, ref.path)
	}
	if err != nil {
		return nil, "", err
	}
	ss, _, err := funes.ReadSessions(bytes.NewReader(data))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", ref.path, err)
	}
	for _, c := range ss {
		if c.ID == ref.sid && c.Harness == ref.harness {
			s = c
		}
	}
	if s == nil {
		return nil, "", fmt.Errorf("%s: conversation %s not in file", ref.path, ref.sid)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) == hash {
		return s, hash, nil
	}
	canon, err := funes.MarshalSession(s)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", ref.path, err)
	}
	if sum := sha256.Sum256(canon); hex.EncodeToString(sum[:]) == hash {
		return s, hash, nil
	}
	return nil, "", nil
}

// currentRefs is the stored rows of refs, by harness and id; a ref no
// longer stored (forgotten meanwhile) is left out.
func (m *Memory) currentRefs(ctx context.Context, refs []sessionRef) ([]sessionRef, error) {
	var out []sessionRef
	for _, r := range refs {
		err := m.db.QueryRowContext(ctx, `SELECT id, path FROM sessions WHERE harness=? AND session_id=?`, r.harness, r.sid).Scan(&r.id, &r.path)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// outcomeStoredAgain is a rewrite the commit skipped: the stored copy is
// no longer the one it was made from. Only eraseQuotesOf's batches have it.
const outcomeStoredAgain = "stored again"

// addRewrite stages s, a rewrite of the stored copy whose hash is base, to
// replace that copy only: the commit skips it (outcomeStoredAgain) when
// another import has stored a different copy meanwhile, whose newer turns
// the rewrite would roll back. It says whether s was staged (not when the
// stored copy changed before this Add).
func (b *Batch) addRewrite(ctx context.Context, s *funes.Session, base string) (bool, error) {
	n := len(b.staged)
	if err := b.Add(ctx, s); err != nil {
		return false, err
	}
	if len(b.staged) == n {
		return false, nil
	}
	b.staged[n].base = base
	return true, nil
}

// storedAgain says, inside a commit's transaction, whether a rewrite's
// stored copy has changed since it was read.
func storedAgain(ctx context.Context, tx *sql.Tx, st staged) (bool, error) {
	if st.base == "" {
		return false, nil
	}
	var hash string
	err := tx.QueryRowContext(ctx, `SELECT hash FROM sessions WHERE harness=? AND session_id=?`, st.harness, st.id).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	return err == nil && hash != st.base, err
}

// forgottenPassages are the searched chunks of the conversations refs
// name (those stored), long enough to look for verbatim.
func (m *Memory) forgottenPassages(ctx context.Context, refs []sessionRef) ([]string, error) {
	var out []string
	for _, r := range refs {
		if r.id == 0 {
			continue
		}
		err := EachRow(ctx, m.db, `SELECT body FROM chunks WHERE sess=? AND searched AND length(body) >= ?`, []any{r.id, minVerbatimBytes}, func(rows *sql.Rows) error {
			var b string
			err := rows.Scan(&b)
			out = append(out, b)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("read the text of %s: %w", r.sid, err)
		}
	}
	return out, nil
}

// beforeQuoteCommit, set only by tests, runs between the rewrite of the
// quoting conversations and its commit.
var beforeQuoteCommit func()

// quotingCandidates lists the stored conversations stored since after,
// other than the ones forgotten, whose unsearched chunks name one of their
// ids.
func (m *Memory) quotingCandidates(ctx context.Context, set forgetSet, after sweepMark) ([]sessionRef, error) {
	var needles []string
	for sid := range set {
		if strings.TrimSpace(sid) == "" {
			continue
		}
		needles = append(needles, sid)
		for _, html := range []bool{false, true} {
			if j := jsonInner(sid, html); j != sid {
				needles = append(needles, j)
			}
		}
	}
	// The sessions stored since a sweep, listed first: an OR of the two
	// tests in the chunks query made SQLite scan every chunk (33 ms on the
	// lifelike 10k memory, against 0.2-0.3 ms by the index on sess).
	var sinceIDs string
	if after.at != 0 {
		var err error
		if sinceIDs, err = m.storedSince(ctx, after); err != nil || sinceIDs == "[]" {
			return nil, err
		}
	}
	ids := map[int64]bool{}
	for len(needles) > 0 {
		part := needles[:min(len(needles), quoteNeedlesPerQuery)]
		needles = needles[len(part):]
		// An id a hard cut split (a chunk of text without a space,
		// such as minified JSON of CJK passages: bestCut fell back to the
		// byte limit) is looked for across the cut too: the end of such a
		// chunk joined to the start of the next part of its block. Only a
		// chunk within a rune of indexdoc.MaxChunkBytes can end at a hard cut; any
		// other cut is at a space or line end, which no id holds.
		where := strings.TrimSuffix(strings.Repeat("instr(body, ?) > 0 OR ", len(part)), " OR ")
		// As blobs, substr counts bytes instead of reading the text for
		// its characters: in a memory whose 5,400 unsearched chunks were
		// 4,800 hard cuts (CJK JSON), the scan took 55 ms against 91 ms as
		// text and 26 ms without this; a chunk that ends at a space costs
		// nothing more.
		across := strings.TrimSuffix(strings.Repeat("instr(substr(CAST(c.body AS BLOB), -?) || substr(CAST(d.body AS BLOB), 1, ?), CAST(? AS BLOB)) > 0 OR ", len(part)), " OR ")
		since, args := `sess > ?`, []any{after.id}
		if after.at != 0 {
			since, args = `sess IN (SELECT value FROM json_each(?))`, []any{sinceIDs}
		}
		for _, n := range part {
			args = append(args, n)
		}
		args = append(args, indexdoc.MaxChunkBytes-utf8.UTFMax+1)
		for _, n := range part {
			args = append(args, len(n), len(n), n)
		}
		// With after 0, a scan of every chunk: 70-100 ms of CPU on the
		// lifelike 10k memory (281k chunks, warm), as long as counting its
		// unsearched ones takes, in a whole forget of one conversation of
		// 100-160 ms there (2 busy cores, load 2.3-2.5); the later sweep,
		// by the index on sess, 0.2-0.3 ms.
		err := EachRow(ctx, m.db, `SELECT DISTINCT sess FROM chunks c WHERE `+since+` AND NOT searched AND (`+where+`
			OR (octet_length(body) >= ? AND EXISTS (SELECT 1 FROM chunks d
				WHERE d.sess = c.sess AND d.seq = c.seq AND d.block = c.block AND d.part = c.part + 1 AND (`+across+`))))`, args, func(rows *sql.Rows) error {
			var id int64
			err := rows.Scan(&id)
			ids[id] = true
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("find conversations that quote it: %w", err)
		}
	}
	var out []sessionRef
	for id := range ids {
		var r sessionRef
		err := m.db.QueryRowContext(ctx, `SELECT id, harness, session_id, path FROM sessions WHERE id=?`, id).Scan(&r.id, &r.harness, &r.sid, &r.path)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !set.has(r.harness, r.sid) {
			out = append(out, r)
		}
	}
	return out, nil
}

// storedSince is the row ids of the sessions stored since mark, as a JSON
// array: a scan of the sessions (imported has no index), 2-4 ms on the
// lifelike 10k memory (load 1.7), in a forget of 100-160 ms there.
func (m *Memory) storedSince(ctx context.Context, mark sweepMark) (string, error) {
	var ids string
	err := m.db.QueryRowContext(ctx, `SELECT coalesce(json_group_array(id), '[]') FROM sessions WHERE id > ? OR imported >= ?`, mark.id, mark.at).Scan(&ids)
	if err != nil {
		return "", fmt.Errorf("find conversations imported meanwhile: %w", err)
	}
	return ids, nil
}

// eraseForgottenQuotes erases from a session about to be imported the
// quotes of conversations forgotten before: re-importing an agent's
// transcript, which still holds Ireneo's original answer, must not bring a
// forgotten conversation's text back in another's file. On the first
// receipt met (most sessions have none) it reads the tombstones when they
// are few; when there are more, it looks up each id met by its tombstone
// hashes, on the tombstones' primary key. Reading every tombstone once per
// session with a receipt made the import of 500 agent transcripts take
// 5.3 s with 20,000 tombstones against 33 ms with none
// (TestImportCostWithTombstones); a query per id made a session with five
// receipts and one tombstone cost 0.31-0.37 ms instead of 0.20-0.27
// (BenchmarkImportForgottenQuotes).
func (m *Memory) eraseForgottenQuotes(ctx context.Context, q Querier, s *funes.Session) (int, error) {
	var (
		tombs map[string]bool // nil until read; all of them when few
		many  bool            // more than fewTombstones: look up each id
		seen  = map[[2]string]bool{}
		qerr  error
	)
	gone := func(source, sid string) bool {
		if tombs == nil {
			tombs, many, qerr = fewTombstoneSet(ctx, q)
			if qerr != nil {
				tombs, many = map[string]bool{}, false
			}
		}
		if len(tombs) == 0 {
			return false
		}
		k := [2]string{source, sid}
		if v, ok := seen[k]; ok {
			return v
		}
		hashes := []string{tombstoneHash(source, sid)}
		if source == "" {
			hashes = hashes[:0]
			for _, h := range funes.Harnesses {
				hashes = append(hashes, tombstoneHash(h, sid))
			}
		}
		v := false
		if many {
			found, err := tombstoneTimes(ctx, q, hashes)
			if err != nil && qerr == nil {
				qerr = err
			}
			v = len(found) > 0
		} else {
			for _, h := range hashes {
				v = v || tombs[h]
			}
		}
		seen[k] = v
		return v
	}
	n := eraseQuotesInSession(s, gone, nil)
	if qerr != nil {
		return 0, fmt.Errorf("session %s: look up forgotten conversations it quotes: %w", s.ID, qerr)
	}
	return n, nil
}

// fewTombstones is how many tombstones eraseForgottenQuotes reads whole.
const fewTombstones = 64

// fewTombstoneSet is every tombstone's hash when there are at most
// fewTombstones; else some of them, and many.
func fewTombstoneSet(ctx context.Context, q Querier) (set map[string]bool, many bool, err error) {
	set = map[string]bool{}
	err = EachRow(ctx, q, `SELECT hash FROM tombstones LIMIT ?`, []any{fewTombstones + 1}, func(rows *sql.Rows) error {
		var h string
		err := rows.Scan(&h)
		set[h] = true
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return set, len(set) > fewTombstones, nil
}

// tombMark tells whether tombstones came or went: their number and latest
// time (a repeated forget moves the time on).
type tombMark struct{ n, last int64 }

func tombstoneMark(ctx context.Context, q Querier) (tombMark, error) {
	var t tombMark
	err := q.QueryRowContext(ctx, `SELECT count(*), coalesce(max(forgotten), 0) FROM tombstones`).Scan(&t.n, &t.last)
	return t, err
}

// requote erases, inside an import's commit, the quotes of conversations
// forgotten since the batch began (the forget ran while it was staged):
// the session is prepared again when any went, else p is returned.
func (m *Memory) requote(ctx context.Context, tx *sql.Tx, p *indexdoc.Prepared) (*indexdoc.Prepared, error) {
	n, err := m.eraseForgottenQuotes(ctx, tx, p.Session)
	if err != nil || n == 0 {
		return p, err
	}
	data, err := funes.MarshalSession(p.Session)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", p.Session.ID, err)
	}
	sum := sha256.Sum256(data)
	return indexdoc.Prepare(p.Session, data, hex.EncodeToString(sum[:])), nil
}
