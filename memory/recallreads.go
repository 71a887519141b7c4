package memory

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ireneo-app/ireneo/engine"
)

// The read methods the recall pipeline (package recall) is built on: the
// query plan, term statistics, the ranked candidate query, and the texts,
// neighbours and projects it hydrates hits with. They read; none changes the
// memory.

// QueryPlan is a recall query taken apart (see PlanQuery).
type QueryPlan struct {
	Terms []string // content words searched in the body and title
	All   []string // every content word, before pruning by cost
	// Stops are the stopwords taken out of the query: too common to search
	// by, they still tell apart turns that match its content words alike.
	Stops   []string
	IDs     []string // normalised identifiers
	Recent  bool     // the query asks for the latest state of something
	Speaker string   // RoleUser, RoleAssistant, or "" for neither
}

// PlanQuery cuts the query to MaxQueryRunes, takes out identifiers, and
// drops stopwords and question words (when dropStop) unless nothing would be
// left.
func PlanQuery(q string, dropStop bool) QueryPlan {
	p := planQuery(q, dropStop)
	return QueryPlan{Terms: p.terms, All: p.all, Stops: p.stops, IDs: p.ids, Recent: p.recent, Speaker: p.speaker}
}

// EngineTerms is a plan as the engine's query terms, and where each of the
// plan's words and identifiers sits among them (for coverage, from the
// fields the hits say hold each term).
type EngineTerms struct {
	Terms []engine.QueryTerm
	Word  map[string]int // content word (All) → term index
	ID    map[string]int // identifier → term index
	Stop  map[string]int // stopword → term index, when asked for
}

// EngineTerms renders the plan for the engine: content words searched in a
// turn's text, its title and (when date) its date words; identifiers in
// their own field (probed only, unless useIDs). Words pruned by cost, and
// stopwords (when stops), only probe: the hits say whether they hold them.
func (p QueryPlan) EngineTerms(useIDs, date, stops bool) EngineTerms {
	et := EngineTerms{Word: map[string]int{}, ID: map[string]int{}, Stop: map[string]int{}}
	words := engine.FieldMask(1<<engine.Body | 1<<engine.Title)
	if date {
		words |= 1 << engine.Date
	}
	add := func(term string, f engine.FieldMask, probe bool) int {
		et.Terms = append(et.Terms, engine.QueryTerm{Term: term, Fields: f, Probe: probe})
		return len(et.Terms) - 1
	}
	searched := map[string]bool{}
	for _, w := range p.Terms {
		searched[w] = true
		et.Word[w] = add(engine.Term(w), words, false)
	}
	for _, w := range p.All {
		if !searched[w] {
			et.Word[w] = add(engine.Term(w), 1<<engine.Body, true)
		}
	}
	for _, id := range p.IDs {
		et.ID[id] = add(engine.Term(id), 1<<engine.IDs, !useIDs)
	}
	if stops {
		for _, w := range p.Stops {
			et.Stop[w] = add(engine.Term(w), 1<<engine.Body, true)
		}
	}
	return et
}

// Searched reports whether any term is searched (not only probed).
func (et EngineTerms) Searched() bool {
	for _, t := range et.Terms {
		if !t.Probe && t.Term != "" {
			return true
		}
	}
	return false
}

// Identifiers finds identifier-like tokens (MT-4471, 3.4%, v1.2.1) and
// returns them normalised as the index stores them.
func Identifiers(text string) []string { return identifiers(text) }

// Words splits text into lowercase runs of letters and digits.
func Words(text string) []string { return words(text) }

// TermFrequencies returns, for each word, its index term (engine.Term: ""
// when the index would hold none) and the number of turns that hold that
// term, and the number of turns (engine documents) in the memory. Figures may be up to statsTTL stale when
// another process changed the memory.
func (m *Memory) TermFrequencies(ctx context.Context, ws []string) (df map[string]int, stems map[string]string, total int, err error) {
	df, total, err = m.frequencies(ctx, ws)
	if err != nil {
		return nil, nil, 0, err
	}
	stems = make(map[string]string, len(ws))
	m.stats.mu.Lock()
	for _, w := range ws {
		stems[w] = m.stats.stems[w]
	}
	m.stats.mu.Unlock()
	return df, stems, total, nil
}

