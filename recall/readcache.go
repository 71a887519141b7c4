package recall

import (
	"context"
	"sync"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// What recall keeps of a memory between recalls, per generation of its
// index (memory.ReadTx.Gen: every write draws a new one, so other
// processes' writes are seen): the words' index terms and frequencies, and
// the role and time of candidate turns. It lives with the Memory
// (memory.ReadTx.Kept).
type readCaches struct {
	terms termStats
	turns *turnCache
}

// cachesKey is readCaches' key among what a Memory keeps.
type cachesKey struct{}

func cachesOf(rt *memory.ReadTx) *readCaches {
	return rt.Kept(cachesKey{}, func() any { return &readCaches{turns: newTurnCache()} }).(*readCaches)
}

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

// turnCache keeps the role and time of the turns recall's candidates were,
// per generation of the engine's index (every write to the memory that
// adds, changes or removes a turn writes the index and so draws a new
// generation), so the turns a question shares with earlier ones are not
// read again. Measured on the heavy memory: of 15,551 candidates of 300
// questions, 7,321 were distinct; reading them was 10 % of a recall's CPU.
type turnCache struct {
	mu  sync.Mutex
	gen int64
	m   map[uint64]turnMeta // by engine document
}

type turnMeta struct {
	role string
	ts   int64
}

// turnCacheMax bounds the entries (about 50 bytes each): past it the cache
// starts again.
const turnCacheMax = 1 << 17

func newTurnCache() *turnCache { return &turnCache{m: map[uint64]turnMeta{}} }

// lookup calls fn with each hit's kept role and time, by index.
func (c *turnCache) lookup(gen int64, hits []engine.Hit, fn func(i int, tm turnMeta)) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	for i, h := range hits {
		if tm, ok := c.m[h.Doc]; ok {
			fn(i, tm)
		}
	}
}

// add keeps turns read in generation gen, emptying the cache for a newer
// generation.
func (c *turnCache) add(gen int64, read map[uint64]turnMeta) {
	if c == nil || len(read) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || len(c.m)+len(read) > turnCacheMax {
		c.gen = gen
		clear(c.m)
	}
	for d, tm := range read {
		c.m[d] = tm
	}
}

// internRole shares the two common roles' strings.
func internRole(r string) string {
	switch r {
	case funes.RoleUser:
		return funes.RoleUser
	case funes.RoleAssistant:
		return funes.RoleAssistant
	}
	return r
}
