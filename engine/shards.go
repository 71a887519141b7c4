package engine

import (
	"errors"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// A search over long posting lists is split by document ranges into
// shards searched at once, each by its own cursors in the same read
// transaction, when cores are free: one agent asking on an idle machine
// gets both cores, 32 asking at once get one each as before. Each shard
// keeps its own exact top K; they prune by a shared bar (bar), and their
// lists are merged into the top K and ties the one search would keep. On
// the heavy memory: in-process p50 5-9 % lower, CPU 12-17 % higher (the
// goroutines, a second stream per term, the blocks at the cuts read
// twice), documents scored 1.5 % fewer, blocks read 2.5 % more.

// inFlight counts the goroutines running searches in this process.
var inFlight atomic.Int32

// shardedRuns counts the searches split into shards: the proof that a
// test asking for them ran them.
var shardedRuns atomic.Int64

// maxShards bounds how many goroutines one search is split over.
const maxShards = 4

// shardMinBlocks is the fewest posting blocks (of every term, inside
// query.Ranges) a search is split over two shards for: below it the
// goroutines and the second set of cursors cost more than they save.
const shardMinBlocks = 24

// shardsFor is how many shards query is split over: Query.Shards when set,
// else the cores no search is using, if the lists are long enough (see
// splitDocs).
func shardsFor(query Query) int {
	if query.Shards != 0 {
		return max(query.Shards, 1)
	}
	free := runtime.GOMAXPROCS(0) - int(inFlight.Load())
	return min(free, maxShards)
}

// splitDocs returns the first documents of shards 2..n (ascending), cut so
// each shard holds about as many of the terms' postings inside ranges (nil:
// all), or nil when they lie in fewer than minBlocks blocks.
func splitDocs(cs []*cursor, ranges []DocRange, n, minBlocks int) []uint64 {
	type block struct {
		last uint64
		n    int
	}
	var bs []block
	total, blocks := 0, 0
	for _, c := range cs {
		lo := uint64(0)
		for _, b := range c.skips {
			if overlaps(ranges, lo, b.last) {
				bs = append(bs, block{b.last, b.n})
				total += b.n
				blocks++
			}
			lo = b.last + 1
		}
	}
	if blocks < max(minBlocks, 2) {
		return nil
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].last < bs[j].last })
	var cuts []uint64
	sum := 0
	for _, b := range bs {
		sum += b.n
		if len(cuts) == n-1 {
			break
		}
		if sum*n >= total*(len(cuts)+1) && b.last < math.MaxUint64-1 && (len(cuts) == 0 || cuts[len(cuts)-1] < b.last+1) {
			cuts = append(cuts, b.last+1)
		}
	}
	return cuts
}

// overlaps reports whether [lo, hi] meets one of rs (nil: everything).
func overlaps(rs []DocRange, lo, hi uint64) bool {
	if rs == nil {
		return true
	}
	i := sort.Search(len(rs), func(i int) bool { return rs[i].Hi >= lo })
	return i < len(rs) && rs[i].Lo <= hi
}

// clip is rs (nil: every document) inside [lo, hi].
func clip(rs []DocRange, lo, hi uint64) []DocRange {
	if rs == nil {
		return []DocRange{{lo, hi}}
	}
	out := []DocRange{}
	for _, r := range rs {
		if r.Hi < lo || r.Lo > hi {
			continue
		}
		out = append(out, DocRange{max(r.Lo, lo), min(r.Hi, hi)})
	}
	return out
}

// bar is the shards' shared threshold: the k-th best score of the hits
// all of them have kept (k documents score at least that, so one scoring
// less is in no top K and ties with no K-th). It prunes as the one
// search's own k-th best would have by then: the largest of the shards'
// own k-th best (the bar first tried) let them score 21 % more documents
// than one search on the heavy memory.
type bar struct {
	mu   sync.Mutex
	k    int
	hs   []float64     // a min-heap of the k best scores offered
	bits atomic.Uint64 // math.Float64bits of hs[0] once k are offered, else 0
	stop atomic.Bool
}

