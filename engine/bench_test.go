package engine

import (
	"context"
	"database/sql"
	"sync"
	"testing"
)

// benchIndex is a Zipfian corpus of 40k documents (about 4M tokens), built
// once per test binary.
var benchIndex struct {
	once sync.Once
	db   *sql.DB
	c    *corpus
}

func benchDB(b *testing.B) (*sql.DB, *corpus) {
	benchIndex.once.Do(func() {
		db, err := sql.Open("sqlite", b.TempDir()+"/bench.db?_pragma=journal_mode(WAL)")
		if err != nil {
			b.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		c := newCorpus(7, 50000, 1.07)
		var ids []uint64
		for sess := uint64(1); len(ids) < 40000; sess++ {
			for seq := range uint64(1 + c.r.IntN(60)) {
				ids = append(ids, sess<<20|seq)
			}
		}
		for i := 0; i < len(ids); i += 5000 {
			addDocs(b, db, c, ids[i:min(i+5000, len(ids))])
		}
		benchIndex.db, benchIndex.c = db, c
	})
	return benchIndex.db, benchIndex.c
}

func benchSearch(b *testing.B, exhaustive bool) {
	db, c := benchDB(b)
	ctx := context.Background()
	qs := make([]Query, 64)
	for i := range qs {
		qs[i] = Query{K: 200}
		for range 6 {
			qs[i].Terms = append(qs[i].Terms, QueryTerm{Term: Term(c.word()), Fields: AllFields})
		}
	}
	p := DefaultParams()
	var st SearchStats
	blocks, scored := 0, 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, q := range qs {
			q.Stats = &st
			tx, _ := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			var err error
			if exhaustive {
				_, err = SearchExhaustive(ctx, tx, q, p)
			} else {
				_, err = Search(ctx, tx, q, p)
			}
			tx.Rollback()
			if err != nil {
				b.Fatal(err)
			}
			blocks += st.Blocks
			scored += st.Scored
		}
	}
	n := float64(b.N * len(qs))
	b.ReportMetric(b.Elapsed().Seconds()*1000/n, "ms/query")
	b.ReportMetric(float64(blocks)/n, "blocks/query")
	b.ReportMetric(float64(scored)/n, "scored/query")
}

func BenchmarkSearchPruned(b *testing.B)     { benchSearch(b, false) }
func BenchmarkSearchExhaustive(b *testing.B) { benchSearch(b, true) }

func BenchmarkAdd(b *testing.B) {
	db := openDB(b)
	c := newCorpus(3, 50000, 1.07)
	b.ResetTimer()
	// One transaction per 250 conversations of 30 turns, as an import.
	ids := make([]uint64, 0, 7500)
	for i := 0; i < b.N; i++ {
		ids = ids[:0]
		for s := range 250 {
			for j := range 30 {
				ids = append(ids, uint64(i*250+s+1)<<20|uint64(j))
			}
		}
		addDocs(b, db, c, ids)
	}
	b.ReportMetric(float64(b.N*len(ids))/b.Elapsed().Seconds(), "docs/s")
}
