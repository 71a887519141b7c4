package memory

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
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

// FTSExpr renders the plan as recall's FTS5 MATCH expression: the words
// searched in the chunk, its title and, when date, its date words;
// identifiers (when useIDs) in their own column. "" when nothing is left.
func (p QueryPlan) FTSExpr(useIDs, date bool) string {
	return queryPlan{terms: p.Terms, ids: p.IDs}.recallExpr(useIDs, date)
}

// Identifiers finds identifier-like tokens (MT-4471, 3.4%, v1.2.1) and
// returns them normalised as the index stores them.
func Identifiers(text string) []string { return identifiers(text) }

// Words splits text into lowercase runs of letters and digits.
func Words(text string) []string { return words(text) }

// TermFrequencies returns, for each word, its FTS5 stem ("" when FTS5 would
// not index it) and the number of chunks whose body holds that stem, and the
// number of chunks in the memory. Figures may be up to statsTTL stale when
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

// CandidateQuery is one ranked FTS5 candidate query.
type CandidateQuery struct {
	Expr string // an FTS5 MATCH expression (QueryPlan.FTSExpr)
	// BM25 column weights.
	BodyWeight, TitleWeight, IDWeight, DateWeight float64
	Source                                        string // harness; "" for any
	Since, Until                                  time.Time
	Project                                       string   // that project plus untagged conversations; "" means all
	Scope                                         []string // nil: no scope; empty: nothing
	// Inner is how many of FTS5's best rows are joined before the filters
	// (-1: all); Limit how many rows come back, best first.
	Inner, Limit int
}

// Filtered reports whether the query has any filter.
func (q CandidateQuery) Filtered() bool {
	return q.Source != "" || !q.Since.IsZero() || !q.Until.IsZero() || q.Project != "" || q.Scope != nil
}

// Candidate is one chunk FTS5 matched, with its turn and conversation.
type Candidate struct {
	Chunk, Sess int64 // the chunk's and the conversation's row ids
	Seq         int
	Tokens      int     // the chunk's own o200k count, stored at import
	BM25        float64 // SQLite's bm25(): lower is better
	Harness     string
	SessionID   string
	Title       string
	TurnUUID    string
	Role        string
	TS          int64 // Unix seconds; 0 when undated
	Starred     bool
}

// FTSCandidates runs the ranked FTS5 query: FTS5 ranks first and the few best
// rows are joined after, as joining every match before sorting costs more
// than the ranking itself.
func (m *Memory) FTSCandidates(ctx context.Context, cq CandidateQuery) ([]Candidate, error) {
	var where []string
	var fargs []any
	if cq.Source != "" {
		where = append(where, "s.harness = ?")
		fargs = append(fargs, cq.Source)
	}
	if !cq.Since.IsZero() {
		where = append(where, "t.ts >= ?")
		fargs = append(fargs, cq.Since.Unix())
	}
	if !cq.Until.IsZero() {
		where = append(where, "t.ts < ?")
		fargs = append(fargs, cq.Until.Unix())
	}
	w, a := projectFilter("s", cq.Project, cq.Scope)
	where = append(where, w...)
	fargs = append(fargs, a...)
	q := `SELECT c.id, c.sess, c.seq, c.tokens, x.r, s.harness, s.session_id, s.title,
			t.turn_uuid, t.role, t.ts, COALESCE(st.starred, 0)
		FROM (SELECT rowid AS id, bm25(chunks_fts, ?, ?, ?, ?) AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r LIMIT ?) x
		JOIN chunks c ON c.id = x.id
		JOIN sessions s ON s.id = c.sess
		JOIN turns t ON t.sess = c.sess AND t.seq = c.seq
		LEFT JOIN stars st ON st.harness = s.harness AND st.session_id = s.session_id`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY x.r LIMIT ?"
	args := append([]any{cq.BodyWeight, cq.TitleWeight, cq.IDWeight, cq.DateWeight, cq.Expr, cq.Inner}, fargs...)
	args = append(args, cq.Limit)
	rows, err := m.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	defer rows.Close()
	var out []Candidate
	for rows.Next() {
		var c Candidate
		var star int
		if err := rows.Scan(&c.Chunk, &c.Sess, &c.Seq, &c.Tokens, &c.BM25, &c.Harness, &c.SessionID, &c.Title, &c.TurnUUID, &c.Role, &c.TS, &star); err != nil {
			return nil, err
		}
		c.Starred = star != 0
		out = append(out, c)
	}
	return out, rows.Err()
}

// ChunkTexts reads the searched bodies of chunks by row id.
func (m *Memory) ChunkTexts(ctx context.Context, chunks []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(chunks))
	if len(chunks) == 0 {
		return out, nil
	}
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = strconv.FormatInt(c, 10)
	}
	rows, err := m.db.QueryContext(ctx, `SELECT rowid, body FROM chunks_fts WHERE rowid IN (`+strings.Join(ids, ",")+`)`)
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

// TurnKey names a turn by its conversation's row id and its seq.
type TurnKey struct {
	Sess int64
	Seq  int
}

// TurnChunkCounts says how many chunks each turn was cut into.
func (m *Memory) TurnChunkCounts(ctx context.Context, turns []TurnKey) (map[TurnKey]int, error) {
	n := map[TurnKey]int{}
	var conds []string
	for _, k := range turns {
		if _, ok := n[k]; !ok {
			n[k] = 0
			conds = append(conds, fmt.Sprintf("(sess=%d AND seq=%d)", k.Sess, k.Seq))
		}
	}
	if len(conds) == 0 {
		return n, nil
	}
	rows, err := m.db.QueryContext(ctx, `SELECT sess, seq, count(*) FROM chunks WHERE `+strings.Join(conds, " OR ")+` GROUP BY sess, seq`)
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
	rows, err := m.db.QueryContext(ctx, `SELECT c.sess, c.seq, f.body FROM chunks c JOIN chunks_fts f ON f.rowid = c.id
		WHERE `+strings.Join(where, " OR ")+` ORDER BY c.sess, c.seq, c.block, c.part`, args...)
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

// NeighbourPreviews reads the previews of the turns just before and after
// seq in a conversation, in order; empty previews are left out.
func (m *Memory) NeighbourPreviews(ctx context.Context, sess int64, seq int) ([]Preview, error) {
	rows, err := m.db.QueryContext(ctx, `SELECT seq, role, preview FROM turns WHERE sess=? AND seq IN (?,?) ORDER BY seq`, sess, seq-1, seq+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Preview
	for rows.Next() {
		var p Preview
		if err := rows.Scan(&p.Seq, &p.Role, &p.Text); err != nil {
			return nil, err
		}
		if p.Text != "" {
			out = append(out, p)
		}
	}
	return out, rows.Err()
}

// SessionProjects lists a conversation's projects, sorted.
func (m *Memory) SessionProjects(ctx context.Context, harness, sessionID string) ([]string, error) {
	return m.sessionProjects(ctx, m.db, harness, sessionID)
}
