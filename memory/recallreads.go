package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
)

// The recall pipeline's reads (package recall). A recall reads the memory
// in one snapshot (RecallSnapshot: one read transaction, however other
// processes write): the candidates with what ranking reads of them, then
// the turns it shows. Nothing here changes the memory.

// RecallQuery is what one recall reads before it ranks: the engine's
// candidates under the request's filters, and what the ranking stages ask
// of them.
type RecallQuery struct {
	Query  engine.Query // terms and K; Allow is set from the filters below
	Params engine.Params
	Source string // harness; "" for any
	Since  time.Time
	Until  time.Time
	// Project: that project plus untagged conversations; "" means all.
	Project string
	// ProjectOnly drops the untagged conversations from Project; Untagged
	// keeps only conversations with no project (a person browsing).
	ProjectOnly, Untagged bool
	Scope                 []string // nil: no scope; empty: nothing
	// CheckExact also scores every match and fails if the pruned top-k
	// differs (the bench's proof of the engine's pruning).
	CheckExact bool
	// SpanSince and SpanUntil, when either is set, also read the best
	// Query.K turns inside [SpanSince, SpanUntil) (within the filters
	// above) and merge them into the candidates: the days a question
	// names, whose turns may rank below the first K of all.
	SpanSince, SpanUntil time.Time

	// Words are the query's words whose index term and document frequency
	// ranking weighs them by (RecallSnapshot.DF, Stems).
	Words []string
	// TextBytes, above 0, reads up to that many bytes of each candidate
	// turn's searched text (Candidate.Text).
	TextBytes int
	// Around, above 0, reads the searched chunks of the turns up to Around
	// before and after each of the first AroundOf candidates
	// (RecallSnapshot.Around).
	Around, AroundOf int
	// ChunkCounts reads how many chunks each candidate's turn was cut into
	// (Candidate.Chunks).
	ChunkCounts bool
	// Previews reads each candidate's preview (Candidate.Preview).
	Previews bool
	// Show is the most turns Shown will be asked for (its statements are
	// prepared before the snapshot takes its connection), and Neighbours
	// whether it shows each with the previews of the turns around it.
	Show       int
	Neighbours bool
}

// Candidate is one turn the engine found: what ranking needs of it. Its
// conversation's names and the turn's uuid are read for the few hits shown
// (Shown).
type Candidate struct {
	Sess int64 // the conversation's row id
	Seq  int
	BM25 float64 // the engine's BM25F score, negated: lower is better, as FTS5's bm25() was
	// Turn is the turn's own BM25F score; for a long turn Passage is its
	// best passage (engine.Passages of its searched text; -1 for none) and
	// PassageScore that passage's, of which BM25 took the larger (weighed
	// by engine.Params.Passage).
	Turn         float64
	Passage      int
	PassageScore float64
	Role         string
	TS           int64 // Unix seconds; 0 when undated
	Starred      bool
	// Fields says, per term of the query, which of the turn's fields hold it.
	Fields []engine.FieldMask
	Text   string // its searched text, when asked (RecallQuery.TextBytes)
	Chunks int    // its searched chunks, when asked (RecallQuery.ChunkCounts)
	// Preview is its preview as import cut it (the first previewRunes
	// runes of what was said, on one line, "…" when cut), when asked
	// (RecallQuery.Previews).
	Preview string
}

// RecallSnapshot is one recall's read of the memory: the candidates and the
// statistics they are weighed by, read in one read transaction that stays
// open for Shown, so the turns shown are those the candidates named however
// other processes import or forget meanwhile. Close it.
type RecallSnapshot struct {
	Candidates []Candidate       // best first, at most Query.K
	Docs       int               // turns in the memory (engine documents)
	DF         map[string]int    // each of Words: the turns holding its index term
	Stems      map[string]string // each of Words: its index term ("" when the index would hold none)
	// Around holds the searched chunk bodies, in order, of the turns around
	// the candidates asked for (RecallQuery.Around).
	Around map[TurnKey][]string

	tx         *sql.Tx
	show       int         // Shown's list length its statements were prepared for
	stmts      []*sql.Stmt // Shown's, for show turns
	neighbours bool
}