func (b *bar) load() float64 { return math.Float64frombits(b.bits.Load()) }

// offer counts a hit a shard kept.
func (b *bar) offer(v float64) {
	if b.k <= 0 {
		return
	}
	if t := b.load(); t > 0 && v <= t {
		return // the bar only rises
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case len(b.hs) < b.k:
		b.hs = append(b.hs, v)
		for i := len(b.hs) - 1; i > 0; {
			up := (i - 1) / 2
			if b.hs[up] <= b.hs[i] {
				break
			}
			b.hs[up], b.hs[i] = b.hs[i], b.hs[up]
			i = up
		}
	case v > b.hs[0]:
		b.hs[0] = v
		for i := 0; ; {
			l, m := 2*i+1, i
			if l < len(b.hs) && b.hs[l] < b.hs[m] {
				m = l
			}
			if l+1 < len(b.hs) && b.hs[l+1] < b.hs[m] {
				m = l + 1
			}
			if m == i {
				break
			}
			b.hs[i], b.hs[m] = b.hs[m], b.hs[i]
			i = m
		}
	default:
		return
	}
	if len(b.hs) == b.k {
		b.bits.Store(math.Float64bits(b.hs[0]))
	}
}

func (b *bar) stopped() bool { return b != nil && b.stop.Load() }

// errShardStopped ends a shard whose sibling failed: the search returns
// the sibling's error.
var errShardStopped = errors.New("engine: search shard stopped")

// clone is a second set of s's cursors, at the start of their lists, for
// another goroutine: the term rows, bounds and scorers are shared and
// read-only; the positions, streams and buffers are its own.
func (s *searcher) clone() *searcher {
	c := &searcher{ctx: s.ctx, q: s.q, cache: s.cache, gen: s.gen, cs: make([]*cursor, len(s.cs))}
	for i, x := range s.cs {
		c.cs[i] = &cursor{sc: x.sc, idx: x.idx, origs: x.origs, skips: x.skips, tail: x.tail,
			bounds: x.bounds, max: x.max, loaded: -1, pbBlock: -1, s: c}
	}
	return c
}

// sharded runs the search as len(cuts)+1 shards, the first on this
// goroutine, and merges their lists.
func (s *searcher) sharded(query Query, p Params, cuts []uint64) ([]Hit, error) {
	type result struct {
		top    *topK
		scored int
		blocks int
		err    error
	}
	shardedRuns.Add(1)
	n := len(cuts) + 1
	shards := make([]*searcher, n)
	shards[0] = s
	for i := 1; i < n; i++ {
		shards[i] = s.clone()
	}
	b := &bar{k: query.K}
	res := make([]result, n)
	var wg sync.WaitGroup
	run := func(i int) {
		defer inFlight.Add(-1)
		q := query
		lo, hi := uint64(0), uint64(endDoc)
		if i > 0 {
			lo = cuts[i-1]
		}
		if i < len(cuts) {
			hi = cuts[i] - 1
		}
		q.Ranges = clip(query.Ranges, lo, hi)
		top, scored, err := shards[i].run(q, p, b)
		if err != nil {
			b.stop.Store(true)
		}
		res[i] = result{top, scored, shards[i].blocks, err}
	}
	inFlight.Add(int32(n))
	for i := 1; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer shards[i].close()
			run(i)
		}()
	}
	run(0)
	wg.Wait()
	var stats SearchStats
	var err error
	top := &topK{k: query.K, maxTies: max(query.Ties, 0)}
	for _, r := range res {
		stats.Blocks += r.blocks
		stats.Scored += r.scored
		if r.err != nil {
			if err == nil || errors.Is(err, errShardStopped) {
				err = r.err
			}
			continue
		}
		for _, h := range r.top.sorted() {
			top.offer(h)
		}
	}
	if query.Stats != nil {
		stats.Gen = s.gen
		*query.Stats = stats
	}
	if err != nil {
		return nil, err
	}
	return top.sorted(), nil
}
