package recall

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/memory"
)

// The run's reads of the memory. A recall reads the memory in one snapshot
// (one memory.ReadTx, however other processes write): the candidates with
// what ranking reads of them, then the turns it shows (shown.go). Nothing
// here changes the memory.

// snapshotQuery is what one recall reads before it ranks: the engine's
// candidates under the request's filters, and what the ranking stages ask
// of them.
type snapshotQuery struct {
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
	// SpanK turns inside [SpanSince, SpanUntil) (within the filters
	// above) and merge them into the candidates: the days a question
	// names, whose turns may rank below the first K of all. SpanK is the
	// pool's first layer however deep the snapshot reads: a search of the
	// span as deep as the page kept a different share of a large group of
	// equal scores (the engine keeps at most tieCap·K ties), and top_k 50's
	// first ten were not top_k 10's for dated questions (issue 27 item 9).
	SpanSince, SpanUntil time.Time
	SpanK                int

	// Words are the query's words whose index term and document frequency
	// ranking weighs them by (snapshot.DF, Stems).
	Words []string
	// TextBytes, above 0, reads up to that many bytes of each candidate
	// turn's searched text (snapCandidate.Text).
	TextBytes int
	// Around, above 0, reads the searched chunks of the turns up to Around
	// before and after each of the first AroundOf candidates
	// (snapshot.Around).
	Around, AroundOf int
	// ChunkCounts reads how many chunks each candidate's turn was cut into
	// (snapCandidate.Chunks).
	ChunkCounts bool
	// Previews reads each candidate's preview (snapCandidate.Preview).
	Previews bool
	// Show is the most turns Shown will be asked for (its statements are
	// prepared before the snapshot takes its connection), and Neighbours
	// whether it shows each with the previews of the turns around it.
	Show       int
	Neighbours bool
}

// snapCandidate is one turn the engine found: what ranking needs of it. Its
// conversation's names and the turn's uuid are read for the few hits shown
// (Shown).
type snapCandidate struct {
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
	Text   string // its searched text, when asked (snapshotQuery.TextBytes)
	Chunks int    // its searched chunks, when asked (snapshotQuery.ChunkCounts)
	// Preview is its preview as import cut it (the first previewRunes
	// runes of what was said, on one line, "…" when cut), when asked
	// (snapshotQuery.Previews).
	Preview string
	// SpanRank is 1 + its place among the best turns inside the query's
	// span (the span's own search, or the named days' turns listed for
	// their day); 0 when neither found it. A layer of the pool holds the
	// span's turns up to its own size, so how deep the snapshot read does
	// not change what the first layer ranks (issue 27 item 9).
	SpanRank int
}

// snapshot is one recall's read of the memory: the candidates and the
// statistics they are weighed by, read in one read transaction that stays
// open for Shown, so the turns shown are those the candidates named however
// other processes import or forget meanwhile. Close it.
type snapshot struct {
	Candidates []snapCandidate   // best first, at most Query.K
	More       bool              // the engine holds more matching turns than Query.K
	Docs       int               // turns in the memory (engine documents)
	DF         map[string]int    // each of Words: the turns holding its index term
	Stems      map[string]string // each of Words: its index term ("" when the index would hold none)
	// Around holds the searched chunk bodies, in order, of the turns around
	// the candidates asked for (snapshotQuery.Around).
	Around map[memory.TurnKey][]string

	rt         *memory.ReadTx
	show       int // Shown's list length its statements (the first three prepared) were prepared for
	neighbours bool
}