// ReadCandidates opens a recall's snapshot and reads its candidates: the
// engine's best turns, with the filters applied inside its search (so the
// filtered top-k is exact), and what q asks of them.
func (m *Memory) ReadCandidates(ctx context.Context, q RecallQuery) (_ *RecallSnapshot, err error) {
	s := &RecallSnapshot{show: padLen(max(q.Show, 1)), neighbours: q.Neighbours}
	// Prepared before the transaction takes its connection: preparing on
	// the pool inside it waited for a connection that every other reader,
	// each in a transaction of its own, held (TestShownTurnsConcurrent).
	if s.stmts, err = m.stmts.prepare(ctx, m.db, shownQueries(s.show, s.neighbours)...); err != nil {
		return nil, fmt.Errorf("recall: shown turns: %w", err)
	}
	if s.tx, err = m.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}); err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	st, err := engine.ReadStats(ctx, s.tx)
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	s.Docs = int(st.Docs)
	if s.DF, s.Stems, err = m.stats.frequencies(ctx, s.tx, st.Gen, q.Words); err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	if s.Candidates, err = m.candidates(ctx, s.tx, q); err != nil {
		return nil, err
	}
	keys := make([]TurnKey, len(s.Candidates))
	for i, c := range s.Candidates {
		keys[i] = TurnKey{c.Sess, c.Seq}
	}
	if q.TextBytes > 0 {
		texts, err := turnTexts(ctx, s.tx, keys, q.TextBytes)
		if err != nil {
			return nil, fmt.Errorf("recall: candidates' text: %w", err)
		}
		for i := range s.Candidates {
			s.Candidates[i].Text = texts[keys[i]]
		}
	}
	if q.ChunkCounts {
		n, err := turnChunkCounts(ctx, s.tx, keys)
		if err != nil {
			return nil, fmt.Errorf("recall: candidates' chunks: %w", err)
		}
		for i := range s.Candidates {
			s.Candidates[i].Chunks = n[keys[i]]
		}
	}
	if q.Previews {
		if err := turnPreviews(ctx, s.tx, s.Candidates); err != nil {
			return nil, fmt.Errorf("recall: candidates' previews: %w", err)
		}
	}
	if q.Around > 0 {
		if s.Around, err = turnsAround(ctx, s.tx, keys[:min(len(keys), max(q.AroundOf, 0))], q.Around); err != nil {
			return nil, fmt.Errorf("recall: turns around candidates: %w", err)
		}
	}
	return s, nil
}

// Close ends the snapshot.
func (s *RecallSnapshot) Close() {
	if s.tx != nil {
		s.tx.Rollback()
		s.tx = nil
	}
}

// candidates asks the engine for the best turns in tx, and for the best
// inside the query's span when it has one, best first.
func (m *Memory) candidates(ctx context.Context, tx *sql.Tx, cq RecallQuery) ([]Candidate, error) {
	cands, err := m.search(ctx, tx, cq)
	if err != nil || cq.SpanSince.IsZero() && cq.SpanUntil.IsZero() {
		return cands, err
	}
	sq := cq
	if !cq.SpanSince.IsZero() && (sq.Since.IsZero() || cq.SpanSince.After(sq.Since)) {
		sq.Since = cq.SpanSince
	}
	if !cq.SpanUntil.IsZero() && (sq.Until.IsZero() || cq.SpanUntil.Before(sq.Until)) {
		sq.Until = cq.SpanUntil
	}
	in, err := m.search(ctx, tx, sq)
	if err != nil {
		return nil, err
	}
	have := make(map[TurnKey]bool, len(cands))
	for _, c := range cands {
		have[TurnKey{c.Sess, c.Seq}] = true
	}
	for _, c := range in {
		if !have[TurnKey{c.Sess, c.Seq}] {
			cands = append(cands, c)
		}
	}
	// Best first; the order of equals as each search gave it.
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].BM25 < cands[j].BM25 })
	return cands, nil
}

