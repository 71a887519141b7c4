package recall

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// TestTimeFilterKeepsTheSpansTurns: the documents a time filter keeps, from
// the span cache, are the turns the filter's SQL keeps (the conversation's
// span overlapping, the turn's own time inside), for spans that start and
// end inside conversations, with turns out of order and undated, under a
// source filter too; and a write's new generation is seen.
func TestTimeFilterKeepsTheSpansTurns(t *testing.T) {
	m := openTest(t)
	r := rand.New(rand.NewPCG(7, 9))
	var ss []*funes.Session
	for i := range 14 {
		start := day0.Add(time.Duration(r.IntN(90*24)) * time.Hour)
		texts := make([]string, 2+r.IntN(6))
		for k := range texts {
			texts[k] = fmt.Sprintf("pump seal note %d of %d", k, i)
		}
		harness := []string{"claude_code", "chatgpt"}[i%2]
		s := conv(fmt.Sprintf("s%d", i), harness, "title", "", start, texts...)
		for k := range s.Turns {
			switch r.IntN(6) {
			case 0:
				s.Turns[k].TS = time.Time{} // undated: the turn before's time
			case 1:
				s.Turns[k].TS = start.Add(-time.Duration(1+r.IntN(72)) * time.Hour) // out of order
			default:
				s.Turns[k].TS = start.Add(time.Duration(r.IntN(96)) * time.Hour)
			}
		}
		ss = append(ss, s)
	}
	mustIngest(t, m, ss[:10]...)
	check := func(what string) int {
		t.Helper()
		compared := 0
		for i := range 60 {
			var cq snapshotQuery
			lo := day0.Add(time.Duration(r.IntN(100*24)-5*24) * time.Hour)
			switch i % 3 {
			case 0:
				cq.Since = lo
			case 1:
				cq.Until = lo
			default:
				cq.Since, cq.Until = lo, lo.Add(time.Duration(1+r.IntN(30*24))*time.Hour)
			}
			if i%4 == 0 {
				cq.Source = "chatgpt"
			}
			got, want := filterDocs(t, m, cq), filterDocsSQL(t, m, cq)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: since %v until %v source %q: kept %v, the SQL %v", what, cq.Since, cq.Until, cq.Source, got, want)
			}
			compared += len(want)
		}
		return compared
	}
	if n := check("first"); n == 0 {
		t.Fatal("no span kept a turn: the test compares nothing")
	}
	if keptTurnTimes(t, m) == 0 {
		t.Fatal("the span cache kept no packed turn times")
	}
	check("again, from the cache")
	mustIngest(t, m, ss[10:]...) // a new generation
	check("after a write")
}

