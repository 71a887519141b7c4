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
// processes' writes are seen): the words' index terms and frequencies, the
// role and time of candidate turns and their previews, the conversations'
// names that order tied turns, and the conversations' spans and turns'
// times a time filter reads. It lives with the Memory
// (memory.ReadTx.Kept).
type readCaches struct {
	terms    termStats
	turns    *turnCache
	spans    spanCache
	previews previewCache
	names    nameCache
	texts    genMap[textKey, string]      // candidates' searched text (turnTexts)
	shown    genMap[shownKey, *shownTurn] // shown turns without their reply (Shown)
	replies  genMap[uint64, int]          // by engine document: its reply's seq, -1 for none (replySeq)
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

// previewCache keeps candidate turns' previews per generation of the index,
// as turnCache keeps their role and time: a preview is cut from the turn's
// first chunks, read with it (measured: 1.7 CPU-ms a recall on the heavy
// memory, about half of it turns an earlier question had among its
// candidates).
type previewCache struct {
	mu    sync.Mutex
	gen   int64
	m     map[uint64]string // by engine document
	bytes int
}

// previewCacheBytes bounds the previews' text kept: past it the cache
// starts again.
const previewCacheBytes = 4 << 20

// lookup returns the kept previews of docs of generation gen, by doc.
func (c *previewCache) lookup(gen int64, docs []uint64, fn func(i int, p string)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	for i, d := range docs {
		if p, ok := c.m[d]; ok {
			fn(i, p)
		}
	}
}

// add keeps previews read in generation gen, emptying the cache for a
// newer generation.
func (c *previewCache) add(gen int64, read map[uint64]string) {
	if len(read) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.gen != gen || c.bytes > previewCacheBytes {
		c.gen, c.m, c.bytes = gen, map[uint64]string{}, 0
	}
	for d, p := range read {
		if _, ok := c.m[d]; !ok {
			c.m[d] = p
			c.bytes += len(p) + 48
		}
	}
}

// nameCache keeps conversations' (harness, session id) by row id per
// generation of the index: orderTies reads them for the conversations of
// tied candidates (0.12 of the heavy memory's 4.6 CPU-s for 300 questions).
type nameCache struct {
	mu  sync.Mutex
	gen int64
	m   map[int64][2]string
}

// nameCacheMax bounds the names kept: past it the cache starts again.
const nameCacheMax = 1 << 16

// genMap keeps what reads of one generation of the index found, by key, up
// to about a bound of bytes: past it, or at a newer generation, it starts
// again. The values are shared by every reader and must not be changed.
// Like the other caches it holds text of the memory in the process's heap
// until a newer generation replaces it: a forget or scrub is a write, so
// nothing erased is served again.
type genMap[K comparable, V any] struct {
	mu    sync.Mutex
	gen   int64
	m     map[K]V
	bytes int
}

// lookup calls fn with the value kept for each of keys, by index.
func (c *genMap[K, V]) lookup(gen int64, keys []K, fn func(i int, v V)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || c.m == nil {
		return
	}
	for i, k := range keys {
		if v, ok := c.m[k]; ok {
			fn(i, v)
		}
	}
}

// add keeps values read in generation gen, size saying about how many bytes
// each holds, up to about maxBytes in all.
func (c *genMap[K, V]) add(gen int64, maxBytes int, read map[K]V, size func(V) int) {
	if len(read) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.gen != gen || c.bytes > maxBytes {
		c.gen, c.m, c.bytes = gen, make(map[K]V, len(read)), 0
	}
	for k, v := range read {
		if _, ok := c.m[k]; !ok {
			c.m[k] = v
			c.bytes += size(v) + 64
		}
	}
}

// textKey is a turn's searched text cut at limit bytes.
type textKey struct {
	doc   uint64
	limit int
}

// shownKey is a shown turn, with its neighbours' previews or without.
type shownKey struct {
	doc        uint64
	neighbours bool
}

// textCacheBytes and shownCacheBytes bound the candidates' texts and the
// shown turns kept (their chunks whole).
const textCacheBytes, shownCacheBytes = 8 << 20, 8 << 20