// search asks the engine for the best Query.K turns under the filters.
func (m *Memory) search(ctx context.Context, tx *sql.Tx, cq RecallQuery) ([]Candidate, error) {
	q := cq.Query
	q.Cache = m.engCache
	// The engine breaks ties by document id, which a restore or re-import
	// changes: it keeps the turns tied with the K-th too, and they are
	// ordered here by what the turn is, then cut.
	q.Ties = max(tieCap*q.K, minTies)
	var err error
	if q.Allow, err = m.docFilter(ctx, tx, cq); err != nil {
		return nil, err
	}
	var st engine.SearchStats
	if q.Stats == nil {
		q.Stats = &st
	}
	hits, err := engine.Search(ctx, tx, q, cq.Params)
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	gen := q.Stats.Gen
	if cq.CheckExact {
		q.Cache, q.Stats = nil, nil // the reference reads the database itself
		all, err := engine.SearchExhaustive(ctx, tx, q, cq.Params)
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		if err := sameHits(hits, all); err != nil {
			return nil, err
		}
	}
	cands, err := turnCandidates(ctx, tx, hits, m.turnCache, gen)
	if err != nil {
		return nil, err
	}
	if err := orderTies(ctx, tx, cands); err != nil {
		return nil, err
	}
	return cands[:min(len(cands), max(cq.Query.K, 0))], nil
}

// tieCap and minTies bound the turns tied with the K-th best that the
// engine keeps: max(K·tieCap, minTies). Past that many (a one-word query
// over many turns alike) the ones left out are those of the highest row
// ids; below it, reading the ties' turns costs little more than K's.
const tieCap, minTies = 2, 32

// orderTies orders candidates of equal score, in place, by the turn's time,
// its conversation (harness, session id) and its seq: keys a turn keeps
// through a backup's restore or a re-import, where row ids do not.
func orderTies(ctx context.Context, q queryer, cs []Candidate) error {
	var tied []int64 // conversations of tied candidates
	for i := 1; i < len(cs); i++ {
		if cs[i].BM25 == cs[i-1].BM25 {
			tied = append(tied, cs[i-1].Sess, cs[i].Sess)
		}
	}
	if len(tied) == 0 {
		return nil
	}
	names, err := sessionNames(ctx, q, tied)
	if err != nil {
		return err
	}
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && cs[j].BM25 == cs[i].BM25 {
			j++
		}
		run := cs[i:j]
		sort.SliceStable(run, func(a, b int) bool {
			x, y := run[a], run[b]
			if x.TS != y.TS {
				return x.TS < y.TS
			}
			if nx, ny := names[x.Sess], names[y.Sess]; nx != ny {
				return nx[0] < ny[0] || nx[0] == ny[0] && nx[1] < ny[1]
			}
			return x.Seq < y.Seq
		})
		i = j
	}
	return nil
}

// sessionNames reads the (harness, session id) of conversations by row id.
func sessionNames(ctx context.Context, q queryer, ids []int64) (map[int64][2]string, error) {
	out := make(map[int64][2]string, len(ids))
	list := make([]string, 0, len(ids))
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			out[id] = [2]string{}
			list = append(list, strconv.FormatInt(id, 10))
		}
	}
	rows, err := q.QueryContext(ctx, `SELECT id, harness, session_id FROM sessions WHERE id IN (`+strings.Join(list, ",")+`)`)
	if err != nil {
		return nil, fmt.Errorf("recall: order tied turns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var n [2]string
		if err := rows.Scan(&id, &n[0], &n[1]); err != nil {
			return nil, fmt.Errorf("recall: order tied turns: %w", err)
		}
		out[id] = n
	}
	return out, rows.Err()
}

// sameHits says where a pruned top-k differs from the exhaustive one.
func sameHits(got, want []engine.Hit) error {
	if len(got) != len(want) {
		return fmt.Errorf("engine: pruned search found %d hits, exhaustive %d", len(got), len(want))
	}
	for i := range got {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) || got[i].Score != want[i].Score || got[i].Turn != want[i].Turn || got[i].PassageScore != want[i].PassageScore {
			return fmt.Errorf("engine: pruned hit %d is %+v, exhaustive %+v", i, got[i], want[i])
		}
	}
	return nil
}

