package recall

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/indexdoc"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/querywords"
)

// The snapshot's reads (reads.go, shown.go, turnreads.go, readcache.go),
// checked against plain reads of memory's tables.

// queryTerms is the engine's query for a question as recall plans one: its
// content words searched in a turn's text, title and date words, its
// identifiers in theirs.
func queryTerms(query string) []engine.QueryTerm {
	var ts []engine.QueryTerm
	for _, w := range querywords.Words(query) {
		if !querywords.IsStopword(w) {
			ts = append(ts, engine.QueryTerm{Term: engine.Term(w), Fields: 1<<engine.Body | 1<<engine.Title | 1<<engine.Date})
		}
	}
	for _, id := range querywords.Identifiers(query) {
		ts = append(ts, engine.QueryTerm{Term: engine.Term(id), Fields: 1 << engine.IDs})
	}
	return ts
}

// snapCandidates reads a snapshot's candidates and closes it.
func snapCandidates(t *testing.T, m *memory.Memory, q snapshotQuery) []snapCandidate {
	t.Helper()
	snap, err := openSnapshot(context.Background(), m, q)
	if err != nil {
		t.Fatalf("candidates: %v", err)
	}
	defer snap.Close()
	return snap.Candidates
}

// searchHits are the candidates of query, best first, exact.
func searchHits(t *testing.T, m *memory.Memory, query string) []snapCandidate {
	return snapCandidates(t, m, snapshotQuery{Query: engine.Query{Terms: queryTerms(query), K: 200}, Params: engine.DefaultParams(), CheckExact: true})
}

// readRows runs query in a read transaction of m, calling scan per row.
func readRows(t *testing.T, m *memory.Memory, query string, args []any, scan func(*sql.Rows) error) {
	t.Helper()
	ctx := context.Background()
	rt, err := m.BeginRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if err := memory.EachRow(ctx, rt, query, args, scan); err != nil {
		t.Fatal(err)
	}
}

// sessionRow reads a conversation's row id.
func sessionRow(t *testing.T, m *memory.Memory, sid string, id *int64) error {
	readRows(t, m, `SELECT id FROM sessions WHERE session_id=?`, []any{sid}, func(rows *sql.Rows) error { return rows.Scan(id) })
	return nil
}

// turnInfos reads the receipts of turns, one query each.
func turnInfos(t *testing.T, m *memory.Memory, keys []memory.TurnKey) map[memory.TurnKey]turnInfo {
	out := map[memory.TurnKey]turnInfo{}
	for _, k := range keys {
		readRows(t, m, `SELECT s.harness, s.session_id, s.title, t.turn_uuid FROM turns t JOIN sessions s ON s.id = t.sess WHERE t.sess=? AND t.seq=?`,
			[]any{k.Sess, k.Seq}, func(rows *sql.Rows) error {
				var ti turnInfo
				err := rows.Scan(&ti.Harness, &ti.SessionID, &ti.Title, &ti.TurnUUID)
				out[k] = ti
				return err
			})
	}
	return out
}

// turnChunks reads a turn's chunks in order.
func turnChunks(t *testing.T, m *memory.Memory, k memory.TurnKey) []memory.Chunk {
	var out []memory.Chunk
	readRows(t, m, `SELECT id, body, tokens, searched FROM chunks WHERE sess=? AND seq=? ORDER BY block, part`, []any{k.Sess, k.Seq}, func(rows *sql.Rows) error {
		var c memory.Chunk
		err := rows.Scan(&c.ID, &c.Body, &c.Tokens, &c.Searched)
		out = append(out, c)
		return err
	})
	return out
}

