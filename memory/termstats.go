package memory

import (
	"context"
	"sync"

	"github.com/ireneo-app/ireneo/engine"
)

// termStats knows, for a query word, its index term (engine.Term: the folded
// Porter stem) and in how many turns that term occurs, per generation of the
// engine's index (every write draws a new one). Recall weighs words by
// rarity with them (coverage).
type termStats struct {
	mu    sync.Mutex
	stems map[string]string // word → index term
	gen   int64             // the index generation df holds
	df    map[string]int    // index term → turns holding it
}

// invalidate drops cached frequencies after this process changed the index
// (the generation would tell too; this frees them sooner).
func (ts *termStats) invalidate() {
	ts.mu.Lock()
	ts.df = nil
	ts.mu.Unlock()
}

// frequencies returns, for each word, the document frequency of its index
// term in generation gen of the index q reads, and the term itself ("" when
// the index would hold none; its frequency is 0).
func (ts *termStats) frequencies(ctx context.Context, q engine.Querier, gen int64, words []string) (map[string]int, map[string]string, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.stems == nil || len(ts.stems) > 200000 {
		ts.stems = map[string]string{}
	}
	if ts.df == nil || ts.gen != gen || len(ts.df) > 200000 {
		ts.df, ts.gen = map[string]int{}, gen
	}
	var need []string
	for _, w := range words {
		st, ok := ts.stems[w]
		if !ok {
			st = engine.Term(w)
			ts.stems[w] = st
		}
		if _, ok := ts.df[st]; !ok && st != "" {
			need = append(need, st)
		}
	}
	if len(need) > 0 {
		df, err := engine.DocFreq(ctx, q, need)
		if err != nil {
			return nil, nil, err
		}
		for t, n := range df {
			ts.df[t] = n
		}
	}
	df := make(map[string]int, len(words))
	stems := make(map[string]string, len(words))
	for _, w := range words {
		stems[w] = ts.stems[w]
		df[w] = ts.df[ts.stems[w]]
	}
	return df, stems, nil
}
