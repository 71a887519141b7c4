package memory

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
)

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
	list := func(m *Memory, k int) []string {
		cs := readCandidates(t, m, RecallQuery{Query: engine.Query{Terms: terms, K: k}, Params: engine.DefaultParams(), CheckExact: true})
		if len(cs) != min(k, 3*46) {
			t.Fatalf("K %d: %d candidates", k, len(cs))
		}
		keys := make([]TurnKey, len(cs))
		for i, c := range cs {
			keys[i] = TurnKey{c.Sess, c.Seq}
		}
		info, err := m.TurnInfos(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
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
	ids := func(m *Memory) []uint64 {
		tx, err := m.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		hits, err := engine.Search(ctx, tx, engine.Query{Terms: terms, K: 7}, engine.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		var uuids []uint64
		for _, h := range hits {
			var sid string
			tx.QueryRowContext(ctx, `SELECT session_id FROM sessions WHERE id=?`, docSession(h.Doc)).Scan(&sid)
			var n uint64
			fmt.Sscanf(sid, "sess-%d", &n)
			uuids = append(uuids, n<<8|uint64(docSeq(h.Doc)))
		}
		return uuids
	}
	if a, b := ids(m1), ids(m2); slices.Equal(a, b) {
		t.Errorf("control: the engine's id order is the same in both memories (%v); the test cannot see a difference", a)
	}
}