// TestShownTurns reads, in one call, what recall shows of turns — across
// two conversations, past the padding of the first list size, with a long
// turn of several chunks and a turn that is not there — and finds what
// the per-turn reads find.
func TestShownTurns(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	long := strings.Repeat("The compressor bearing ran hot again on the north line. ", 90)
	texts := make([]string, 20)
	for i := range texts {
		texts[i] = "turn about the pump seal"
	}
	texts[7] = long
	mustIngest(t, m,
		conv("a", funes.HarnessChatGPT, "Pump seal", "", day0, "first", "second", "third", "fourth"),
		conv("b", funes.HarnessClaude, "Bearings", "", day0, texts...))
	if err := m.Tag(ctx, "a", "beta", "alpha"); err != nil {
		t.Fatal(err)
	}
	var sa, sb int64
	if err := sessionRow(t, m, "a", &sa); err != nil {
		t.Fatal(err)
	}
	if err := sessionRow(t, m, "b", &sb); err != nil {
		t.Fatal(err)
	}
	keys := []memory.TurnKey{{Sess: sa, Seq: 0}, {Sess: sa, Seq: 3}, {Sess: sb, Seq: 99}}
	for seq := 5; seq <= 12; seq++ {
		keys = append(keys, memory.TurnKey{Sess: sb, Seq: seq})
	}
	for _, neighbours := range []bool{true, false} {
		shown := showTurns(t, m, keys, len(keys), neighbours)
		if len(shown) != len(keys)-1 || shown[memory.TurnKey{Sess: sb, Seq: 99}] != nil {
			t.Fatalf("neighbours %v: %d turns shown of %d asked, one missing", neighbours, len(shown), len(keys))
		}
		infos := turnInfos(t, m, keys)
		for _, k := range keys[:2] {
			if got := shown[k].Projects; !reflect.DeepEqual(got, []string{"alpha", "beta"}) {
				t.Errorf("turn %v: projects %q, want alpha, beta", k, got)
			}
		}
		if got := shown[memory.TurnKey{Sess: sb, Seq: 5}].Projects; got == nil || len(got) != 0 {
			t.Errorf("an untagged conversation's projects are %#v, want empty", got)
		}
		for k, st := range shown {
			if st.turnInfo != infos[k] {
				t.Errorf("turn %v: receipt %+v, TurnInfos says %+v", k, st.turnInfo, infos[k])
			}
			chunks := turnChunks(t, m, k)
			if !reflect.DeepEqual(st.Chunks, chunks) {
				t.Errorf("turn %v: %d chunks, TurnChunks reads %d", k, len(st.Chunks), len(chunks))
			}
			var seqs []int
			for _, p := range st.Neighbours {
				seqs = append(seqs, p.Seq)
			}
			var want []int
			if neighbours {
				for _, s := range []int{k.Seq - 1, k.Seq + 1} {
					if s >= 0 && (k.Sess == sb && s < 20 || k.Sess == sa && s < 4) {
						want = append(want, s)
					}
				}
			}
			if !reflect.DeepEqual(seqs, want) {
				t.Errorf("neighbours %v, turn %v: neighbour seqs %v, want %v", neighbours, k, seqs, want)
			}
		}
		if n := len(shown[memory.TurnKey{Sess: sb, Seq: 7}].Chunks); n < 2 {
			t.Errorf("the long turn has %d chunks, want several", n)
		}
	}
	if shown := showTurns(t, m, nil, 0, true); len(shown) != 0 {
		t.Fatalf("no turns: %v", shown)
	}
	// More turns than the snapshot was opened for: read all the same.
	if shown := showTurns(t, m, keys, 2, true); len(shown) != len(keys)-1 {
		t.Fatalf("%d turns past the snapshot's list: %d shown", len(keys), len(shown))
	}
}

