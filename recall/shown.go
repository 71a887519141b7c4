package recall

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/indexdoc"
	"github.com/ireneo-app/ireneo/memory"
)

// What the snapshot reads of the turns a recall shows (hydrate.go): their
// chunks, receipts, projects and neighbours, and a question's reply.

// turnInfo names a turn for its receipt.
type turnInfo struct {
	Harness   string
	SessionID string
	Title     string
	TurnUUID  string
}

// neighbour is the short preview of a turn beside one shown, as import cut it.
type neighbour struct {
	Seq  int
	Role string
	Text string
}

// shownTurn is what a recalled turn is shown with.
type shownTurn struct {
	turnInfo
	Role     string
	TS       int64          // Unix seconds; 0 when undated
	Projects []string       // its conversation's, sorted; empty, not nil, when none
	Chunks   []memory.Chunk // in order
	// Neighbours are the previews of the turns just before and after it,
	// in order, when asked for; empty previews are left out.
	Neighbours []neighbour
	// Reply, for a turn Shown was asked the reply of, is the turn that
	// answers it: the other speaker's (a person's or an assistant's) last
	// turn that says something before the asker speaks again, within
	// replyReach turns (an agent's steps end in its answer); nil when
	// there is none.
	Reply *shownTurn
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
		`SELECT t.sess, t.seq, t.role, t.preview, ` + memory.PreviewSQL + `, t.turn_uuid, t.ts FROM (` + set + `) k JOIN turns t ON t.sess = k.column1 AND ` + span,
		`SELECT sess, seq, id, body, tokens, searched FROM chunks WHERE (sess, seq) IN (` + set + `) ORDER BY sess, seq, block, part`,
		`SELECT s.id, s.harness, s.session_id, s.title, p.project FROM sessions s
		LEFT JOIN session_projects p ON p.harness = s.harness AND p.session_id = s.session_id
		WHERE s.id IN (?` + strings.Repeat(",?", n-1) + `) ORDER BY s.id, p.project`,
	}
}

// Shown reads what the given turns are shown with, in the snapshot, with
// their neighbours' previews when the query asked (snapshotQuery.Neighbours),
// and the reply of each turn of replyOf. A turn gone before the snapshot is
// missing. What an earlier recall of the same generation read is kept
// (readCaches.shown, .replies): agents ask again, and on the load bench
// these reads were a tenth of a call's CPU.
func (s *snapshot) Shown(ctx context.Context, turns []memory.TurnKey, replyOf ...memory.TurnKey) (map[memory.TurnKey]*shownTurn, error) {
	out := make(map[memory.TurnKey]*shownTurn, len(turns))
	if len(turns) == 0 {
		return out, nil
	}
	c, gen := cachesOf(s.rt), s.rt.Gen()
	replies := map[memory.TurnKey]memory.TurnKey{}
	if len(replyOf) > 0 {
		docs := make([]uint64, len(replyOf))
		for i, k := range replyOf {
			docs[i] = k.Doc()
		}
		seqs := make([]int, len(replyOf))
		found := make([]bool, len(replyOf))
		c.replies.lookup(gen, docs, func(i int, seq int) { seqs[i], found[i] = seq, true })
		read := map[uint64]int{}
		for i, k := range replyOf {
			if !found[i] {
				seq, err := replySeq(ctx, s.rt, k)
				if err != nil {
					return nil, fmt.Errorf("recall: reply: %w", err)
				}
				seqs[i], read[docs[i]] = seq, seq
			}
			if seqs[i] >= 0 {
				replies[k] = memory.TurnKey{Sess: k.Sess, Seq: seqs[i]}
				turns = append(turns, replies[k])
			}
		}
		c.replies.add(gen, shownCacheBytes, read, func(int) int { return 0 })
	}
	keys := make([]shownKey, len(turns))
	for i, k := range turns {
		keys[i] = shownKey{doc: k.Doc(), neighbours: s.neighbours}
	}
	c.shown.lookup(gen, keys, func(i int, st *shownTurn) {
		cp := *st // its Reply is this call's
		out[turns[i]] = &cp
	})
	var need []memory.TurnKey
	for _, k := range turns {
		if out[k] == nil {
			need = append(need, k)
		}
	}
	if len(need) > 0 {
		read, err := s.readShown(ctx, need)
		if err != nil {
			return nil, err
		}
		kept := make(map[shownKey]*shownTurn, len(read))
		for k, st := range read {
			kept[shownKey{doc: k.Doc(), neighbours: s.neighbours}] = st
			cp := *st
			out[k] = &cp
		}
		c.shown.add(gen, shownCacheBytes, kept, shownBytes)
	}
	for k, rk := range replies {
		if st := out[k]; st != nil && out[rk] != nil {
			st.Reply, st.ReplySeq = out[rk], rk.Seq
		}
	}
	return out, nil
}

