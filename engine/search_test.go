package engine

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

func openDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "e.db")+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// corpus makes random documents over a Zipfian vocabulary of n words.
type corpus struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

func newCorpus(seed uint64, n int, s float64) *corpus {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	c := &corpus{r: r, zipf: rand.NewZipf(r, s, 1, uint64(n-1))}
	for i := range n {
		c.vocab = append(c.vocab, fmt.Sprintf("w%dq%s", i, strings.Repeat("x", i%3)))
	}
	return c
}

func (c *corpus) word() string {
	if c.zipf == nil {
		return c.vocab[c.r.IntN(len(c.vocab))]
	}
	return c.vocab[c.zipf.Uint64()]
}

func (c *corpus) text(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = c.word()
	}
	return strings.Join(ws, " ")
}

func (c *corpus) doc() [NumFields]string {
	var f [NumFields]string
	f[Body] = c.text(1 + c.r.IntN(200))
	f[Title] = c.text(c.r.IntN(6))
	if c.r.IntN(3) == 0 {
		f[IDs] = c.text(1 + c.r.IntN(3))
	}
	f[Date] = c.text(c.r.IntN(4))
	return f
}

func (c *corpus) query() Query {
	var q Query
	for range 1 + c.r.IntN(8) {
		m := FieldMask(1 + c.r.IntN(int(AllFields)))
		if c.r.IntN(2) == 0 {
			m = AllFields &^ (1 << IDs)
		}
		q.Terms = append(q.Terms, QueryTerm{Term: Term(c.word()), Fields: m, Probe: c.r.IntN(6) == 0})
	}
	q.K = []int{1, 3, 8, 50, 200}[c.r.IntN(5)]
	q.Ties = []int{0, 0, 2, q.K}[c.r.IntN(4)]
	return q
}

func addDocs(t testing.TB, db *sql.DB, c *corpus, ids []uint64) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := w.Add(id, c.doc()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func deleteDocs(t testing.TB, db *sql.DB, ids []uint64) {
	t.Helper()
	ctx := context.Background()
	tx, _ := db.BeginTx(ctx, nil)
	w, err := NewWriter(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Delete(ids); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// sameHits compares a pruned top-k with the exhaustive one: the same
// documents with the same scores in the same order.
func sameHits(t *testing.T, what string, got, want []Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, exhaustive %d", what, len(got), len(want))
	}
	for i := range got {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) || got[i].Score != want[i].Score || got[i].Turn != want[i].Turn || got[i].PassageScore != want[i].PassageScore {
			t.Fatalf("%s: hit %d = %+v, exhaustive %+v", what, i, got[i], want[i])
		}
	}
}

// testCache is shared by every search of the exactness tests, small enough
// to evict.
var testCache = NewCache(1 << 20)

func checkQueries(t *testing.T, db *sql.DB, c *corpus, n int, p Params, allow func(uint64) bool, what string) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	nonEmpty := 0
	for i := range n {
		q := c.query()
		q.Allow = allow
		if i%2 == 0 {
			q.Cache = testCache // kept across writes: its generations must keep it right
		}
		if i%3 == 1 {
			q.Shards = 2 + i%4
		}
		got, err := Search(ctx, tx, q, p)
		if err != nil {
			t.Fatal(err)
		}
		q.Cache = nil // the reference reads the database itself
		want, err := SearchExhaustive(ctx, tx, q, p)
		if err != nil {
			t.Fatal(err)
		}
		sameHits(t, fmt.Sprintf("%s query %d %+v", what, i, q.Terms), got, want)
		if len(want) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < n/2 {
		t.Fatalf("%s: only %d of %d queries found anything", what, nonEmpty, n)
	}
}

func TestSearchExact(t *testing.T) {
	params := []Params{DefaultParams(),
		{K1: 0.9, Fields: [NumFields]FieldParams{{1, 0.4}, {3, 1}, {0, 0.5}, {0.2, 0}}, Passage: 1},
		{K1: 2, Fields: [NumFields]FieldParams{{1, 1}, {0, 0}, {5, 0.75}, {1, 0.75}}, Passage: 0.6},
	}
	for _, tc := range []struct {
		name  string
		vocab int
		s     float64 // Zipf exponent; 0 for uniform
		docs  int
	}{
		{"uniform", 300, 0, 1500},
		{"zipf", 3000, 1.1, 3000},
		{"steep zipf", 500, 1.6, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			c := newCorpus(uint64(len(tc.name)), tc.vocab, tc.s)
			if tc.s == 0 {
				c.zipf = nil
			}
			// Sessions of up to 40 turns: id = session<<20 | turn.
			var ids []uint64
			for sess := uint64(1); len(ids) < tc.docs; sess++ {
				for seq := range uint64(1 + c.r.IntN(40)) {
					ids = append(ids, sess<<20|seq)
				}
			}
			half := len(ids) / 2
			addDocs(t, db, c, ids[:half])
			addDocs(t, db, c, ids[half:])
			for i, p := range params {
				checkQueries(t, db, c, 150, p, nil, fmt.Sprintf("params %d", i))
			}
			// A filter: only sessions divisible by 3.
			checkQueries(t, db, c, 150, params[0], func(d uint64) bool { return (d>>20)%3 == 0 }, "filtered")
			// Delete a third of the documents (whole sessions and odd
			// turns), append more, and check again.
			var gone []uint64
			for _, id := range ids {
				if (id>>20)%4 == 1 || id%5 == 2 {
					gone = append(gone, id)
				}
			}
			deleteDocs(t, db, gone)
			var more []uint64
			last := ids[len(ids)-1] >> 20
			for sess := last + 1; sess < last+30; sess++ {
				for seq := range uint64(1 + c.r.IntN(40)) {
					more = append(more, sess<<20|seq)
				}
			}
			addDocs(t, db, c, more)
			for i, p := range params {
				checkQueries(t, db, c, 150, p, nil, fmt.Sprintf("after deletes, params %d", i))
			}
			checkQueries(t, db, c, 100, params[1], func(d uint64) bool { return d%2 == 0 }, "after deletes, filtered")
		})
	}
}