// showTurns reads turns as a recall shows them, from a snapshot opened for
// show turns.
func showTurns(t *testing.T, m *memory.Memory, keys []memory.TurnKey, show int, neighbours bool) map[memory.TurnKey]*shownTurn {
	t.Helper()
	ctx := context.Background()
	snap, err := openSnapshot(ctx, m, snapshotQuery{Query: engine.Query{Terms: queryTerms("pump"), K: 1}, Params: engine.DefaultParams(), Show: show, Neighbours: neighbours})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	shown, err := snap.Shown(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	return shown
}

// TestShownTurnsConcurrent reads shown turns from many goroutines at once,
// of lists of every padded size, while a tag changes: the shared prepared
// statements stay safe (run with -race) and every read sees a whole state.
func TestShownTurnsConcurrent(t *testing.T) {
	// A reader stuck waiting for a connection fails here, not at the test timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := openTest(t)
	texts := make([]string, 40)
	for i := range texts {
		texts[i] = "turn about the pump seal"
	}
	mustIngest(t, m, conv("c", funes.HarnessCodex, "Seals", "", day0, texts...))
	var sess int64
	if err := sessionRow(t, m, "c", &sess); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 9)
	for g := range 8 {
		go func() {
			for n := 1; n <= 40; n += 3 + g {
				keys := make([]memory.TurnKey, n)
				for i := range keys {
					keys[i] = memory.TurnKey{Sess: sess, Seq: i}
				}
				snap, err := openSnapshot(ctx, m, snapshotQuery{Query: engine.Query{Terms: queryTerms("seal"), K: 5}, Params: engine.DefaultParams(), Show: n, Neighbours: g%2 == 0})
				if err != nil {
					done <- err
					return
				}
				shown, err := snap.Shown(ctx, keys)
				snap.Close()
				if err != nil {
					done <- err
					return
				}
				if len(shown) != n {
					done <- fmt.Errorf("%d turns asked, %d shown", n, len(shown))
					return
				}
				if p := shown[keys[0]].Projects; len(p) > 1 {
					done <- fmt.Errorf("projects %q: more than the one tag", p)
					return
				}
			}
			done <- nil
		}()
	}
	go func() {
		for range 10 {
			if err := m.Tag(ctx, "c", "alpha"); err != nil {
				done <- err
				return
			}
			if err := m.Untag(ctx, "c", "alpha"); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range 9 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestCandidatesSameAfterReimport: the same conversations imported in the
// opposite order get other row ids, so other engine document ids; the
// candidates recall receives (which turns, in which order) must not change,
// however many of them tie and wherever the cut to K falls among the ties.
func TestCandidatesSameAfterReimport(t *testing.T) {
	ctx := context.Background()
	var ss []*funes.Session
	for i := range 46 {
		// Pairs of conversations with the same words, so their turns tie
		// (half the pairs at the same time, half a day apart), the pairs
		// told apart by length; and six alike at the top, for a cut of 3
		// inside them.
		pair := i / 2
		filler := strings.Repeat(" filler", 1+pair)
		start := day0.Add(time.Duration(pair) * time.Hour)
		if pair%2 == 1 {
			start = start.Add(time.Duration(i%2) * 24 * time.Hour)
		}
		if i >= 40 {
			filler, start = "", day0
		}
		ss = append(ss, conv(fmt.Sprintf("sess-%02d", (i*17)%46), "claude-code", "ledger notes", "", start,
			"the walrus ledger reconciliation failed again"+filler, "reconcile the walrus ledger"+filler, "ok"+filler))
	}
	m1, m2 := openTest(t), openTest(t)
	mustIngest(t, m1, ss...)
	rev := slices.Clone(ss)
	slices.Reverse(rev)
	for _, s := range rev {
		mustIngest(t, m2, s) // one at a time: other row ids than m1's
	}
	terms := queryTerms("walrus ledger reconciliation")
	list := func(m *memory.Memory, k int) []string {
		cs := snapCandidates(t, m, snapshotQuery{Query: engine.Query{Terms: terms, K: k}, Params: engine.DefaultParams(), CheckExact: true})
		if len(cs) != min(k, 3*46) {
			t.Fatalf("K %d: %d candidates", k, len(cs))
		}
		keys := make([]memory.TurnKey, len(cs))
		for i, c := range cs {
			keys[i] = memory.TurnKey{Sess: c.Sess, Seq: c.Seq}
		}
		info := turnInfos(t, m, keys)
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = fmt.Sprintf("%s %.12g", info[keys[i]].TurnUUID, c.BM25)
		}
		return out
	}
	for _, k := range []int{1, 3, 7, 20, 50, 100} {
		a, b := list(m1, k), list(m2, k)
		if !slices.Equal(a, b) {
			t.Errorf("K %d: candidates differ after a re-import in another order:\nfirst:  %v\nsecond: %v", k, a, b)
		}
	}
	// Positive control: by document id alone, the two memories' top 7
	// (the cut among the six alike, and the first pair) differ (so the test above can see an id-dependent order).
	ids := func(m *memory.Memory) []uint64 {
		tx, err := m.BeginRead(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Close()
		hits, err := engine.Search(ctx, tx, engine.Query{Terms: terms, K: 7}, engine.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		var uuids []uint64
		for _, h := range hits {
			var sid string
			tx.QueryRowContext(ctx, `SELECT session_id FROM sessions WHERE id=?`, memory.DocTurn(h.Doc).Sess).Scan(&sid)
			var n uint64
			fmt.Sscanf(sid, "sess-%d", &n)
			uuids = append(uuids, n<<8|uint64(memory.DocTurn(h.Doc).Seq))
		}
		return uuids
	}
	if a, b := ids(m1), ids(m2); slices.Equal(a, b) {
		t.Errorf("control: the engine's id order is the same in both memories (%v); the test cannot see a difference", a)
	}
}

// TestTurnCacheFollowsWrites: the role and time recall keeps of candidate
// turns are those of the memory as it is now, after a re-import changed
// them and after a forget.
func TestTurnCacheFollowsWrites(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	mustIngest(t, m, conv("a", "claude-code", "notes", "", day0, "walrus ledger", "ledger walrus again"))
	terms := queryTerms("walrus ledger")
	ask := func() []snapCandidate {
		return snapCandidates(t, m, snapshotQuery{Query: engine.Query{Terms: terms, K: 5}, Params: engine.DefaultParams()})
	}
	first := ask()
	if len(first) != 2 || keptTurns(t, m) != 2 {
		t.Fatalf("first recall: %d candidates, %d kept", len(first), keptTurns(t, m))
	}
	if again := ask(); again[0].TS != first[0].TS || again[0].Role != first[0].Role {
		t.Fatalf("from the cache: %+v, read: %+v", again[0], first[0])
	}
	// The same conversation again, a day later and with its roles swapped.
	later := conv("a", "claude-code", "notes", "", day0.Add(24*time.Hour), "walrus ledger", "ledger walrus again", "more")
	later.Turns[0].Role, later.Turns[1].Role = funes.RoleAssistant, funes.RoleUser
	mustIngest(t, m, later)
	byseq := map[int]snapCandidate{}
	for _, c := range ask() {
		byseq[c.Seq] = c
	}
	if c := byseq[0]; c.TS != day0.Add(24*time.Hour).Unix() || c.Role != funes.RoleAssistant {
		t.Fatalf("after a re-import: turn 0 is %+v, want the new time and role", c)
	}
	if _, err := m.Forget(ctx, []string{"a"}, nil); err != nil {
		t.Fatal(err)
	}
	if cs := ask(); len(cs) != 0 {
		t.Fatalf("after a forget: %+v", cs)
	}
}

// TestNeighbourPreviewsFromChunks: a turn's preview is cut from its chunks
// when read, as it was cut at import before (a turn of plumbing only keeps
// its label).
func TestNeighbourPreviewsFromChunks(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	long := strings.Repeat("word after word,  across\nlines ", 300) // several chunks
	s := conv("p", funes.HarnessChatGPT, "Previews", "", day0, long, "the answer in the middle", "short one")
	mustIngest(t, m, s)
	hits := searchHits(t, m, "answer middle")
	if len(hits) == 0 || hits[0].Seq != 1 {
		t.Fatalf("hits %+v", hits)
	}
	st := showTurns(t, m, []memory.TurnKey{{Sess: hits[0].Sess, Seq: 1}}, 1, true)
	ns := st[memory.TurnKey{Sess: hits[0].Sess, Seq: 1}].Neighbours
	if len(ns) != 2 || ns[0].Text != indexdoc.Preview(long) || ns[1].Text != "short one" {
		t.Fatalf("neighbours %+v, want %q and %q", ns, indexdoc.Preview(long), "short one")
	}
	// A candidate's preview (recall's echo and copies read it) likewise.
	snap, err := openSnapshot(ctx, m, snapshotQuery{Query: engine.Query{Terms: queryTerms("across lines"), K: 1}, Params: engine.DefaultParams(), Previews: true})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if len(snap.Candidates) != 1 || snap.Candidates[0].Seq != 0 || snap.Candidates[0].Preview != indexdoc.Preview(long) {
		t.Fatalf("candidates %+v, want turn 0 with preview %q", snap.Candidates, indexdoc.Preview(long))
	}
}

// keptTurns is how many turns m's turn cache holds.
func keptTurns(t *testing.T, m *memory.Memory) int {
	rt, err := m.BeginRead(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	return len(cachesOf(rt).turns.m)
}

// TestShownAfterCloseErrs: a snapshot used after Close says so; nothing
// panics.
func TestShownAfterCloseErrs(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	mustIngest(t, m, conv("a", funes.HarnessChatGPT, "Pump", "", day0, "the pump seal", "noted"))
	snap, err := openSnapshot(ctx, m, snapshotQuery{Query: engine.Query{Terms: queryTerms("pump"), K: 1}, Params: engine.DefaultParams(), Show: 1})
	if err != nil || len(snap.Candidates) != 1 {
		t.Fatalf("snapshot: %v %+v", err, snap)
	}
	k := memory.TurnKey{Sess: snap.Candidates[0].Sess, Seq: snap.Candidates[0].Seq}
	snap.Close()
	snap.Close()
	if _, err := snap.Shown(ctx, []memory.TurnKey{k}); err == nil {
		t.Error("Shown after Close: no error")
	}
	if _, err := snap.Shown(ctx, []memory.TurnKey{k}, k); err == nil {
		t.Error("Shown of a reply after Close: no error")
	}
}
