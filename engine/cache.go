package engine

import (
	"container/list"
	"sync"
	"unsafe"
)

// Cache keeps decoded term rows and posting blocks between searches of one
// process, so the words many questions share are read and decoded once.
// Entries belong to one generation of the index (every write draws a new
// one): a search of another generation neither reads nor fills it, and the
// first search of a newer one empties it. Safe for concurrent searches.
type Cache struct {
	mu     sync.Mutex
	gen    int64
	max    int // bytes
	bytes  int
	lru    list.List // of *cacheEntry, most recent first
	blocks map[blockKey]*list.Element
	terms  map[string]*list.Element
}

type blockKey struct {
	term string
	last uint64
}

type cacheEntry struct {
	block blockKey // a block's key; for a term row, block.term only
	isRow bool
	bl    sblock   // a block (read-only once cached)
	row   *termRow // nil: the index holds no such term
	size  int
}

// NewCache returns a cache of about maxBytes of decoded index data.
func NewCache(maxBytes int) *Cache {
	return &Cache{max: maxBytes, blocks: map[blockKey]*list.Element{}, terms: map[string]*list.Element{}}
}

const postingBytes = 48 // unsafe.Sizeof(spost{})

// blockBytes is about what a decoded block holds in memory.
func blockBytes(b sblock) int { return postingBytes*len(b.ps) + len(b.raw) }

// use reports whether a search of generation gen may use the cache,
// emptying it for a newer generation.
func (c *Cache) use(gen int64) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		c.gen, c.bytes = gen, 0
		c.lru.Init()
		clear(c.blocks)
		clear(c.terms)
	}
	return true
}

func (c *Cache) term(gen int64, t string) (*termRow, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil, false
	}
	e, ok := c.terms[t]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).row, true
}

func (c *Cache) block(gen int64, k blockKey) (sblock, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return sblock{}, false
	}
	e, ok := c.blocks[k]
	if !ok {
		return sblock{}, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).bl, true
}

func (c *Cache) addTerm(gen int64, t string, r *termRow) {
	size := 64 + len(t)
	if r != nil {
		size += int(unsafe.Sizeof(blockMeta{})) * len(r.skips)
		if r.tail != nil {
			size += blockBytes(*r.tail)
		}
	}
	c.add(gen, &cacheEntry{block: blockKey{term: t}, isRow: true, row: r, size: size})
}

func (c *Cache) addBlock(gen int64, k blockKey, b sblock) {
	c.add(gen, &cacheEntry{block: k, bl: b, size: 64 + len(k.term) + blockBytes(b)})
}

func (c *Cache) add(gen int64, e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || e.size > c.max/4 {
		return
	}
	if e.isRow {
		if _, ok := c.terms[e.block.term]; ok {
			return
		}
		c.terms[e.block.term] = c.lru.PushFront(e)
	} else {
		if _, ok := c.blocks[e.block]; ok {
			return
		}
		c.blocks[e.block] = c.lru.PushFront(e)
	}
	c.bytes += e.size
	for c.bytes > c.max {
		old := c.lru.Back()
		oe := old.Value.(*cacheEntry)
		c.lru.Remove(old)
		c.bytes -= oe.size
		if oe.isRow {
			delete(c.terms, oe.block.term)
		} else {
			delete(c.blocks, oe.block)
		}
	}
}