// CandidateQuery asks the engine for the best turns.
type CandidateQuery struct {
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
}

// Candidate is one turn the engine found: what ranking needs of it. Its
// conversation's names and the turn's uuid are read for the few hits shown
// (TurnInfos).
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
}

// Candidates asks the engine for the best turns, with the filters applied
// inside its search (so the filtered top-k is exact), all in one read
// transaction: one snapshot however other processes write.
func (m *Memory) Candidates(ctx context.Context, cq CandidateQuery) ([]Candidate, error) {
	tx, err := m.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	defer tx.Rollback()
	q := cq.Query
	q.Cache = m.engCache
	// The engine breaks ties by document id, which a restore or re-import
	// changes: it keeps the turns tied with the K-th too, and they are
	// ordered here by what the turn is, then cut.
	q.Ties = max(tieCap*q.K, minTies)
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
func (m *Memory) docFilter(ctx context.Context, q queryer, cq CandidateQuery) (func(uint64) bool, error) {
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
	if !cq.Since.IsZero() {
		where = append(where, "t.ts >= ?")
		args = append(args, cq.Since.Unix())
	}
	if !cq.Until.IsZero() {
		where = append(where, "t.ts < ?")
		args = append(args, cq.Until.Unix())
	}
	docs := map[uint64]bool{}
	rows, err := q.QueryContext(ctx, `SELECT t.sess, t.seq FROM turns t JOIN sessions s ON s.id = t.sess WHERE `+strings.Join(where, " AND "), args...)
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

// ChunkTexts reads the bodies of chunks by row id.
func (m *Memory) ChunkTexts(ctx context.Context, chunks []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(chunks))
	if len(chunks) == 0 {
		return out, nil
	}
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = strconv.FormatInt(c, 10)
	}
	rows, err := m.db.QueryContext(ctx, `SELECT id, body FROM chunks WHERE id IN (`+strings.Join(ids, ",")+`)`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var body string
		if err := rows.Scan(&id, &body); err != nil {
			return nil, err
		}
		out[id] = body
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

// TurnTexts reads the searched text of turns, at most limit bytes of each.
func (m *Memory) TurnTexts(ctx context.Context, turns []TurnKey, limit int) (map[TurnKey]string, error) {
	out := make(map[TurnKey]string, len(turns))
	if len(turns) == 0 {
		return out, nil
	}
	set, args := turnSet(turns)
	rows, err := m.db.QueryContext(ctx, `SELECT sess, seq, body FROM chunks WHERE searched AND (sess, seq) IN (`+set+`) ORDER BY sess, seq, block, part`, args...)
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

// TurnChunkCounts says how many chunks each turn was cut into.
func (m *Memory) TurnChunkCounts(ctx context.Context, turns []TurnKey) (map[TurnKey]int, error) {
	n := map[TurnKey]int{}
	for _, k := range turns {
		n[k] = 0
	}
	if len(turns) == 0 {
		return n, nil
	}
	set, args := turnSet(turns)
	rows, err := m.db.QueryContext(ctx, `SELECT sess, seq, count(*) FROM chunks WHERE searched AND (sess, seq) IN (`+set+`) GROUP BY sess, seq`, args...)
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

// TurnsAround reads the chunk bodies, in order, of the turns up to n before
// and after each given turn in its conversation (the turn itself left out).
func (m *Memory) TurnsAround(ctx context.Context, turns []TurnKey, n int) (map[TurnKey][]string, error) {
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
	rows, err := m.db.QueryContext(ctx, `SELECT c.sess, c.seq, c.body FROM chunks c
		WHERE c.searched AND (`+strings.Join(where, " OR ")+`) ORDER BY c.sess, c.seq, c.block, c.part`, args...)
	if err != nil {
		return nil, fmt.Errorf("recall: turns around candidates: %w", err)
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

// Preview is the short preview of one turn, as stored at import.
type Preview struct {
	Seq  int
	Role string
	Text string
}

// ShownTurn is what a recalled turn is shown with.
type ShownTurn struct {
	TurnInfo
	Projects []string // its conversation's, sorted; empty, not nil, when none
	Chunks   []Chunk  // in order
	// Neighbours are the previews of the turns just before and after it,
	// in order, when asked for; empty previews are left out.
	Neighbours []Preview
}

// ShownTurns reads what the given turns are shown with, in one snapshot:
// three queries for all of them (a query per turn and per part cost hydrate
// 0.3 s of 300 bench-speed questions). A turn gone since is missing.
func (m *Memory) ShownTurns(ctx context.Context, turns []TurnKey, neighbours bool) (map[TurnKey]*ShownTurn, error) {
	out := make(map[TurnKey]*ShownTurn, len(turns))
	if len(turns) == 0 {
		return out, nil
	}
	set, args := paddedTurnSet(turns)
	// The turns, and their neighbours as one range each: the turns table
	// is ordered by (sess, seq).
	span := "t.seq = k.column2"
	if neighbours {
		span = "t.seq BETWEEN k.column2 - 1 AND k.column2 + 1"
	}
	ids := make([]any, 0, len(turns))
	seen := make(map[int64]bool, len(turns))
	for _, k := range turns {
		if !seen[k.Sess] {
			seen[k.Sess] = true
			ids = append(ids, k.Sess)
		}
	}
	ids = padList(ids, 1)
	// Prepared before the transaction takes its connection: preparing on
	// the pool inside it waited for a connection that every other reader,
	// each in a transaction of its own, held (TestShownTurnsConcurrent).
	stmts, err := m.stmts.prepare(ctx, m.db,
		// A turn keeps no preview of its own text (the index would hold it
		// twice): it is cut from its first chunks (previewSQL).
		`SELECT t.sess, t.seq, t.role, t.preview, `+previewSQL+`, t.turn_uuid FROM (`+set+`) k JOIN turns t ON t.sess = k.column1 AND `+span,
		`SELECT sess, seq, id, body, tokens, searched FROM chunks WHERE (sess, seq) IN (`+set+`) ORDER BY sess, seq, block, part`,
		`SELECT s.id, s.harness, s.session_id, s.title, p.project FROM sessions s
		LEFT JOIN session_projects p ON p.harness = s.harness AND p.session_id = s.session_id
		WHERE s.id IN (?`+strings.Repeat(",?", len(ids)-1)+`) ORDER BY s.id, p.project`)
	if err != nil {
		return nil, fmt.Errorf("recall: shown turns: %w", err)
	}
	tx, err := m.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	defer tx.Rollback()
	type row struct {
		uuid    string
		preview Preview
	}
	rowsOf := make(map[TurnKey]row, 3*len(turns))
	rows, err := tx.StmtContext(ctx, stmts[0]).QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("recall: shown turns: %w", err)
	}
	for rows.Next() {
		var k TurnKey
		var r row
		var said string
		if err := rows.Scan(&k.Sess, &k.Seq, &r.preview.Role, &r.preview.Text, &said, &r.uuid); err != nil {
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
		st := &ShownTurn{TurnInfo: TurnInfo{TurnUUID: r.uuid}, Projects: []string{}}
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

	rows, err = tx.StmtContext(ctx, stmts[1]).QueryContext(ctx, args...)
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
	rows, err = tx.StmtContext(ctx, stmts[2]).QueryContext(ctx, ids...)
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
	return out, nil
}

// paddedTurnSet is turnSet with the list padded to a length of a few
// sizes, repeating its first turn (which changes no IN): so each of
// ShownTurns' queries is prepared once per length, not per call, where
// preparing it cost as much as running it.
func paddedTurnSet(turns []TurnKey) (string, []any) {
	args := make([]any, 0, 2*len(turns))
	for _, k := range turns {
		args = append(args, k.Sess, k.Seq)
	}
	args = padList(args, 2)
	return "VALUES (?,?)" + strings.Repeat(",(?,?)", len(args)/2-1), args
}

// padList pads a list of arguments in groups of width to 8, 16, 32, … groups
// by repeating its first group; it must not be empty.
func padList(args []any, width int) []any {
	n := 8
	for n*width < len(args) {
		n *= 2
	}
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
