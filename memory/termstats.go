package memory

import (
	"context"
	"sync"
	"time"

	"github.com/ireneo-app/ireneo/engine"
)

// termStats knows, for a query word, its index term (engine.Term: the folded
// Porter stem) and in how many turns that term occurs. Recall uses it to
// weigh words by rarity (coverage) and to leave out words so common that
// they add nothing to the ranking.
type termStats struct {
	mu    sync.Mutex
	stems map[string]string // word → index term
	df    map[string]int    // index term → turns holding it
	total int
	at    time.Time // when df and total were read
}

// statsTTL bounds how stale document frequencies may be when another
// process (the tray app, a CLI import) changed the memory.
const statsTTL = 30 * time.Second

// invalidate drops cached frequencies after this process changed the index.
func (ts *termStats) invalidate() {
	ts.mu.Lock()
	ts.df = nil
	ts.mu.Unlock()
}

// frequencies returns the document frequency of each word's index term and
// the number of documents. Words the index would not hold come back as 0.
func (m *Memory) frequencies(ctx context.Context, words []string) (map[string]int, int, error) {
	ts := &m.stats
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.stems == nil || len(ts.stems) > 200000 {
		ts.stems = map[string]string{}
	}
	if ts.df == nil || time.Since(ts.at) > statsTTL {
		ts.df, ts.total, ts.at = map[string]int{}, -1, time.Now()
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
	if ts.total < 0 {
		st, err := engine.ReadStats(ctx, m.db)
		if err != nil {
			return nil, 0, err
		}
		ts.total = int(st.Docs)
	}
	if len(need) > 0 {
		df, err := engine.DocFreq(ctx, m.db, need)
		if err != nil {
			return nil, 0, err
		}
		for t, n := range df {
			ts.df[t] = n
		}
	}
	out := make(map[string]int, len(words))
	for _, w := range words {
		out[w] = ts.df[ts.stems[w]]
	}
	return out, ts.total, nil
}