func TestScoresAreBM25F(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	tx, _ := db.BeginTx(ctx, nil)
	w, err := NewWriter(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	docs := [][NumFields]string{
		{"alpha beta beta gamma", "alpha", "", "march 2026"},
		{"beta delta", "other", "", "march 2026"},
		{"gamma gamma gamma", "", "mt4471", "april 2026"},
	}
	for i, d := range docs {
		if err := w.Add(uint64(i+1), d); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	tx.Commit()
	p := DefaultParams()
	rtx, _ := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	defer rtx.Rollback()
	hits, err := Search(ctx, rtx, Query{K: 10, Terms: []QueryTerm{{Term: "alpha", Fields: AllFields}}}, p)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: N=3, df(alpha)=1; body lengths 4,2,3 (avg 3); titles 1,1,0 (avg 2/3).
	idf := math.Log(1 + (3-1+0.5)/(1+0.5))
	tf := 1*1/(0.25+0.75*4/3.0) + 0.5*1/(0.25+0.75*1/(2/3.0))
	want := idf * tf * 2.2 / (tf + 1.2)
	if len(hits) != 1 || hits[0].Doc != 1 || math.Abs(hits[0].Score-want) > 1e-12 {
		t.Fatalf("alpha: %+v, want doc 1 scoring %v", hits, want)
	}
	// An identifier asked for in the ids field only.
	hits, _ = Search(ctx, rtx, Query{K: 10, Terms: []QueryTerm{{Term: "mt4471", Fields: 1 << IDs}, {Term: "beta", Fields: 1 << Title}}}, p)
	if len(hits) != 1 || hits[0].Doc != 3 {
		t.Fatalf("mt4471 in ids: %+v", hits)
	}
}

func TestDeleteRemovesTerms(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	tx, _ := db.BeginTx(ctx, nil)
	w, _ := NewWriter(ctx, tx)
	w.Add(1<<20, [NumFields]string{"the secret zebracorn lives here", "kept title"})
	w.Add(1<<20|1, [NumFields]string{"zebracorn again", "kept title"})
	w.Add(2<<20, [NumFields]string{"the kept conversation unicornfish", "kept title"})
	w.Flush()
	w.Close()
	tx.Commit()
	has := func(term string) bool {
		ok, err := HasTerm(ctx, db, term)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !has("zebracorn") || !has("unicornfish") {
		t.Fatal("terms missing before the delete")
	}
	tx, _ = db.BeginTx(ctx, nil)
	w, _ = NewWriter(ctx, tx)
	if err := w.DeleteRange(1<<20, 2<<20-1, nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	tx.Commit()
	if has("zebracorn") || has("secret") || has("live") {
		t.Fatal("a term only the deleted conversation held is still in the index")
	}
	if !has("unicornfish") || !has("kept") {
		t.Fatal("positive control: the kept conversation's terms are gone")
	}
	st, _ := ReadStats(ctx, db)
	if st.Docs != 1 || st.LenSum[Body] != 4 || st.LenSum[Title] != 2 {
		t.Fatalf("stats after delete: %+v", st)
	}
}

// TestTiesKept: the documents scored as the K-th best are kept beyond K, up
// to Ties (the lowest ids), by the pruned search and the exhaustive one
// alike, so a caller can order them by a key that survives a re-import.
func TestTiesKept(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	tx, _ := db.BeginTx(ctx, nil)
	w, err := NewWriter(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	// 300 identical documents (more than a block) and two better ones;
	// other words so the blocks differ in length bounds.
	var ids []uint64
	for i := range 300 {
		id := uint64(i+1) << 20
		ids = append(ids, id)
		if err := w.Add(id, [NumFields]string{"walrus tusk report"}); err != nil {
			t.Fatal(err)
		}
		if err := w.Add(id|1, [NumFields]string{"nothing here but " + strings.Repeat("filler ", 1+i%7)}); err != nil {
			t.Fatal(err)
		}
	}
	w.Add(500<<20, [NumFields]string{"walrus walrus tusk"})
	w.Add(501<<20, [NumFields]string{"walrus tusk tusk"})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	tx.Commit()
	rtx, _ := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	defer rtx.Rollback()
	q := Query{K: 5, Terms: []QueryTerm{{Term: Term("walrus"), Fields: AllFields}, {Term: Term("tusk"), Fields: AllFields}}}
	for _, tc := range []struct{ ties, want int }{{0, 5}, {10, 15}, {1000, 302}} {
		q.Ties = tc.ties
		got, err := Search(ctx, rtx, q, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		want, err := SearchExhaustive(ctx, rtx, q, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		sameHits(t, fmt.Sprintf("ties %d", tc.ties), got, want)
		if len(got) != tc.want {
			t.Fatalf("ties %d: %d hits, want %d", tc.ties, len(got), tc.want)
		}
		// The two better ones, then the tied ones of the lowest ids in order.
		for i, h := range got[2:] {
			if h.Doc != ids[i] || h.Score != got[2].Score {
				t.Fatalf("ties %d: hit %d is %+v, want doc %d scored %v", tc.ties, i+2, h, ids[i], got[2].Score)
			}
		}
	}
}

// TestDeleteKnownDocs: a delete handed the documents as added takes their
// postings from their terms' lists; one handed a document that is not the
// one stored (or none) finds them by reading every list. Either way
// nothing of them is left and the rest searches as before.
func TestDeleteKnownDocs(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	c := newCorpus(11, 400, 1.1)
	docs := map[uint64][NumFields]string{}
	var ids []uint64
	for sess := uint64(1); sess <= 60; sess++ {
		for seq := range uint64(1 + c.r.IntN(8)) {
			id := sess<<MemberBits | seq
			f := c.doc()
			f[Body] += fmt.Sprintf(" only%dx%d", sess, seq) // a term no other document holds
			docs[id] = f
			ids = append(ids, id)
		}
	}
	tx, _ := db.BeginTx(ctx, nil)
	w, _ := NewWriter(ctx, tx)
	for _, id := range ids {
		if err := w.Add(id, docs[id]); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	w.Close()
	tx.Commit()
	for _, tc := range []struct {
		sess  uint64
		known Known
	}{
		{3, func(id uint64, try func(*Doc) bool) { // as added, after a wrong guess
			_ = try(NewDoc([NumFields]string{"a first guess"})) || try(NewDoc(docs[id]))
		}},
		{4, nil}, // not known
		{5, func(id uint64, try func(*Doc) bool) { try(NewDoc([NumFields]string{"other words"})) }}, // known otherwise
	} {
		tx, _ := db.BeginTx(ctx, nil)
		w, _ := NewWriter(ctx, tx)
		if err := w.DeleteRange(tc.sess<<MemberBits, (tc.sess+1)<<MemberBits-1, tc.known); err != nil {
			t.Fatal(err)
		}
		if fast := tc.sess == 3; fast != (w.Lost() == 0) {
			t.Errorf("session %d: %d documents looked for in every list", tc.sess, w.Lost())
		}
		w.Close()
		tx.Commit()
		for _, id := range ids {
			if id>>MemberBits != tc.sess {
				continue
			}
			if ok, _ := HasTerm(ctx, db, fmt.Sprintf("only%dx%d", id>>MemberBits, id&memberMask)); ok {
				t.Errorf("session %d: the term only document %d held is still indexed", tc.sess, id)
			}
		}
	}
	if ok, _ := HasTerm(ctx, db, "only6x0"); !ok {
		t.Fatal("positive control: a kept document's own term is gone")
	}
	var left []uint64
	for _, id := range ids {
		if s := id >> MemberBits; s < 3 || s > 5 {
			left = append(left, id)
		}
	}
	st, _ := ReadStats(ctx, db)
	if st.Docs != int64(len(left)) {
		t.Fatalf("%d documents counted, %d left", st.Docs, len(left))
	}
	checkQueries(t, db, c, 100, Params{K1: 1.2, Fields: DefaultParams().Fields, Passage: 0.9}, nil, "after deletes")
}

// TestRangesKeepOnlyTheirDocuments: a search kept to document ranges finds
// what the same search filtered document by document finds, reads fewer
// blocks, and ranges out of order are an error.
func TestRangesKeepOnlyTheirDocuments(t *testing.T) {
	var ids []uint64
	var docs [][NumFields]string
	for i := range 400 {
		ids = append(ids, uint64(i+1))
		docs = append(docs, [NumFields]string{fmt.Sprintf("alpha beta w%d", i%7)})
	}
	db := smallIndex(t, 8, len(ids), ids, docs)
	ctx := context.Background()
	tx, _ := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	defer tx.Rollback()
	rs := []DocRange{{100, 120}, {300, 305}}
	base := Query{K: 5, Ties: 40, Terms: []QueryTerm{{Term: "alpha", Fields: 1 << Body}, {Term: "w3", Fields: 1 << Body}}}
	byDoc, ranged := base, base
	byDoc.Allow = func(d uint64) bool { return InRanges(rs, d) }
	ranged.Ranges = rs
	var sd, sr SearchStats
	byDoc.Stats, ranged.Stats = &sd, &sr
	want, err := Search(ctx, tx, byDoc, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	got, err := Search(ctx, tx, ranged, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	sameHits(t, "ranges", got, want)
	if len(got) == 0 {
		t.Fatal("found nothing: the case compares nothing")
	}
	for _, h := range got {
		if !InRanges(rs, h.Doc) {
			t.Fatalf("hit %d is outside %v", h.Doc, rs)
		}
	}
	if sr.Blocks >= sd.Blocks {
		t.Fatalf("ranged search read %d blocks, filtered one %d: it did not skip", sr.Blocks, sd.Blocks)
	}
	none := base
	none.Ranges = []DocRange{}
	if hs, err := Search(ctx, tx, none, DefaultParams()); err != nil || len(hs) != 0 {
		t.Fatalf("empty ranges: %v, %v; want nothing", hs, err)
	}
	bad := base
	bad.Ranges = []DocRange{{10, 20}, {15, 30}}
	if _, err := Search(ctx, tx, bad, DefaultParams()); err == nil {
		t.Fatal("overlapping ranges accepted")
	}
}