// openSnapshot opens a recall's snapshot of m and reads its candidates:
// the engine's best turns, with the filters applied inside its search (so
// the filtered top-k is exact), and what q asks of them.
func openSnapshot(ctx context.Context, m *memory.Memory, q snapshotQuery) (_ *snapshot, err error) {
	s := &snapshot{show: padLen(max(q.Show, 1)), neighbours: q.Neighbours}
	if s.rt, err = m.BeginRead(ctx, shownQueries(s.show, s.neighbours)...); err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	c := cachesOf(s.rt)
	s.Docs = s.rt.Docs()
	if s.DF, s.Stems, err = c.terms.frequencies(ctx, s.rt, s.rt.Gen(), q.Words); err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	if s.Candidates, s.More, err = readCandidates(ctx, s.rt, c.turns, q); err != nil {
		return nil, err
	}
	keys := make([]memory.TurnKey, len(s.Candidates))
	for i, c := range s.Candidates {
		keys[i] = memory.TurnKey{Sess: c.Sess, Seq: c.Seq}
	}
	if q.TextBytes > 0 {
		texts, err := keptTurnTexts(ctx, s.rt, &c.texts, keys, q.TextBytes)
		if err != nil {
			return nil, fmt.Errorf("recall: candidates' text: %w", err)
		}
		for i := range s.Candidates {
			s.Candidates[i].Text = texts[keys[i]]
		}
	}
	if q.ChunkCounts {
		n, err := turnChunkCounts(ctx, s.rt, keys)
		if err != nil {
			return nil, fmt.Errorf("recall: candidates' chunks: %w", err)
		}
		for i := range s.Candidates {
			s.Candidates[i].Chunks = n[keys[i]]
		}
	}
	if q.Previews {
		if err := turnPreviews(ctx, s.rt, &c.previews, s.rt.Gen(), s.Candidates); err != nil {
			return nil, fmt.Errorf("recall: candidates' previews: %w", err)
		}
	}
	if q.Around > 0 {
		if s.Around, err = readAround(ctx, s.rt, keys[:min(len(keys), max(q.AroundOf, 0))], q.Around); err != nil {
			return nil, fmt.Errorf("recall: turns around candidates: %w", err)
		}
	}
	return s, nil
}

// Close ends the snapshot.
func (s *snapshot) Close() {
	if s.rt != nil {
		s.rt.Close()
	}
}

// readCandidates asks the engine for the best turns in rt, and for the
// best inside the query's span when it has one, best first.
func readCandidates(ctx context.Context, rt *memory.ReadTx, tc *turnCache, cq snapshotQuery) (_ []snapCandidate, more bool, _ error) {
	cands, more, err := searchTurns(ctx, rt, tc, cq)
	if err != nil || cq.SpanSince.IsZero() && cq.SpanUntil.IsZero() {
		return cands, more, err
	}
	sq := cq
	sq.Since, sq.Until = within(cq.Since, cq.Until, cq.SpanSince, cq.SpanUntil)
	if cq.SpanK > 0 {
		sq.Query.K = cq.SpanK
	}
	in, _, err := searchTurns(ctx, rt, tc, sq)
	if err != nil {
		return nil, false, err
	}
	have := make(map[memory.TurnKey]int, len(cands))
	for i, c := range cands {
		have[memory.TurnKey{Sess: c.Sess, Seq: c.Seq}] = i
	}
	for i, c := range in {
		if j, ok := have[memory.TurnKey{Sess: c.Sess, Seq: c.Seq}]; ok {
			cands[j].SpanRank = i + 1
		} else {
			c.SpanRank = i + 1
			cands = append(cands, c)
		}
	}
	// Best first; the order of equals as each search gave it.
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].BM25 < cands[j].BM25 })
	return cands, more, nil
}

// searchTurns asks the engine for the best Query.K turns under the filters;
// more says the engine found as many, so may hold more.
func searchTurns(ctx context.Context, rt *memory.ReadTx, tc *turnCache, cq snapshotQuery) (_ []snapCandidate, more bool, _ error) {
	q := cq.Query
	// The engine breaks ties by document id, which a restore or re-import
	// changes: it keeps the turns tied with the K-th too, and they are
	// ordered here by what the turn is, then cut.
	q.Ties = max(tieCap*q.K, minTies)
	var err error
	if q.Allow, q.Ranges, err = docFilter(ctx, rt, &cachesOf(rt).spans, cq); err != nil {
		return nil, false, err
	}
	hits, err := rt.Search(ctx, q, cq.Params)
	if err == nil && tiesCut(hits, q) {
		// The engine kept the ties of the lowest ids: which of them are
		// the first by the turn (orderTies) would depend on how deep the
		// search was. All of them, up to maxTies, then.
		q.Ties = maxTies
		hits, err = rt.Search(ctx, q, cq.Params)
	}
	if err != nil {
		return nil, false, fmt.Errorf("recall: %w", err)
	}
	if cq.CheckExact {
		q.Stats = nil
		all, err := rt.SearchExhaustive(ctx, q, cq.Params)
		if err != nil {
			return nil, false, fmt.Errorf("recall: %w", err)
		}
		if err := sameHits(hits, all); err != nil {
			return nil, false, err
		}
	}
	cands, err := turnCandidates(ctx, rt, hits, tc, rt.Gen())
	if err != nil {
		return nil, false, err
	}
	if err := orderTies(ctx, rt, &cachesOf(rt).names, cands); err != nil {
		return nil, false, err
	}
	k := max(cq.Query.K, 0)
	return cands[:min(len(cands), k)], k > 0 && len(hits) >= k, nil
}

