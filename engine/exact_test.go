package engine

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The proof that pruning changes nothing: on small random collections cut
// into small blocks (so a few hundred documents make many blocks, and every
// bound and skip of the pruned search is exercised), the pruned top-k must
// be the exhaustive one, document by document, score by score.

// smallIndex writes docs (by id, ascending) in batches of about batch
// documents, each batch its own transaction, with blocks of blockSize.
func smallIndex(t testing.TB, blockSize, batch int, ids []uint64, docs [][NumFields]string) *sql.DB {
	t.Helper()
	// In memory: the fuzzer builds thousands of these.
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	for lo := 0; lo < len(ids); lo += batch {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewWriter(ctx, tx)
		if err != nil {
			t.Fatal(err)
		}
		w.blockSize = blockSize
		for i := lo; i < min(lo+batch, len(ids)); i++ {
			if err := w.Add(ids[i], docs[i]); err != nil {
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
	return db
}

// exactCase is one random collection and its queries, drawn from seed.
type exactCase struct {
	seed      uint64
	docs      int // documents
	vocab     int // distinct words
	blockSize int
	zipf      float64 // 0: uniform
	queries   int
}

// exactCounts is what a case compared.
type exactCounts struct {
	queries, nonEmpty           int
	prunedScored, exhaustScored int
	passageWon                  int // hits ranked by their best passage
}

func (ec exactCase) run(t *testing.T) exactCounts {
	t.Helper()
	r := rand.New(rand.NewPCG(ec.seed, ec.seed*0x9e3779b97f4a7c15+1))
	c := &corpus{r: r}
	for i := range ec.vocab {
		c.vocab = append(c.vocab, fmt.Sprintf("w%dq", i))
	}
	if ec.zipf > 1 {
		c.zipf = rand.NewZipf(r, ec.zipf, 1, uint64(ec.vocab-1))
	}
	// Documents of very different lengths and term frequencies, so block
	// bounds differ from block to block.
	var ids []uint64
	var docs [][NumFields]string
	for sess := uint64(1); len(ids) < ec.docs; sess++ {
		for seq := range uint64(1 + r.IntN(6)) {
			var f [NumFields]string
			n := 1 + r.IntN([]int{3, 12, 60, 250}[r.IntN(4)])
			ws := make([]string, n)
			for i := range ws {
				ws[i] = c.word()
				if r.IntN(9) == 0 { // sentences and lines, for the passages of a long body
					ws[i] += []string{".", "\n", "?"}[r.IntN(3)]
				}
			}
			if r.IntN(4) == 0 { // a word said again and again
				w := c.word()
				for range 1 + r.IntN(6) {
					ws = append(ws, w)
				}
			}
			f[Body] = strings.Join(ws, " ")
			if r.IntN(3) == 0 {
				f[Title] = c.text(1 + r.IntN(3))
			}
			if r.IntN(4) == 0 {
				f[IDs] = c.text(1)
			}
			if r.IntN(2) == 0 {
				f[Date] = c.text(1 + r.IntN(2))
			}
			ids = append(ids, sess<<20|seq)
			docs = append(docs, f)
		}
	}
	db := smallIndex(t, ec.blockSize, 1+r.IntN(len(ids)), ids, docs)
	if r.IntN(3) == 0 { // deletes rewrite blocks
		var gone []uint64
		for _, id := range ids {
			if r.IntN(5) == 0 {
				gone = append(gone, id)
			}
		}
		ctx := context.Background()
		tx, _ := db.BeginTx(ctx, nil)
		w, err := NewWriter(ctx, tx)
		if err != nil {
			t.Fatal(err)
		}
		w.blockSize = ec.blockSize
		if err := w.Delete(gone); err != nil {
			t.Fatal(err)
		}
		w.Close()
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	params := []Params{DefaultParams(),
		{K1: 2, Fields: [NumFields]FieldParams{{1, 0.75}, {0.1, 0.75}, {2, 0.75}, {2, 0.75}}, Passage: 0.8},
		{K1: 0.5, Fields: [NumFields]FieldParams{{1, 1}, {3, 0.2}, {0, 0}, {0.5, 1}}, Passage: 1},
		{K1: 1.2, Fields: [NumFields]FieldParams{{1, 0.75}, {0.5, 0.75}, {2, 0}, {2, 0.75}}, Passage: 0.5},
	}
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n exactCounts
	cache := NewCache(64 << 10)
	for i := range ec.queries {
		q := c.query()
		q.K = []int{1, 2, 3, 5, 10}[r.IntN(5)]
		p := params[r.IntN(len(params))]
		if r.IntN(4) == 0 {
			q.Allow = func(d uint64) bool { return d%3 != 0 }
		}
		if r.IntN(3) == 0 {
			q.Ranges = randomRanges(r, ids)
		}
		if i%2 == 1 {
			q.Cache = cache
		}
		if r.IntN(3) == 0 { // split by document ranges, however short the lists (shards.go)
			q.Shards = 2 + r.IntN(3)
		}
		var ps, es SearchStats
		q.Stats = &ps
		got, err := Search(ctx, tx, q, p)
		if err != nil {
			t.Fatal(err)
		}
		q.Cache, q.Stats = nil, &es
		want, err := SearchExhaustive(ctx, tx, q, p)
		if err != nil {
			t.Fatal(err)
		}
		sameHits(t, fmt.Sprintf("%+v: query %d %+v k %d ties %d", ec, i, q.Terms, q.K, q.Ties), got, want)
		if ps.Scored > es.Scored {
			t.Fatalf("%+v: query %d: pruned search scored %d documents, exhaustive %d", ec, i, ps.Scored, es.Scored)
		}
		n.queries++
		if len(want) > 0 {
			n.nonEmpty++
		}
		for _, h := range want {
			if h.Passage >= 0 && h.Score > h.Turn {
				n.passageWon++
			}
		}
		n.prunedScored += ps.Scored
		n.exhaustScored += es.Scored
	}
	return n
}

// randomRanges keeps a few stretches of ids (some none, some a single
// document, some between documents), as a time filter keeps conversations.
func randomRanges(r *rand.Rand, ids []uint64) []DocRange {
	rs := []DocRange{}
	for at := 0; at < len(ids); {
		at += r.IntN(1 + len(ids)/3)
		if at >= len(ids) {
			break
		}
		lo := ids[at] - uint64(r.IntN(2)) // sometimes from just before a document
		at += r.IntN(1 + len(ids)/4)
		hi := ids[min(at, len(ids)-1)] + uint64(r.IntN(2))
		if len(rs) > 0 && lo <= rs[len(rs)-1].Hi {
			lo = rs[len(rs)-1].Hi + 1
		}
		if lo <= hi {
			rs = append(rs, DocRange{lo, hi})
		}
		at++
	}
	return rs
}

func caseOf(seed uint64, docs uint16, vocab, blk, zipf uint8) exactCase {
	return exactCase{
		seed: seed, docs: 8 + int(docs%300), vocab: 3 + int(vocab%40),
		blockSize: 2 + int(blk%9), zipf: []float64{0, 1.1, 1.5, 2.5}[zipf%4], queries: 40,
	}
}

// FuzzSearchExact: for any collection and query, the pruned top-k is the
// exhaustive one. Its seeds run with every `go test`; `make test` also
// fuzzes it for a bounded time.
func FuzzSearchExact(f *testing.F) {
	for s := range uint64(24) {
		f.Add(s, uint16(40+s*37), uint8(4+s*5), uint8(s), uint8(s))
	}
	f.Fuzz(func(t *testing.T, seed uint64, docs uint16, vocab, blk, zipf uint8) {
		caseOf(seed, docs, vocab, blk, zipf).run(t)
	})
}

// TestPrunedSearchScoresFewer: over many small collections the pruned
// search is exact and scores fewer documents than the exhaustive one (it
// prunes at all), and the cases found something to compare.
func TestPrunedSearchScoresFewer(t *testing.T) {
	var n exactCounts
	sharded := shardedRuns.Load()
	for s := range uint64(60) {
		c := caseOf(1000+s, uint16(s*53), uint8(s*7), uint8(s), uint8(s/3))
		got := c.run(t)
		n.queries += got.queries
		n.nonEmpty += got.nonEmpty
		n.prunedScored += got.prunedScored
		n.exhaustScored += got.exhaustScored
		n.passageWon += got.passageWon
	}
	if n.nonEmpty < n.queries/2 {
		t.Fatalf("only %d of %d queries found anything", n.nonEmpty, n.queries)
	}
	if n.passageWon < n.queries/20 {
		t.Fatalf("only %d hits of %d queries ranked by a passage: the passages are barely exercised", n.passageWon, n.queries)
	}
	if sharded = shardedRuns.Load() - sharded; sharded < int64(n.queries/10) {
		t.Fatalf("only %d of %d searches were split into shards: the shards are barely exercised", sharded, n.queries)
	}
	if n.prunedScored*10 > n.exhaustScored*9 {
		t.Fatalf("pruning scored %d documents where the exhaustive search scored %d: it barely prunes", n.prunedScored, n.exhaustScored)
	}
	t.Logf("%d queries (%d with hits, %d split into shards), all exact; %d hits ranked by a passage; documents scored: pruned %d, exhaustive %d", n.queries, n.nonEmpty, sharded, n.passageWon, n.prunedScored, n.exhaustScored)
}

// TestSkipStopsAtALowerTermsBlockEnd is the hand-built shape of a pruning
// bug: when the bounds of every term's current block together fall short
// of the k-th score, the search skips ahead, but only as far as the nearest
// block end of any term, the lower-weight (non-essential) ones included.
// Past the end of "common"'s weak first block comes a block holding a
// document where it is said three times; skipping to the end of "rare"'s
// block instead would miss the document that should win.
func TestSkipStopsAtALowerTermsBlockEnd(t *testing.T) {
	filler := " f1 f2 f3 f4 f5 f6 f7 f8 f9"
	long := filler + filler
	docs := [][NumFields]string{
		{"rare rare rare rare rare rare rare rare"}, // 1: the first hit, sets the bar
		{"rare" + filler}, {"rare" + filler}, // 2, 3: weak
		{"rare" + filler},                    // 4: rare's first block ends
		{"rare" + filler},                    // 5: the candidate where the search looks ahead
		{"common" + long}, {"common" + long}, // 6, 7
		{"common" + long}, {"common" + long}, // 8, 9: common's weak block ends
		{"rare common common common"}, // 10: common's strong block: should win
		{"common" + long}, {"common" + long}, {"common" + long},
	}
	ids := make([]uint64, len(docs))
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	db := smallIndex(t, 4, len(docs), ids, docs)
	ctx := context.Background()
	tx, _ := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	defer tx.Rollback()
	q := Query{K: 1, Terms: []QueryTerm{{Term: "rare", Fields: 1 << Body}, {Term: "common", Fields: 1 << Body}}}
	want, err := SearchExhaustive(ctx, tx, q, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 1 || want[0].Doc != 10 {
		t.Fatalf("the case does not have its shape: exhaustive top 1 is %+v, want document 10", want)
	}
	got, err := Search(ctx, tx, q, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	sameHits(t, "rare common", got, want)
}