// shownBytes is about what a kept shown turn holds.
func shownBytes(st *shownTurn) int {
	n := 256 + len(st.Harness) + len(st.SessionID) + len(st.Title) + len(st.TurnUUID)
	for _, c := range st.Chunks {
		n += 64 + len(c.Body)
	}
	for _, nb := range st.Neighbours {
		n += 48 + len(nb.Text)
	}
	for _, p := range st.Projects {
		n += 16 + len(p)
	}
	return n
}

// readShown reads what turns are shown with (without their replies) in
// three queries for all of them: a query per turn and per part cost
// hydrate 0.3 s of 300 bench-speed questions.
func (s *snapshot) readShown(ctx context.Context, turns []memory.TurnKey) (map[memory.TurnKey]*shownTurn, error) {
	neighbours := s.neighbours
	out := make(map[memory.TurnKey]*shownTurn, len(turns))
	// Lists padded to one length, repeating their first item (which
	// changes no IN), so the statements are prepared once per length, not
	// per call, where preparing cost as much as running them.
	n := padLen(len(turns))
	var stmts []*sql.Stmt
	if n > s.show {
		// More than the snapshot was opened for: prepared on its own
		// connection (never on the pool, which other readers may hold).
		for _, q := range shownQueries(n, neighbours) {
			st, err := s.rt.PrepareContext(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("recall: shown turns: %w", err)
			}
			defer st.Close()
			stmts = append(stmts, st)
		}
	} else {
		n = s.show
		for i := range 3 {
			stmts = append(stmts, s.rt.Prepared(ctx, i))
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
		preview neighbour
	}
	rowsOf := make(map[memory.TurnKey]row, 3*len(turns))
	rows, err := stmts[0].QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("recall: shown turns: %w", err)
	}
	for rows.Next() {
		var k memory.TurnKey
		var r row
		var said string
		if err := rows.Scan(&k.Sess, &k.Seq, &r.preview.Role, &r.preview.Text, &said, &r.uuid, &r.ts); err != nil {
			rows.Close()
			return nil, fmt.Errorf("recall: shown turns: %w", err)
		}
		if r.preview.Text == "" {
			r.preview.Text = indexdoc.Preview(said)
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
		st := &shownTurn{turnInfo: turnInfo{TurnUUID: r.uuid}, Role: r.preview.Role, TS: r.ts, Projects: []string{}}
		if neighbours {
			for _, n := range []memory.TurnKey{{Sess: k.Sess, Seq: k.Seq - 1}, {Sess: k.Sess, Seq: k.Seq + 1}} {
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
		var k memory.TurnKey
		var c memory.Chunk
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
		st.Harness, st.SessionID, st.Title, st.Projects = c.harness, c.sid, c.title, slices.Clip(c.projects)
	}
	return out, nil
}

// replySeq finds the seq of the turn that replies to turn k (shownTurn's
// Reply), -1 when there is none.
func replySeq(ctx context.Context, q memory.Querier, k memory.TurnKey) (int, error) {
	rows, done, err := engine.QueryKept(ctx, q, `SELECT t.seq, t.role,
			EXISTS(SELECT 1 FROM chunks c WHERE c.sess = t.sess AND c.seq = t.seq AND c.searched)
		FROM turns t WHERE t.sess = ? AND t.seq BETWEEN ? AND ? ORDER BY t.seq`, k.Sess, k.Seq, k.Seq+replyReach)
	if err != nil {
		return -1, err
	}
	defer done()
	defer rows.Close() // before done
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