// tieCap and minTies bound the turns tied with the K-th best that the
// engine keeps: max(K·tieCap, minTies). Past that many (a one-word query
// over many turns alike) the ones left out are those of the highest row
// ids; below it, reading the ties' turns costs little more than K's.
const tieCap, minTies = 2, 32

// maxTies is how many ties are read when more than max(K·tieCap, minTies)
// tie with the K-th: the same short turn in hundreds of agent sessions
// ("continue", "yes, go ahead") scores the same in all of them. Past it
// the first hits of a deeper page may differ; reading 2,048 candidates
// costs a few milliseconds, once for such a query.
const maxTies = 2048

// tiesCut reports whether the engine may have left out turns tied with
// the K-th best: it returned as many ties as it was allowed, the last
// scoring as the K-th.
func tiesCut(hits []engine.Hit, q engine.Query) bool {
	return q.Ties < maxTies && q.K > 0 && len(hits) > q.K && len(hits) >= q.K+q.Ties &&
		hits[len(hits)-1].Score == hits[q.K-1].Score
}

// orderTies orders candidates of equal score, in place, by the turn's time,
// its conversation (harness, session id) and its seq: keys a turn keeps
// through a backup's restore or a re-import, where row ids do not.
func orderTies(ctx context.Context, rt *memory.ReadTx, nc *nameCache, cs []snapCandidate) error {
	var tied []int64 // conversations of tied candidates
	for i := 1; i < len(cs); i++ {
		if cs[i].BM25 == cs[i-1].BM25 {
			tied = append(tied, cs[i-1].Sess, cs[i].Sess)
		}
	}
	if len(tied) == 0 {
		return nil
	}
	names, err := nc.names(ctx, rt, rt.Gen(), tied)
	if err != nil {
		return err
	}
	// Each run of equal scores is ordered by small keys and then permuted:
	// sorting the candidates themselves (~180 bytes each, through
	// sort.SliceStable's reflected swaps) took 12 % of a recall's CPU on the
	// load bench's memory, whose runs of ties are long.
	keys := make([]tieKey, 0, len(cs))
	buf := make([]snapCandidate, 0, len(cs))
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && cs[j].BM25 == cs[i].BM25 {
			j++
		}
		if j-i > 1 {
			run := cs[i:j]
			keys = keys[:0]
			for k, c := range run {
				n := names[c.Sess]
				keys = append(keys, tieKey{ts: c.TS, harness: n[0], id: n[1], seq: c.Seq, at: k})
			}
			slices.SortFunc(keys, compareTieKeys) // stable: at breaks full ties
			buf = append(buf[:0], run...)
			for k, key := range keys {
				run[k] = buf[key.at]
			}
		}
		i = j
	}
	return nil
}

// tieKey is what orders tied candidates: time, conversation name, turn.
type tieKey struct {
	ts          int64
	harness, id string
	seq, at     int
}

func compareTieKeys(x, y tieKey) int {
	if c := cmp.Compare(x.ts, y.ts); c != 0 {
		return c
	}
	if c := strings.Compare(x.harness, y.harness); c != 0 {
		return c
	}
	if c := strings.Compare(x.id, y.id); c != 0 {
		return c
	}
	if c := cmp.Compare(x.seq, y.seq); c != 0 {
		return c
	}
	return cmp.Compare(x.at, y.at)
}

