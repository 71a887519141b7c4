package memory

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
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
// Only conversations stored under a row id above after are looked at (0:
// all); next is the highest row id when it looked, for a later sweep of
// what was imported meanwhile (row ids grow).
func (m *Memory) eraseQuotesOf(ctx context.Context, refs []sessionRef, after int64) (done quotingScrub, next int64, err error) {
	set := newForgetSet(refs)
	if err := m.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM sessions`).Scan(&next); err != nil {
		return done, 0, fmt.Errorf("find conversations that quote it: %w", err)
	}
	cands, err := m.quotingCandidates(ctx, set, after)
	if err != nil || len(cands) == 0 {
		return done, next, err
	}
	passages, err := m.forgottenPassages(ctx, refs)
	if err != nil {
		return done, next, err
	}
	var (
		batch *Batch
		olds  []sessionRef
	)
	for _, ref := range cands {
		if err := ctx.Err(); err != nil {
			if batch != nil {
				batch.Discard()
			}
			return quotingScrub{}, next, err
		}
		s, err := m.loadRef(ref)
		if err == nil {
			n := eraseQuotesInSession(s, set.gone, passages)
			if n == 0 {
				continue
			}
			if batch == nil {
				batch, err = m.NewBatch(IngestOptions{})
			}
			if err == nil {
				err = batch.Add(ctx, s)
			}
			if err == nil {
				olds = append(olds, ref)
				done.conversations++
				done.quotes += n
			}
		}
		if err != nil {
			if batch != nil {
				batch.Discard()
			}
			return quotingScrub{}, next, fmt.Errorf("conversation %s:%s (%s) quotes it: %w", ref.harness, ref.sid, ref.path, err)
		}
	}
	if batch == nil {
		return done, next, nil
	}
	// As scrub does: hard links keep the old files' blocks reachable after
	// the commit renames the rewritten files over them, to be overwritten.
	var links []string
	for _, ref := range olds {
		if l, err := m.linkOld(ref.path); err == nil {
			links = append(links, l)
		}
	}
	_, err = batch.Commit(ctx, nil)
	for _, l := range links {
		shredOld(m.dir, l)
	}
	if err != nil {
		return quotingScrub{}, next, err
	}
	return done, next, nil
}

// forgottenPassages are the searched chunks of the conversations refs
// name (those stored), long enough to look for verbatim.
func (m *Memory) forgottenPassages(ctx context.Context, refs []sessionRef) ([]string, error) {
	var out []string
	for _, r := range refs {
		if r.id == 0 {
			continue
		}
		rows, err := m.db.QueryContext(ctx, `SELECT body FROM chunks WHERE sess=? AND searched AND length(body) >= ?`, r.id, minVerbatimBytes)
		if err != nil {
			return nil, fmt.Errorf("read the text of %s: %w", r.sid, err)
		}
		for rows.Next() {
			var b string
			if err := rows.Scan(&b); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, b)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// quotingCandidates lists the stored conversations above row id after,
// other than the ones forgotten, whose unsearched chunks name one of their
// ids.
func (m *Memory) quotingCandidates(ctx context.Context, set forgetSet, after int64) ([]sessionRef, error) {
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
	ids := map[int64]bool{}
	for len(needles) > 0 {
		part := needles[:min(len(needles), quoteNeedlesPerQuery)]
		needles = needles[len(part):]
		where := strings.TrimSuffix(strings.Repeat("instr(body, ?) > 0 OR ", len(part)), " OR ")
		args := []any{after}
		for _, n := range part {
			args = append(args, n)
		}
		// With after 0, a scan of every chunk: 70-100 ms of CPU on the
		// lifelike 10k memory (281k chunks, warm), as long as counting its
		// unsearched ones takes, in a whole forget of one conversation of
		// 100-160 ms there (2 busy cores, load 2.3-2.5); the later sweep,
		// by the index on sess, 0.2-0.3 ms.
		rows, err := m.db.QueryContext(ctx, `SELECT DISTINCT sess FROM chunks WHERE sess > ? AND NOT searched AND (`+where+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("find conversations that quote it: %w", err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			ids[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
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

// eraseForgottenQuotes erases from a session about to be imported the
// quotes of conversations forgotten before: re-importing an agent's
// transcript, which still holds Ireneo's original answer, must not bring a
// forgotten conversation's text back in another's file. The tombstones are
// read once, on the first receipt met (most sessions have none).
func (m *Memory) eraseForgottenQuotes(ctx context.Context, q rowsQueryer, s *Session) (int, error) {
	var (
		tombs map[string]bool
		seen  = map[[2]string]bool{}
		qerr  error
	)
	gone := func(source, sid string) bool {
		if tombs == nil {
			if tombs, qerr = tombstoneSet(ctx, q); qerr != nil {
				tombs = map[string]bool{}
			}
		}
		if len(tombs) == 0 {
			return false
		}
		k := [2]string{source, sid}
		if v, ok := seen[k]; ok {
			return v
		}
		v := false
		if source != "" {
			v = tombs[tombstoneHash(source, sid)]
		} else {
			for _, h := range []string{HarnessChatGPT, HarnessClaude, HarnessCodex, HarnessClaudeCode, "funes"} {
				v = v || tombs[tombstoneHash(h, sid)]
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

// tombstoneSet is every tombstone's hash.
func tombstoneSet(ctx context.Context, q rowsQueryer) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT hash FROM tombstones`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out[h] = true
	}
	return out, rows.Err()
}

// tombMark tells whether tombstones came or went: their number and latest
// time (a repeated forget moves the time on).
type tombMark struct{ n, last int64 }

func tombstoneMark(ctx context.Context, q rowQueryer) (tombMark, error) {
	var t tombMark
	err := q.QueryRowContext(ctx, `SELECT count(*), coalesce(max(forgotten), 0) FROM tombstones`).Scan(&t.n, &t.last)
	return t, err
}

// requote erases, inside an import's commit, the quotes of conversations
// forgotten since the batch began (the forget ran while it was staged):
// the session is prepared again when any went, else p is returned.
func (m *Memory) requote(ctx context.Context, tx *sql.Tx, p *prepared) (*prepared, error) {
	n, err := m.eraseForgottenQuotes(ctx, tx, p.s)
	if err != nil || n == 0 {
		return p, err
	}
	data, err := MarshalSession(p.s)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", p.s.ID, err)
	}
	sum := sha256.Sum256(data)
	return prepare(p.s, data, hex.EncodeToString(sum[:])), nil
}