// docFilter is the query's filters as a test on engine documents: nil when
// there are none.
func (m *Memory) docFilter(ctx context.Context, q queryer, cq RecallQuery) (func(uint64) bool, error) {
	var where []string
	var args []any
	if cq.Source != "" {
		where = append(where, "s.harness = ?")
		args = append(args, cq.Source)
	}
	w, a := projectFilter("s", cq.Project, cq.ProjectOnly, cq.Untagged, cq.Scope)
	where = append(where, w...)
	args = append(args, a...)
	timed := !cq.Since.IsZero() || !cq.Until.IsZero()
	if len(where) == 0 && !timed {
		return nil, nil
	}
	if !timed {
		sess := map[int64]bool{}
		rows, err := q.QueryContext(ctx, `SELECT s.id FROM sessions s WHERE `+strings.Join(where, " AND "), args...)
		if err != nil {
			return nil, fmt.Errorf("recall: filter: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			sess[id] = true
		}
		return func(doc uint64) bool { return sess[docSession(doc)] }, rows.Err()
	}
	// The conversations whose time overlaps the span first (a conversation
	// runs from its first dated turn to its latest), then their turns by
	// the table's key: scanning every turn's time cost a month's span
	// 0.2 s of CPU on the heavy memory.
	if !cq.Since.IsZero() {
		where = append(where, "s.updated >= ?", "t.ts >= ?")
		args = append(args, cq.Since.Unix(), cq.Since.Unix())
	}
	if !cq.Until.IsZero() {
		where = append(where, "s.started < ?", "t.ts < ?")
		args = append(args, cq.Until.Unix(), cq.Until.Unix())
	}
	docs := map[uint64]bool{}
	rows, err := q.QueryContext(ctx, `SELECT t.sess, t.seq FROM sessions s CROSS JOIN turns t ON t.sess = s.id WHERE `+strings.Join(where, " AND "), args...)
	if err != nil {
		return nil, fmt.Errorf("recall: filter: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sess int64
		var seq int
		if err := rows.Scan(&sess, &seq); err != nil {
			return nil, err
		}
		docs[docID(sess, seq)] = true
	}
	return func(doc uint64) bool { return docs[doc] }, rows.Err()
}

// turnCandidates reads the turns behind the engine's hits, best first:
// their role and time from tc when an earlier recall of this index
// generation read them, from the turns table otherwise.
func turnCandidates(ctx context.Context, q queryer, hits []engine.Hit, tc *turnCache, gen int64) ([]Candidate, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	out := make([]Candidate, len(hits))
	found := make([]bool, len(hits))
	var keys []TurnKey
	at := map[uint64]int{}
	tc.lookup(gen, hits, func(i int, tm turnMeta) {
		out[i] = Candidate{Sess: docSession(hits[i].Doc), Seq: docSeq(hits[i].Doc), Role: tm.role, TS: tm.ts}
		found[i] = true
	})
	for i, h := range hits {
		if !found[i] {
			keys = append(keys, TurnKey{docSession(h.Doc), docSeq(h.Doc)})
			at[h.Doc] = i
		}
	}
	if len(keys) > 0 {
		set, args := turnSet(keys)
		rows, err := q.QueryContext(ctx, `SELECT sess, seq, role, ts FROM turns WHERE (sess, seq) IN (`+set+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		defer rows.Close()
		read := make(map[uint64]turnMeta, len(keys))
		for rows.Next() {
			var c Candidate
			if err := rows.Scan(&c.Sess, &c.Seq, &c.Role, &c.TS); err != nil {
				return nil, err
			}
			i, ok := at[docID(c.Sess, c.Seq)]
			if !ok {
				continue
			}
			out[i], found[i] = c, true
			read[docID(c.Sess, c.Seq)] = turnMeta{internRole(c.Role), c.TS}
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		tc.add(gen, read)
	}
	for i := range out {
		h := &hits[i]
		out[i].BM25, out[i].Fields = -h.Score, h.Fields
		out[i].Turn, out[i].Passage, out[i].PassageScore = h.Turn, h.Passage, h.PassageScore
	}
	starred, err := starredSessions(ctx, q)
	if err != nil {
		return nil, err
	}
	// Within one snapshot every hit has its turn; one that had not is dropped.
	kept := out[:0]
	for i, c := range out {
		if found[i] {
			c.Starred = starred[c.Sess]
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// starredSessions are the row ids of the starred conversations (few).
func starredSessions(ctx context.Context, q queryer) (map[int64]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT s.id FROM stars st JOIN sessions s ON s.harness = st.harness AND s.session_id = st.session_id WHERE st.starred`)
	if err != nil {
		return nil, fmt.Errorf("recall: stars: %w", err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// TurnInfo names a turn for its receipt.
type TurnInfo struct {
	Harness   string
	SessionID string
	Title     string
	TurnUUID  string
}

// TurnInfos reads the receipts of turns; a turn gone since is missing.
func (m *Memory) TurnInfos(ctx context.Context, turns []TurnKey) (map[TurnKey]TurnInfo, error) {
	out := make(map[TurnKey]TurnInfo, len(turns))
	if len(turns) == 0 {
		return out, nil
	}
	set, args := turnSet(turns)
	rows, err := m.db.QueryContext(ctx, `SELECT t.sess, t.seq, s.harness, s.session_id, s.title, t.turn_uuid
		FROM turns t JOIN sessions s ON s.id = t.sess WHERE (t.sess, t.seq) IN (`+set+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k TurnKey
		var ti TurnInfo
		if err := rows.Scan(&k.Sess, &k.Seq, &ti.Harness, &ti.SessionID, &ti.Title, &ti.TurnUUID); err != nil {
			return nil, err
		}
		out[k] = ti
	}
	return out, rows.Err()
}

// Chunk is one chunk of a turn, for display and the budget.
type Chunk struct {
	ID       int64
	Body     string
	Tokens   int // o200k, counted at import
	Searched bool
}

// TurnChunks reads a turn's chunks in order.
func (m *Memory) TurnChunks(ctx context.Context, turn TurnKey) ([]Chunk, error) {
	rows, err := m.db.QueryContext(ctx, `SELECT id, body, tokens, searched FROM chunks WHERE sess=? AND seq=? ORDER BY block, part`, turn.Sess, turn.Seq)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Chunk
	for rows.Next() {
		var c Chunk
		if err := rows.Scan(&c.ID, &c.Body, &c.Tokens, &c.Searched); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// turnTexts reads the searched text of turns, at most limit bytes of each.
func turnTexts(ctx context.Context, q queryer, turns []TurnKey, limit int) (map[TurnKey]string, error) {
	out := make(map[TurnKey]string, len(turns))
	if len(turns) == 0 {
		return out, nil
	}
	set, args := turnSet(turns)
	rows, err := q.QueryContext(ctx, `SELECT sess, seq, body FROM chunks WHERE searched AND (sess, seq) IN (`+set+`) ORDER BY sess, seq, block, part`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k TurnKey
		var body string
		if err := rows.Scan(&k.Sess, &k.Seq, &body); err != nil {
			return nil, err
		}
		if t := out[k]; len(t) < limit {
			if t != "" {
				t += "\n\n"
			}
			if len(t)+len(body) > limit {
				body = body[:max(0, limit-len(t))]
			}
			out[k] = t + body
		}
	}
	return out, rows.Err()
}

// TurnKey names a turn by its conversation's row id and its seq.
type TurnKey struct {
	Sess int64
	Seq  int
}

// turnSet renders turns as an SQL row-value list, "VALUES (?,?),…", with
// its arguments, for `(sess, seq) IN (…)`; turns must not be empty.
func turnSet(turns []TurnKey) (string, []any) {
	vals := make([]string, len(turns))
	args := make([]any, 0, 2*len(turns))
	for i, k := range turns {
		vals[i] = "(?,?)"
		args = append(args, k.Sess, k.Seq)
	}
	return "VALUES " + strings.Join(vals, ","), args
}

// turnChunkCounts says how many searched chunks each turn was cut into.
func turnChunkCounts(ctx context.Context, q queryer, turns []TurnKey) (map[TurnKey]int, error) {
	n := map[TurnKey]int{}
	for _, k := range turns {
		n[k] = 0
	}
	if len(turns) == 0 {
		return n, nil
	}
	set, args := turnSet(turns)
	rows, err := q.QueryContext(ctx, `SELECT sess, seq, count(*) FROM chunks WHERE searched AND (sess, seq) IN (`+set+`) GROUP BY sess, seq`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k TurnKey
		var c int
		if err := rows.Scan(&k.Sess, &k.Seq, &c); err != nil {
			return nil, err
		}
		n[k] = c
	}
	return n, rows.Err()
}

// turnsAround reads the searched chunk bodies, in order, of the turns up to
// n before and after each given turn in its conversation (the turn itself
// left out).
func turnsAround(ctx context.Context, q queryer, turns []TurnKey, n int) (map[TurnKey][]string, error) {
	out := map[TurnKey][]string{}
	if len(turns) == 0 {
		return out, nil
	}
	var where []string
	var args []any
	for _, k := range turns {
		where = append(where, "(c.sess = ? AND c.seq BETWEEN ? AND ? AND c.seq != ?)")
		args = append(args, k.Sess, k.Seq-n, k.Seq+n, k.Seq)
	}
	rows, err := q.QueryContext(ctx, `SELECT c.sess, c.seq, c.body FROM chunks c
		WHERE c.searched AND (`+strings.Join(where, " OR ")+`) ORDER BY c.sess, c.seq, c.block, c.part`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k TurnKey
		var body string
		if err := rows.Scan(&k.Sess, &k.Seq, &body); err != nil {
			return nil, err
		}
		out[k] = append(out[k], body)
	}
	return out, rows.Err()
}

// turnPreviews fills in each candidate's preview: the stored one, else (a
// turn keeps none of its own text) cut from its first chunks as import did.
func turnPreviews(ctx context.Context, q queryer, cs []Candidate) error {
	if len(cs) == 0 {
		return nil
	}
	keys := make([]TurnKey, len(cs))
	at := make(map[TurnKey]int, len(cs))
	for i, c := range cs {
		keys[i] = TurnKey{c.Sess, c.Seq}
		at[keys[i]] = i
	}
	set, args := turnSet(keys)
	rows, err := q.QueryContext(ctx, `SELECT t.sess, t.seq, t.preview, `+previewSQL+` FROM turns t WHERE (t.sess, t.seq) IN (`+set+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k TurnKey
		var p, said string
		if err := rows.Scan(&k.Sess, &k.Seq, &p, &said); err != nil {
			return err
		}
		if p == "" {
			p = preview(said, previewRunes)
		}
		if i, ok := at[k]; ok {
			cs[i].Preview = p
		}
	}
	return rows.Err()
}

// Preview is the short preview of one turn, as import cut it.
type Preview struct {
	Seq  int
	Role string
	Text string
}

// ShownTurn is what a recalled turn is shown with.
type ShownTurn struct {
	TurnInfo
	Role     string
	TS       int64    // Unix seconds; 0 when undated
	Projects []string // its conversation's, sorted; empty, not nil, when none
	Chunks   []Chunk  // in order
	// Neighbours are the previews of the turns just before and after it,
	// in order, when asked for; empty previews are left out.
	Neighbours []Preview
	// Reply, for a turn Shown was asked the reply of, is the turn that
	// answers it: the other speaker's (a person's or an assistant's) last
	// turn that says something before the asker speaks again, within
	// replyReach turns (an agent's steps end in its answer); nil when
	// there is none.
	Reply *ShownTurn
	// ReplySeq is Reply's seq.
	ReplySeq int
}

// replyReach is how many turns after a question its reply is looked for:
// an agent's tool calls and their results come between the two.
const replyReach = 6

// shownQueries are Shown's three statements for a list of n turns (and as
// many conversations): the turns with their neighbours, their chunks, and
// their conversations' names and projects.
func shownQueries(n int, neighbours bool) []string {
	set := "VALUES (?,?)" + strings.Repeat(",(?,?)", n-1)
	// The turns, and their neighbours as one range each: the turns table
	// is ordered by (sess, seq).
	span := "t.seq = k.column2"
	if neighbours {
		span = "t.seq BETWEEN k.column2 - 1 AND k.column2 + 1"
	}
	return []string{
		// A turn keeps no preview of its own text (the index would hold it
		// twice): it is cut from its first chunks (previewSQL).
		`SELECT t.sess, t.seq, t.role, t.preview, ` + previewSQL + `, t.turn_uuid, t.ts FROM (` + set + `) k JOIN turns t ON t.sess = k.column1 AND ` + span,
		`SELECT sess, seq, id, body, tokens, searched FROM chunks WHERE (sess, seq) IN (` + set + `) ORDER BY sess, seq, block, part`,
		`SELECT s.id, s.harness, s.session_id, s.title, p.project FROM sessions s
		LEFT JOIN session_projects p ON p.harness = s.harness AND p.session_id = s.session_id
		WHERE s.id IN (?` + strings.Repeat(",?", n-1) + `) ORDER BY s.id, p.project`,
	}
}

// Shown reads what the given turns are shown with, in the snapshot, with
// their neighbours' previews when the query asked (RecallQuery.Neighbours),
// and the reply of each turn of replyOf: three queries for all of them (a
// query per turn and per part cost hydrate 0.3 s of 300 bench-speed
// questions), and one more for each reply. A turn gone before the snapshot
// is missing.
func (s *RecallSnapshot) Shown(ctx context.Context, turns []TurnKey, replyOf ...TurnKey) (map[TurnKey]*ShownTurn, error) {
	neighbours := s.neighbours
	out := make(map[TurnKey]*ShownTurn, len(turns))
	if len(turns) == 0 {
		return out, nil
	}
	if s.tx == nil {
		return nil, errors.New("recall: shown turns: the snapshot is closed")
	}
	replies := map[TurnKey]TurnKey{}
	for _, k := range replyOf {
		seq, err := replySeq(ctx, s.tx, k)
		if err != nil {
			return nil, fmt.Errorf("recall: reply: %w", err)
		}
		if seq >= 0 {
			replies[k] = TurnKey{k.Sess, seq}
			turns = append(turns, replies[k])
		}
	}
	// Lists padded to one length, repeating their first item (which
	// changes no IN), so the statements are prepared once per length, not
	// per call, where preparing cost as much as running them.
	n := padLen(len(turns))
	var stmts []*sql.Stmt
	if n > s.show {
		// More than the snapshot was opened for: prepared on its own
		// connection (never on the pool, which other readers may hold).
		for _, q := range shownQueries(n, neighbours) {
			st, err := s.tx.PrepareContext(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("recall: shown turns: %w", err)
			}
			defer st.Close()
			stmts = append(stmts, st)
		}
	} else {
		n = s.show
		for _, st := range s.stmts {
			stmts = append(stmts, s.tx.StmtContext(ctx, st))
		}
	}
	args := make([]any, 0, 2*n)
	for _, k := range turns {
		args = append(args, k.Sess, k.Seq)
	}
	args = padList(args, 2, n)
	ids := make([]any, 0, n)
	seen := make(map[int64]bool, len(turns))
	for _, k := range turns {
		if !seen[k.Sess] {
			seen[k.Sess] = true
			ids = append(ids, k.Sess)
		}
	}
	ids = padList(ids, 1, n)
	type row struct {
		uuid    string
		ts      int64
		preview Preview
	}
	rowsOf := make(map[TurnKey]row, 3*len(turns))
	rows, err := stmts[0].QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("recall: shown turns: %w", err)
	}
	for rows.Next() {
		var k TurnKey
		var r row
		var said string
		if err := rows.Scan(&k.Sess, &k.Seq, &r.preview.Role, &r.preview.Text, &said, &r.uuid, &r.ts); err != nil {
			rows.Close()
			return nil, fmt.Errorf("recall: shown turns: %w", err)
		}
		if r.preview.Text == "" {
			r.preview.Text = preview(said, previewRunes)
		}
		r.preview.Seq = k.Seq
		rowsOf[k] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recall: shown turns: %w", err)
	}
	for _, k := range turns {
		r, ok := rowsOf[k]
		if !ok {
			continue
		}
		st := &ShownTurn{TurnInfo: TurnInfo{TurnUUID: r.uuid}, Role: r.preview.Role, TS: r.ts, Projects: []string{}}
		if neighbours {
			for _, n := range []TurnKey{{k.Sess, k.Seq - 1}, {k.Sess, k.Seq + 1}} {
				if p, ok := rowsOf[n]; ok && p.preview.Text != "" {
					st.Neighbours = append(st.Neighbours, p.preview)
				}
			}
		}
		out[k] = st
	}
	if len(out) == 0 {
		return out, nil
	}

	rows, err = stmts[1].QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("recall: shown chunks: %w", err)
	}
	for rows.Next() { // an IN list repeated a turn (padding) for no row twice
		var k TurnKey
		var c Chunk
		if err := rows.Scan(&k.Sess, &k.Seq, &c.ID, &c.Body, &c.Tokens, &c.Searched); err != nil {
			rows.Close()
			return nil, fmt.Errorf("recall: shown chunks: %w", err)
		}
		if st := out[k]; st != nil {
			st.Chunks = append(st.Chunks, c)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recall: shown chunks: %w", err)
	}

	// The conversations' names and projects, a row per project.
	rows, err = stmts[2].QueryContext(ctx, ids...)
	if err != nil {
		return nil, fmt.Errorf("recall: shown conversations: %w", err)
	}
	defer rows.Close()
	type conv struct {
		harness, sid, title string
		projects            []string
	}
	convs := make(map[int64]*conv, len(seen))
	for rows.Next() {
		var id int64
		var c conv
		var p sql.NullString
		if err := rows.Scan(&id, &c.harness, &c.sid, &c.title, &p); err != nil {
			return nil, fmt.Errorf("recall: shown conversations: %w", err)
		}
		have := convs[id]
		if have == nil {
			have = &c
			have.projects = []string{}
			convs[id] = have
		}
		if p.Valid {
			have.projects = append(have.projects, p.String)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recall: shown conversations: %w", err)
	}
	for k, st := range out {
		c := convs[k.Sess]
		if c == nil {
			delete(out, k) // its conversation is gone
			continue
		}
		st.Harness, st.SessionID, st.Title, st.Projects = c.harness, c.sid, c.title, c.projects
	}
	for k, rk := range replies {
		if st := out[k]; st != nil && out[rk] != nil {
			st.Reply, st.ReplySeq = out[rk], rk.Seq
		}
	}
	return out, nil
}

// replySeq finds the seq of the turn that replies to turn k (ShownTurn's
// Reply), -1 when there is none.
func replySeq(ctx context.Context, q queryer, k TurnKey) (int, error) {
	rows, err := q.QueryContext(ctx, `SELECT t.seq, t.role,
			EXISTS(SELECT 1 FROM chunks c WHERE c.sess = t.sess AND c.seq = t.seq AND c.searched)
		FROM turns t WHERE t.sess = ? AND t.seq BETWEEN ? AND ? ORDER BY t.seq`, k.Sess, k.Seq, k.Seq+replyReach)
	if err != nil {
		return -1, err
	}
	defer rows.Close()
	role, reply := "", -1
	for rows.Next() {
		var seq int
		var r string
		var said bool
		if err := rows.Scan(&seq, &r, &said); err != nil {
			return -1, err
		}
		switch {
		case seq == k.Seq:
			role = r
			if role != funes.RoleUser && role != funes.RoleAssistant {
				return -1, nil
			}
		case !said || r != funes.RoleUser && r != funes.RoleAssistant:
			// a tool's output, or Ireneo's own traffic
		case r == role || role == "":
			return reply, rows.Err() // the asker speaks again
		default:
			reply = seq // the other's last word so far: an agent's steps end in its answer
		}
	}
	if err := rows.Err(); err != nil {
		return -1, err
	}
	return reply, nil
}

// padLen is the length a list of n items is padded to: 8, 16, 32, …
func padLen(n int) int {
	l := 8
	for l < n {
		l *= 2
	}
	return l
}

// padList pads a list of arguments in groups of width to n groups by
// repeating its first group; it must not be empty.
func padList(args []any, width, n int) []any {
	for len(args) < n*width {
		args = append(args, args[:width]...)
	}
	return args
}

// stmtCache keeps prepared statements by their text, for queries whose
// text takes a few shapes; database/sql prepares each on the connections
// it runs on.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// prepare returns the statements of qs, each prepared once. It holds a
// connection of db only while it prepares, never while it waits for one.
func (c *stmtCache) prepare(ctx context.Context, db *sql.DB, qs ...string) ([]*sql.Stmt, error) {
	out := make([]*sql.Stmt, len(qs))
	for i, q := range qs {
		c.mu.Lock()
		st := c.m[q]
		c.mu.Unlock()
		if st == nil {
			var err error
			if st, err = db.PrepareContext(ctx, q); err != nil {
				return nil, err
			}
			c.mu.Lock()
			if have := c.m[q]; have != nil {
				st.Close() // another reader prepared it meanwhile
				st = have
			} else {
				if c.m == nil {
					c.m = map[string]*sql.Stmt{}
				}
				c.m[q] = st
			}
			c.mu.Unlock()
		}
		out[i] = st
	}
	return out, nil
}

// close closes the statements.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