// names returns the (harness, session id) of conversations by row id, from
// what it keeps for generation gen, reading the others.
func (c *nameCache) names(ctx context.Context, q memory.Querier, gen int64, ids []int64) (map[int64][2]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.gen != gen || len(c.m) > nameCacheMax {
		c.gen, c.m = gen, map[int64][2]string{}
	}
	out := make(map[int64][2]string, len(ids))
	var need []int64
	for _, id := range ids {
		if n, ok := c.m[id]; ok {
			out[id] = n
		} else {
			need = append(need, id)
		}
	}
	if len(need) == 0 {
		return out, nil
	}
	set, args := memory.IDSet(need)
	err := memory.EachRow(ctx, q, `SELECT id, harness, session_id FROM sessions WHERE id IN (`+set+`)`, args, func(rows *sql.Rows) error {
		var id int64
		var n [2]string
		if err := rows.Scan(&id, &n[0], &n[1]); err != nil {
			return err
		}
		out[id], c.m[id] = n, n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recall: order tied turns: %w", err)
	}
	return out, nil
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

// docFilter is the query's filters as a test on engine documents or, for a
// time filter, as ranges of them: nil when there are none.
func docFilter(ctx context.Context, rt *memory.ReadTx, spans *spanCache, cq snapshotQuery) (func(uint64) bool, []engine.DocRange, error) {
	var where []string
	var args []any
	if cq.Source != "" {
		where = append(where, "s.harness = ?")
		args = append(args, cq.Source)
	}
	w, a := memory.ProjectFilter("s", cq.Project, cq.ProjectOnly, cq.Untagged, cq.Scope)
	where = append(where, w...)
	args = append(args, a...)
	timed := !cq.Since.IsZero() || !cq.Until.IsZero()
	if len(where) == 0 && !timed {
		return nil, nil, nil
	}
	// The conversations the other filters keep.
	var keep func(int64) bool
	if len(where) > 0 {
		sess := map[int64]bool{}
		err := memory.EachRow(ctx, rt, `SELECT s.id FROM sessions s WHERE `+strings.Join(where, " AND "), args, func(rows *sql.Rows) error {
			var id int64
			err := rows.Scan(&id)
			sess[id] = true
			return err
		})
		if err != nil {
			return nil, nil, fmt.Errorf("recall: filter: %w", err)
		}
		keep = func(id int64) bool { return sess[id] }
	}
	if !timed {
		return func(doc uint64) bool { return keep(memory.DocTurn(doc).Sess) }, nil, nil
	}
	// The turns dated in the span, from the conversations whose time
	// overlaps it (a conversation runs from its first dated turn to its
	// latest), as ranges of documents the engine seeks between, from what
	// the span cache keeps for this generation of the index: reading them
	// from the turns table cost a month's span ~20 CPU-ms on the heavy
	// memory (17,000-20,000 rows), and the engine, testing documents one
	// by one, walked the whole year's postings.
	var since, until *int64
	if !cq.Since.IsZero() {
		v := cq.Since.Unix()
		since = &v
	}
	if !cq.Until.IsZero() {
		v := cq.Until.Unix()
		until = &v
	}
	rs, err := spans.timeRanges(ctx, rt, rt.Gen(), since, until, keep)
	if err != nil {
		return nil, nil, fmt.Errorf("recall: filter: %w", err)
	}
	return nil, rs, nil
}

// turnCandidates reads the turns behind the engine's hits, best first:
// their role and time from tc when an earlier recall of this index
// generation read them, from the turns table otherwise.
func turnCandidates(ctx context.Context, q memory.Querier, hits []engine.Hit, tc *turnCache, gen int64) ([]snapCandidate, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	out := make([]snapCandidate, len(hits))
	found := make([]bool, len(hits))
	var keys []memory.TurnKey
	at := map[uint64]int{}
	tc.lookup(gen, hits, func(i int, tm turnMeta) {
		k := memory.DocTurn(hits[i].Doc)
		out[i] = snapCandidate{Sess: k.Sess, Seq: k.Seq, Role: tm.role, TS: tm.ts}
		found[i] = true
	})
	for i, h := range hits {
		if !found[i] {
			keys = append(keys, memory.DocTurn(h.Doc))
			at[h.Doc] = i
		}
	}
	if len(keys) > 0 {
		set, args := memory.TurnSet(keys)
		read := make(map[uint64]turnMeta, len(keys))
		err := memory.EachRow(ctx, q, `SELECT sess, seq, role, ts FROM turns WHERE (sess, seq) IN (`+set+`)`, args, func(rows *sql.Rows) error {
			var c snapCandidate
			if err := rows.Scan(&c.Sess, &c.Seq, &c.Role, &c.TS); err != nil {
				return err
			}
			doc := memory.TurnKey{Sess: c.Sess, Seq: c.Seq}.Doc()
			if i, ok := at[doc]; ok {
				out[i], found[i] = c, true
				read[doc] = turnMeta{internRole(c.Role), c.TS}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
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
func starredSessions(ctx context.Context, q memory.Querier) (map[int64]bool, error) {
	out := map[int64]bool{}
	err := memory.EachRow(ctx, q, `SELECT s.id FROM stars st JOIN sessions s ON s.harness = st.harness AND s.session_id = st.session_id WHERE st.starred`, nil, func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		out[id] = true
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("recall: stars: %w", err)
	}
	return out, nil
}