// keptTurnTimes is how many bytes of packed turn times m's span cache holds.
func keptTurnTimes(t *testing.T, m *memory.Memory) int {
	rt, err := m.BeginRead(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	n := 0
	for _, s := range cachesOf(rt).spans.spans {
		n += len(s.times)
	}
	return n
}

// filterDocs is what docFilter keeps, document by document.
func filterDocs(t *testing.T, m *memory.Memory, cq snapshotQuery) []uint64 {
	t.Helper()
	ctx := context.Background()
	rt, err := m.BeginRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	allow, rs, err := docFilter(ctx, rt, &cachesOf(rt).spans, cq)
	if err != nil {
		t.Fatal(err)
	}
	if allow != nil || rs == nil {
		t.Fatalf("a time filter gave a test by document (%v) or no ranges", allow != nil)
	}
	var out []uint64
	for _, r := range rs {
		for d := r.Lo; d <= r.Hi; d++ {
			out = append(out, d)
		}
	}
	return out
}

// filterDocsSQL is what the filter's SQL kept before the span cache.
func filterDocsSQL(t *testing.T, m *memory.Memory, cq snapshotQuery) []uint64 {
	t.Helper()
	q := `SELECT t.sess, t.seq FROM sessions s CROSS JOIN turns t ON t.sess = s.id WHERE 1`
	var args []any
	if cq.Source != "" {
		q += ` AND s.harness = ?`
		args = append(args, cq.Source)
	}
	if !cq.Since.IsZero() {
		q += ` AND s.updated >= ? AND t.ts >= ?`
		args = append(args, cq.Since.Unix(), cq.Since.Unix())
	}
	if !cq.Until.IsZero() {
		q += ` AND s.started < ? AND t.ts < ?`
		args = append(args, cq.Until.Unix(), cq.Until.Unix())
	}
	var out []uint64
	readRows(t, m, q, args, func(rows *sql.Rows) error {
		var k memory.TurnKey
		err := rows.Scan(&k.Sess, &k.Seq)
		out = append(out, k.Doc())
		return err
	})
	slices.Sort(out)
	return out
}

// TestPreviewCacheFollowsWrites: a candidate's preview comes from the cache
// when an earlier recall of the same index read it, and from the turn again
// after a write changed it.
func TestPreviewCacheFollowsWrites(t *testing.T) {
	m := openTest(t)
	mustIngest(t, m, conv("a", "claude-code", "notes", "", day0, "walrus ledger first words", "ledger walrus again"))
	ask := func() map[int]string {
		snap, err := openSnapshot(context.Background(), m, snapshotQuery{Query: engine.Query{Terms: queryTerms("walrus ledger"), K: 5}, Params: engine.DefaultParams(), Previews: true})
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		out := map[int]string{}
		for _, c := range snap.Candidates {
			out[c.Seq] = c.Preview
		}
		return out
	}
	first := ask()
	if first[0] != "walrus ledger first words" || first[1] != "ledger walrus again" {
		t.Fatalf("first recall's previews %v", first)
	}
	if n := keptPreviews(t, m); n != 2 {
		t.Fatalf("%d previews kept, want 2", n)
	}
	if again := ask(); !maps.Equal(again, first) {
		t.Fatalf("from the cache %v, read %v", again, first)
	}
	mustIngest(t, m, conv("a", "claude-code", "notes", "", day0, "walrus ledger said otherwise", "ledger walrus again"))
	if after := ask(); after[0] != "walrus ledger said otherwise" {
		t.Fatalf("after a re-import: %v", after)
	}
}

// keptPreviews is how many previews m's preview cache holds.
func keptPreviews(t *testing.T, m *memory.Memory) int {
	rt, err := m.BeginRead(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	return len(cachesOf(rt).previews.m)
}

// TestNameCacheFollowsWrites: tied turns are ordered by their
// conversations' names; a row id that a forget frees and an import takes
// again names the new conversation, not the one the cache read before.
func TestNameCacheFollowsWrites(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	mustIngest(t, m, conv("m-first", "claude-code", "notes", "", day0, "walrus ledger"), conv("z-last", "claude-code", "notes", "", day0, "walrus ledger"))
	order := func() []string {
		cs := snapCandidates(t, m, snapshotQuery{Query: engine.Query{Terms: queryTerms("walrus ledger"), K: 5}, Params: engine.DefaultParams()})
		var ids []string
		readRows(t, m, `SELECT id, session_id FROM sessions`, nil, func(rows *sql.Rows) error {
			var id int64
			var sid string
			if err := rows.Scan(&id, &sid); err != nil {
				return err
			}
			for _, c := range cs {
				if c.Sess == id {
					ids = append(ids, fmt.Sprintf("%d %s", slices.IndexFunc(cs, func(x snapCandidate) bool { return x.Sess == id }), sid))
				}
			}
			return nil
		})
		slices.Sort(ids)
		return ids
	}
	if got := order(); !slices.Equal(got, []string{"0 m-first", "1 z-last"}) {
		t.Fatalf("tied turns ordered %v", got)
	}
	if _, err := m.Forget(ctx, []string{"z-last"}, nil); err != nil {
		t.Fatal(err)
	}
	mustIngest(t, m, conv("a-new", "claude-code", "notes", "", day0, "walrus ledger")) // z-last's row id again
	if got := order(); !slices.Equal(got, []string{"0 a-new", "1 m-first"}) {
		t.Fatalf("after a forget and an import: tied turns ordered %v", got)
	}
}

// TestShownCacheFollowsWrites: asked again in the same generation, a recall
// shows the same hits from the kept turns (and the kept reply of a first
// hit that asks); after a re-import changed a turn it shows the new text,
// after a forget nothing of the conversation, and after an import that
// takes the forgotten conversation's row id (so its turns' keys) the new
// conversation's text.
func TestShownCacheFollowsWrites(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	mustIngest(t, m, background(30)...)
	mustIngest(t, m, conv("b", "claude", "Other", "", day0, "The heron nests by the river.", "Herons migrate in spring."))
	mustIngest(t, m, conv("a", "claude-code", "Heron", "", day0, "What port does the heron migration use?", "The heron migration uses port 6412."))
	ask := func() *Result {
		res, err := Recall(ctx, m, Options{Query: "heron migration port", K: 3})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := ask()
	if len(first.Hits) == 0 || !strings.Contains(first.Hits[0].Text+first.Hits[1].Text, "6412") {
		t.Fatalf("first recall: %v", uuids(first.Hits))
	}
	rt, err := m.BeginRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kept := len(cachesOf(rt).shown.m)
	rt.Close()
	if kept == 0 {
		t.Fatal("no shown turn kept")
	}
	again := ask()
	if !reflect.DeepEqual(again.Hits, first.Hits) {
		t.Fatalf("asked again: %+v\nfirst: %+v", again.Hits, first.Hits)
	}
	mustIngest(t, m, conv("a", "claude-code", "Heron", "", day0, "What port does the heron migration use?", "The heron migration uses port 7777 now."))
	after := ask()
	var text string
	for _, h := range after.Hits {
		text += h.Text
	}
	if strings.Contains(text, "6412") || !strings.Contains(text, "7777") {
		t.Fatalf("after a re-import the hits say %q", text)
	}
	if _, err := m.Forget(ctx, []string{"a"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, h := range ask().Hits {
		if h.SessionID == "a" {
			t.Fatalf("after a forget: hit %+v", h)
		}
	}
	mustIngest(t, m, conv("c", "claude-code", "Heron", "", day0, "What port does the heron migration use?", "The heron migration uses port 9999."))
	text = ""
	for _, h := range ask().Hits {
		if h.SessionID == "c" {
			text += h.Text
		}
	}
	if !strings.Contains(text, "9999") || strings.Contains(text, "7777") {
		t.Fatalf("after a forget and an import: c's hits say %q", text)
	}
}
