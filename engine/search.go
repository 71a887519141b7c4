package engine

import (
	"bytes"
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync/atomic"
)

// FieldParams are one field's BM25F weight and length normalisation b.
type FieldParams struct{ Weight, B float64 }

// Params are BM25F's, set per query so a bench can ablate them without a
// rebuild. A term's frequency in a document is the weighted sum over the
// query term's fields of tf / (1 - b + b·len/avglen), saturated once with
// K1 and multiplied by the term's IDF (Robertson and Zaragoza's BM25F).
type Params struct {
	K1     float64
	Fields [NumFields]FieldParams
	// Passage is what a long document's best passage counts for beside
	// the whole, from 0 to 1: a document scores the larger of its own
	// score and Passage times its best passage's, the passage scored as a
	// document of its own (its body the passage's text, its other fields
	// the document's, the body's b and average length). At 0 passages only
	// say which one matched best.
	Passage float64
}

// experiment, set only in a build with the enginexp tag, changes the
// default parameters from the environment (experiment.go).
var experiment func(*Params)

// DefaultParams are FTS5's BM25 constants with the column weights recall
// used on FTS5, and a long turn's best passage counted at half its score
// (bench-recall: every set within noise of no passages, BENCHMARKS.md).
// The identifiers field is not length-normalised (b 0): a code reply lists
// dozens (fmt.Println, foo_bar.go) beside the V-261 asked for, and holding
// it is what counts (agentwork buried-long hit@3 0.679 -> 0.796).
func DefaultParams() Params {
	p := Params{K1: 1.2, Fields: [NumFields]FieldParams{
		Body: {1, 0.75}, Title: {0.5, 0.75}, IDs: {2, 0}, Date: {2, 0.75},
	}, Passage: 0.5}
	if experiment != nil {
		experiment(&p)
	}
	return p
}

func (p Params) check() error {
	if p.K1 < 0 || math.IsNaN(p.K1) || math.IsInf(p.K1, 0) {
		return fmt.Errorf("engine: k1 %v out of range", p.K1)
	}
	if p.Passage < 0 || p.Passage > 1 || math.IsNaN(p.Passage) {
		return fmt.Errorf("engine: passage weight %v out of range", p.Passage)
	}
	for f, fp := range p.Fields {
		if fp.Weight < 0 || math.IsNaN(fp.Weight) || math.IsInf(fp.Weight, 0) || fp.B < 0 || fp.B > 1 || math.IsNaN(fp.B) {
			return fmt.Errorf("engine: field %d: weight %v, b %v out of range", f, fp.Weight, fp.B)
		}
	}
	return nil
}

// QueryTerm is one index term (as Term or Analyze makes it) and the fields
// it is searched in.
type QueryTerm struct {
	Term   string
	Fields FieldMask
	// Probe: the term adds nothing to the score and is only reported in
	// Hit.Fields (what a caller wants to know of the hits, not rank by).
	Probe bool
}

// Query asks for the K best documents for Terms. Allow, when set, keeps only
// the documents it returns true for; it is applied inside the search, so the
// filtered top-k is exact too.
type Query struct {
	Terms []QueryTerm
	K     int
	// Ties is how many more documents, scored exactly as the K-th best, are
	// kept beyond K (those of the lowest ids when more tie): document ids
	// change when a memory is re-imported, so a caller that wants an order
	// that does not breaks the ties by a key of its own and cuts to K.
	Ties  int
	Allow func(doc uint64) bool
	// Ranges, when not nil, keeps only the documents inside one of them
	// (sorted, disjoint), beside Allow: the search seeks past what lies
	// between them, so a filter that keeps a month of a year costs a month's
	// postings, not the year's.
	Ranges []DocRange
	// Stats, when set, is filled with what the search cost.
	Stats *SearchStats
	// Shards, when above 0, is how many goroutines the search is split
	// over by document ranges, however short its lists (1: none); 0 lets
	// it choose (shards.go).
	Shards int
	// Cache, when set, keeps term rows and blocks between searches.
	Cache *Cache
	// Index, when set, is the index's statistics read in the same
	// snapshot the search reads (ReadStats); nil: the search reads them.
	Index *Stats
}

// DocRange is the documents from Lo to Hi, both included.
type DocRange struct{ Lo, Hi uint64 }

// InRanges reports whether d is inside one of rs (sorted, disjoint), or rs
// is nil: what Query.Ranges keeps.
func InRanges(rs []DocRange, d uint64) bool {
	if rs == nil {
		return true
	}
	i := sort.Search(len(rs), func(i int) bool { return rs[i].Hi >= d })
	return i < len(rs) && rs[i].Lo <= d
}

func (q Query) checkRanges() error {
	for i, r := range q.Ranges {
		if r.Lo > r.Hi || i > 0 && r.Lo <= q.Ranges[i-1].Hi {
			return fmt.Errorf("engine: document ranges not sorted and disjoint at %d: %+v", i, r)
		}
	}
	return nil
}

// SearchStats count a search's work.
type SearchStats struct {
	Blocks int // posting blocks read
	Scored int // documents fully scored
	// Gen is the generation of the index searched (every write draws a
	// new one): a caller may key what it keeps of the hits' documents by it.
	Gen int64
}

// Hit is a document and its BM25F score.
type Hit struct {
	Doc   uint64
	Score float64 // what it ranks by: the larger of Turn and Params.Passage × PassageScore
	Turn  float64 // the document's own score
	// Passage is the best of a long document's passages (its index in
	// Passages of the body), -1 for a document not cut into passages or
	// whose body holds no query term; PassageScore is that passage's score.
	Passage      int
	PassageScore float64
	// Fields says, for each of the query's terms (by index), which of the
	// document's fields hold it, whether or not the term was searched there.
	Fields []FieldMask
}

// scorer holds one query term's constants.
type scorer struct {
	term   string
	idf    float64
	k1     float64
	w      [NumFields]float64 // 0 for a field the term is not searched in
	c1, c2 [NumFields]float64 // 1-b and b/avglen
}

// contribution is the term's score for tf and lengths. Both search paths
// call these functions, so pruned and exhaustive scores are the same
// floats.
func (s *scorer) contribution(tf, ln *[NumFields]uint32) float64 {
	return s.with(tf[Body], ln[Body], tf, ln)
}

// with is the term's score for a body of frequency btf and length bln
// beside the other fields of tf and ln: a passage in place of the body.
//
//go:noinline
func (s *scorer) with(btf, bln uint32, tf, ln *[NumFields]uint32) float64 {
	var t float64
	if btf != 0 && s.w[Body] != 0 {
		// The sum's first term: 0 + x is x, so a body-only score is the
		// same float whichever way it is summed.
		t = s.w[Body] * float64(btf) / (s.c1[Body] + s.c2[Body]*float64(bln))
	}
	if tf[Title]|tf[IDs]|tf[Date] != 0 {
		for f := Title; f < NumFields; f++ {
			if tf[f] != 0 && s.w[f] != 0 {
				t += s.w[f] * float64(tf[f]) / (s.c1[f] + s.c2[f]*float64(ln[f]))
			}
		}
	}
	if t == 0 {
		return 0
	}
	return s.idf * t * (s.k1 + 1) / (t + s.k1)
}

// termVal is one query term's part in the document being scored.
type termVal struct {
	turn float64 // to the document's score
	base float64 // to a passage that does not hold it (its other fields)
	pe   []pval  // to each passage of a long body that holds it
	best float64 // the largest of base and pe's, turn for a short body
}

type pval struct {
	p int
	v float64
}

// value is a posting's termVal, its passages read from raw; their values
// are appended to pool.
func (s *scorer) value(p *spost, raw []byte, pool []pval) (termVal, []pval, error) {
	v := termVal{turn: s.contribution(&p.tf, &p.len)}
	v.best = v.turn
	if p.pe1 == 0 {
		return v, pool, nil
	}
	v.base = s.with(0, 0, &p.tf, &p.len)
	v.best = v.base
	at := len(pool)
	err := passages(raw, p.pe0, p.pe1, p.tf[Body], func(e pentry) {
		x := s.with(e.tf, e.len, &p.tf, &p.len)
		pool = append(pool, pval{int(e.p), x})
		v.best = max(v.best, x)
	})
	if err != nil {
		return v, pool, fmt.Errorf("engine: passages of %q in document %d: %w", s.term, p.doc, err)
	}
	v.pe = pool[at:len(pool):len(pool)]
	return v, pool, nil
}

// lazyPE is a posting whose passages are read if its document is scored.
type lazyPE struct {
	p   spost // a copy: the cursor's block may be read over before
	raw []byte
	set bool
}

// finish scores a document from its terms' values (by term, has saying
// which it holds): its own score, its best passage and that passage's
// score, and the score it ranks by. Both search paths call it.
func finish(vals []termVal, has []bool, lambda float64, scratch []int) (h Hit, _ []int) {
	h.Passage = -1
	ps := scratch[:0]
	for i := range vals {
		if has[i] {
			h.Turn += vals[i].turn
			for _, e := range vals[i].pe {
				ps = append(ps, e.p)
			}
		}
	}
	h.Score = h.Turn
	if len(ps) == 0 {
		return h, ps
	}
	slices.Sort(ps)
	ps = slices.Compact(ps)
	for _, p := range ps {
		sum := 0.0
		for i := range vals {
			if !has[i] {
				continue
			}
			v := vals[i].base
			for _, e := range vals[i].pe {
				if e.p == p {
					v = e.v
					break
				}
			}
			sum += v
		}
		if h.Passage < 0 || sum > h.PassageScore {
			h.Passage, h.PassageScore = p, sum
		}
	}
	if x := lambda * h.PassageScore; x > h.Score {
		h.Score = x
	}
	return h, ps
}

// cursor walks one term's posting list, loading a block only when a
// document in it has to be scored. Its last block may be the term's tail,
// kept inline in the dictionary row.
type cursor struct {
	sc     scorer
	idx    int   // the term's place among distinct terms: scores are summed in this order
	origs  []int // its indexes in Query.Terms
	skips  []blockMeta
	tail   *sblock   // the last block, when it is the tail
	bounds []float64 // per block
	max    float64
	bi     int // current block
	loaded int // block whose postings are in ps, -1 if none
	ps     []spost
	raw    []byte  // the loaded block's bytes, which its passages are read from
	buf    []spost // what blocks other than the tail decode into
	pos    int
	d      uint64 // the current document (doc)
	s      *searcher
	// A stream of the term's blocks in order, so reading the next block is
	// a step rather than a query; next is the block it reads next.
	rows     *sql.Rows
	rowsDone func() // after rows close (QueryKept)
	next_    int
	// The passage bound of block pbBlock for a posting in the body alone,
	// which is the same for all of them: passBound's.
	pbBlock int
	pbBound float64
}

// passBound bounds what the passages of p, the current posting, a long
// body's, score: from the block's largest passage frequency and shortest
// passage beside p's other fields.
func (c *cursor) passBound(p *spost) float64 {
	b := &c.skips[c.bi]
	if p.tf[Title]|p.tf[IDs]|p.tf[Date] != 0 {
		return c.sc.with(b.maxPTF, b.minPLen, &p.tf, &p.len)
	}
	if c.pbBlock != c.bi {
		c.pbBlock, c.pbBound = c.bi, c.sc.with(b.maxPTF, b.minPLen, &p.tf, &p.len)
	}
	return c.pbBound
}

const endDoc = math.MaxUint64

// streamGap is how many blocks a cursor reads past in its stream before it
// seeks with a new query instead.
const streamGap = 8

// load reads block i's postings.
func (c *cursor) load(i int) (sblock, error) {
	if c.tail != nil && i == len(c.skips)-1 {
		return *c.tail, nil
	}
	want := c.skips[i].last
	if c.s.cache != nil {
		k := blockKey{c.sc.term, want}
		if b, ok := c.s.cache.block(c.s.gen, k); ok {
			return b, nil
		}
		b, err := c.read(i, make([]spost, 0, c.skips[i].n)) // the cache keeps its own
		if err != nil {
			return sblock{}, err
		}
		c.s.cache.addBlock(c.s.gen, k, b)
		return b, nil
	}
	b, err := c.read(i, c.buf[:0])
	if err == nil {
		c.buf = b.ps
	}
	return b, err
}

// read reads block i from the database, appending its postings to dst.
func (c *cursor) read(i int, dst []spost) (sblock, error) {
	want := c.skips[i].last
	if c.rows == nil || i < c.next_ || i-c.next_ > streamGap {
		c.closeRows()
		rows, done, err := QueryKept(c.s.ctx, c.s.q, `SELECT last, data FROM eng_blocks WHERE term=? AND last>=? ORDER BY last`, c.sc.term, int64(want))
		if err != nil {
			return sblock{}, fmt.Errorf("engine: read blocks of %q: %w", c.sc.term, err)
		}
		c.rows, c.rowsDone, c.next_ = rows, done, i
	}
	var last int64
	var blob sql.RawBytes
	for ; c.next_ <= i; c.next_++ {
		if !c.rows.Next() {
			err := c.rows.Err()
			c.closeRows()
			if err == nil {
				err = corrupt("block ending at %d missing", want)
			}
			return sblock{}, fmt.Errorf("engine: read blocks of %q: %w", c.sc.term, err)
		}
		if c.next_ < i {
			continue
		}
		if err := c.rows.Scan(&last, &blob); err != nil {
			return sblock{}, fmt.Errorf("engine: read blocks of %q: %w", c.sc.term, err)
		}
	}
	if uint64(last) != want {
		return sblock{}, fmt.Errorf("engine: blocks of %q: %w", c.sc.term, corrupt("block ending at %d where the skip list says %d", last, want))
	}
	c.s.blocks++
	ps, err := decodeS(dst, blob)
	if err != nil {
		return sblock{}, fmt.Errorf("engine: block of %q ending at %d: %w", c.sc.term, want, err)
	}
	b := sblock{ps: ps}
	if hasPassages(ps) {
		b.raw = bytes.Clone(blob) // the driver reuses its bytes; passages are read later
	}
	return b, nil
}

func hasPassages(ps []spost) bool {
	for i := range ps {
		if ps[i].pe1 > 0 {
			return true
		}
	}
	return false
}

func (c *cursor) closeRows() {
	if c.rows != nil {
		c.rows.Close()
		c.rowsDone()
		c.rows, c.rowsDone = nil, nil
	}
}

// doc is the current document, endDoc when the list is done.
func (c *cursor) doc() uint64 { return c.d }

// moved sets d after a move.
func (c *cursor) moved() {
	if c.bi >= len(c.skips) {
		c.d = endDoc
	} else {
		c.d = c.ps[c.pos].doc
	}
}

func (c *cursor) cur() *spost { return &c.ps[c.pos] }

// ensure loads the current block.
func (c *cursor) ensure() error {
	if c.bi >= len(c.skips) || c.loaded == c.bi {
		c.moved()
		return nil
	}
	b, err := c.load(c.bi)
	if err != nil {
		return err
	}
	if len(b.ps) != c.skips[c.bi].n {
		return fmt.Errorf("%w: block of %q ending at %d holds %d postings, its skip entry says %d", ErrCorrupt, c.sc.term, c.skips[c.bi].last, len(b.ps), c.skips[c.bi].n)
	}
	c.ps, c.raw, c.loaded, c.pos = b.ps, b.raw, c.bi, 0
	c.d = b.ps[0].doc
	return nil
}

// shallow moves to the block that would hold d without loading it and
// returns that block's index (len(skips) past the end).
func (c *cursor) shallow(d uint64) int {
	for c.bi < len(c.skips) && c.skips[c.bi].last < d {
		c.bi++
	}
	return c.bi
}

// seek moves to the first posting at or after d.
func (c *cursor) seek(d uint64) error {
	if c.bi < len(c.skips) && c.loaded == c.bi && c.d >= d {
		return nil
	}
	if c.shallow(d) >= len(c.skips) {
		c.d = endDoc
		return nil
	}
	if err := c.ensure(); err != nil {
		return err
	}
	for c.ps[c.pos].doc < d {
		c.pos++
	}
	c.d = c.ps[c.pos].doc
	return nil
}

// next moves past the current posting.
func (c *cursor) next() error {
	if c.bi >= len(c.skips) {
		return nil
	}
	if c.pos+1 < len(c.ps) {
		c.pos++
		c.d = c.ps[c.pos].doc
		return nil
	}
	c.bi++
	return c.ensure()
}

// blockBound is the current block's upper bound (0 past the end).
func (c *cursor) blockBound() float64 {
	if c.bi >= len(c.bounds) {
		return 0
	}
	return c.bounds[c.bi]
}

// searcher is one search's state over one snapshot.
type searcher struct {
	ctx    context.Context
	q      Querier
	cs     []*cursor
	blocks int
	cache  *Cache // nil when not used
	gen    int64
}

// Preparer is a Querier that prepares statements (a *sql.Tx, a *sql.Conn).
type Preparer interface {
	Querier
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// Keeper is a Querier that keeps its statements between transactions
// (memory's ReadTx): a search streams its blocks through them rather than
// preparing its statements again. done is called once rows are closed.
type Keeper interface {
	QueryKept(ctx context.Context, query string, args ...any) (rows *sql.Rows, done func(), err error)
}

// QueryKept runs query on q through a statement q keeps, when q is a
// Keeper, else as q.QueryContext does; call done after closing rows.
func QueryKept(ctx context.Context, q Querier, query string, args ...any) (rows *sql.Rows, done func(), err error) {
	if k, ok := q.(Keeper); ok {
		return k.QueryKept(ctx, query, args...)
	}
	rows, err = q.QueryContext(ctx, query, args...)
	return rows, func() {}, err
}

// open reads the statistics and the query's terms, and sets up a cursor per
// term the index holds.
func open(ctx context.Context, q Preparer, query Query, p Params) (*searcher, []*cursor, error) {
	if err := p.check(); err != nil {
		return nil, nil, err
	}
	if err := query.checkRanges(); err != nil {
		return nil, nil, err
	}
	var st Stats
	var err error
	if query.Index != nil {
		st = *query.Index
	} else if st, err = ReadStats(ctx, q); err != nil {
		return nil, nil, err
	}
	// One query term per index term; the fields of repeats are joined.
	var order []string
	masks := map[string]FieldMask{}
	origs := map[string][]int{}
	scored := map[string]bool{} // not only a probe
	for i, t := range query.Terms {
		if t.Term == "" || t.Fields&AllFields == 0 {
			continue
		}
		if _, ok := masks[t.Term]; !ok {
			order = append(order, t.Term)
		}
		if !t.Probe {
			masks[t.Term] |= t.Fields
			scored[t.Term] = true
		}
		origs[t.Term] = append(origs[t.Term], i)
	}
	s := &searcher{ctx: ctx, q: q, gen: st.Gen}
	if query.Cache.use(st.Gen) {
		s.cache = query.Cache
	}
	var cs []*cursor
	n := float64(st.Docs)
	for _, t := range order {
		r, err := s.termRow(t)
		if err != nil {
			return nil, nil, err
		}
		if r == nil {
			continue
		}
		df := r.df
		skips := r.skips // shared with the cache: read-only
		if len(skips) == 0 {
			continue
		}
		c := &cursor{idx: len(cs), origs: origs[t], skips: skips, tail: r.tail, loaded: -1, pbBlock: -1, s: s}
		c.sc = scorer{term: t, k1: p.K1, idf: math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))}
		for f := range NumFields {
			if scored[t] && masks[t].Has(Field(f)) {
				c.sc.w[f] = p.Fields[f].Weight
			}
			b := p.Fields[f].B
			c.sc.c1[f], c.sc.c2[f] = 1-b, 0
			if st.LenSum[f] > 0 && n > 0 {
				c.sc.c2[f] = b / (float64(st.LenSum[f]) / n)
			} else {
				c.sc.c1[f] = 1
			}
		}
		c.bounds = make([]float64, len(skips))
		for i := range skips {
			b := &skips[i]
			// The best of the body's frontier beside the other fields'
			// largest frequency and shortest length: on the heavy memory a
			// search meets 20,900 candidates where the body's largest
			// frequency at its shortest length let 25,800 through, and
			// scores 4,000 in full (5,700).
			c.bounds[i] = c.sc.with(0, 0, &b.maxTF, &b.minLen)
			for _, x := range b.body.pairs() {
				c.bounds[i] = max(c.bounds[i], c.sc.with(x.tf, x.len, &b.maxTF, &b.minLen))
			}
			// A passage may score more than its document, and λ ≤ 1.
			for _, x := range b.pass.pairs() {
				c.bounds[i] = max(c.bounds[i], p.Passage*c.sc.with(x.tf, x.len, &b.maxTF, &b.minLen))
			}
			c.max = max(c.max, c.bounds[i])
		}
		cs = append(cs, c)
	}
	s.cs = cs
	return s, cs, nil
}

// termRow reads a term's dictionary row (nil if the index holds no such
// term), through the cache when there is one.
func (s *searcher) termRow(t string) (*termRow, error) {
	if s.cache != nil {
		if r, ok := s.cache.term(s.gen, t); ok {
			return r, nil
		}
	}
	var df int
	var sk, tail []byte
	var r *termRow
	switch err := s.q.QueryRowContext(s.ctx, `SELECT df, skips, tail FROM eng_terms WHERE term=?`, t).Scan(&df, &sk, &tail); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, fmt.Errorf("engine: look up %q: %w", t, err)
	default:
		var err error
		if r, err = decodeTermRow(t, df, sk, tail); err != nil {
			return nil, err
		}
	}
	if s.cache != nil {
		s.cache.addTerm(s.gen, t, r)
	}
	return r, nil
}

func (s *searcher) close() {
	if s == nil {
		return
	}
	for _, c := range s.cs {
		c.closeRows()
	}
}

// topK keeps the k best hits (higher score first, and between equal scores
// the lower document id), and up to maxTies more that score as the k-th.
type topK struct {
	k       int
	hs      []Hit // a heap whose root is the worst kept hit
	maxTies int
	ties    []Hit // outside the heap, all scored as its root
}

func worse(a, b Hit) bool { return a.Score < b.Score || a.Score == b.Score && a.Doc > b.Doc }

func (t *topK) Len() int           { return len(t.hs) }
func (t *topK) Less(i, j int) bool { return worse(t.hs[i], t.hs[j]) }
func (t *topK) Swap(i, j int)      { t.hs[i], t.hs[j] = t.hs[j], t.hs[i] }
func (t *topK) Push(x any)         { t.hs = append(t.hs, x.(Hit)) }
func (t *topK) Pop() any           { h := t.hs[len(t.hs)-1]; t.hs = t.hs[:len(t.hs)-1]; return h }

// takes reports whether offer would keep h.
func (t *topK) takes(h Hit) bool {
	return len(t.hs) < t.k || worse(t.hs[0], h) || t.maxTies > 0 && h.Score == t.hs[0].Score
}

// offer adds h if it beats the worst kept hit or ties with it. Which ties
// are kept when more than maxTies tie does not depend on the order of the
// offers: the lowest ids.
func (t *topK) offer(h Hit) {
	if len(t.hs) < t.k {
		heap.Push(t, h)
		return
	}
	root := t.hs[0]
	switch {
	case worse(root, h):
		t.hs[0] = h
		heap.Fix(t, 0)
		if t.maxTies == 0 {
			return
		}
		if t.hs[0].Score != root.Score {
			t.ties = t.ties[:0] // the k-th score rose past them
			return
		}
		t.addTie(root)
	case t.maxTies > 0 && h.Score == root.Score:
		t.addTie(h)
	}
}

func (t *topK) addTie(h Hit) {
	t.ties = append(t.ties, h)
	if len(t.ties) > 2*t.maxTies {
		sort.Slice(t.ties, func(i, j int) bool { return t.ties[i].Doc < t.ties[j].Doc })
		t.ties = t.ties[:t.maxTies]
	}
}

// threshold is the score a new hit has to beat (documents come in
// ascending order, so an equal score with a higher id loses): 0 until k
// hits are kept.
func (t *topK) threshold() float64 {
	if len(t.hs) < t.k {
		return 0
	}
	return t.hs[0].Score
}

func (t *topK) sorted() []Hit {
	ties := t.ties
	if len(ties) > t.maxTies {
		sort.Slice(ties, func(i, j int) bool { return ties[i].Doc < ties[j].Doc })
		ties = ties[:t.maxTies]
	}
	out := append(append([]Hit(nil), t.hs...), ties...)
	sort.Slice(out, func(i, j int) bool { return worse(out[j], out[i]) })
	return out
}

// slack makes a bound safe against the rounding of a sum taken in another
// order: a bound prunes only when even slightly above itself it loses.
const slack = 1 + 1e-9

// Search returns the exact top K documents for the query under BM25F,
// best first (equal scores: lower id first), and up to query.Ties more tied
// with the K-th, reading through q, which
// should be one read transaction so the search sees one snapshot. It prunes
// with block-max MaxScore: terms whose bounds together cannot lift a
// document past the k-th best score are only looked up for documents the
// others found, and whole blocks whose bounds fall short are skipped unread.
func Search(ctx context.Context, q Preparer, query Query, p Params) ([]Hit, error) {
	if query.K <= 0 {
		return nil, nil
	}
	s, cs, err := open(ctx, q, query, p)
	defer s.close()
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	if n := shardsFor(query); n > 1 {
		minBlocks := shardMinBlocks
		if query.Shards > 1 {
			minBlocks = 2
		}
		if cuts := splitDocs(cs, query.Ranges, n, minBlocks); len(cuts) > 0 {
			return s.sharded(query, p, cuts)
		}
	}
	inFlight.Add(1)
	defer inFlight.Add(-1)
	top, scored, err := s.run(query, p, nil)
	if query.Stats != nil {
		*query.Stats = SearchStats{Blocks: s.blocks, Scored: scored, Gen: s.gen}
	}
	if err != nil {
		return nil, err
	}
	return top.sorted(), nil
}

// run is the search over s's cursors: the top K and ties of the documents
// query.Ranges keeps, and how many documents it scored in full. With bar
// set, it is one shard of a search split by document ranges (shards.go):
// it offers the bar its hits and prunes by the k-th best of all shards'.
func (s *searcher) run(query Query, p Params, bar *bar) (_ *topK, scored int, _ error) {
	ctx, cs := s.ctx, s.cs
	// Terms by their bound, lowest first; prefix[i] bounds terms 0..i.
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].max < cs[j].max })
	prefix := make([]float64, len(cs))
	for i, c := range cs {
		prefix[i] = c.max
		if i > 0 {
			prefix[i] += prefix[i-1]
		}
	}
	for _, c := range cs {
		var err error
		if len(query.Ranges) > 0 {
			err = c.seek(query.Ranges[0].Lo) // a shard's, or a time filter's, first document
		} else {
			err = c.ensure()
		}
		if err != nil {
			return nil, 0, err
		}
	}
	top := &topK{k: query.K, maxTies: max(query.Ties, 0)}
	vals := make([]termVal, len(cs)) // by term index, for the current doc
	has := make([]bool, len(cs))
	tfs := make([][NumFields]uint32, len(cs)) // the frequencies at the doc: its Hit.Fields
	// Block-max: each term's block bound at the candidate (wb, by place in
	// cs) and their sums, lowest first (wprefix): set at the window's start
	// and valid through it (see ub).
	wb, wprefix := make([]float64, len(cs)), make([]float64, len(cs))
	byIdx := make([]*cursor, len(cs))
	for _, c := range cs {
		byIdx[c.idx] = c
	}
	var pool []pval   // the current doc's passage values
	var scratch []int // finish's
	// take notes the cursor's posting at the current doc: its score, and
	// for a long body a bound on its passages' from the block's (their
	// values are read only if the doc is scored in full).
	lazy := make([]lazyPE, len(cs))
	take := func(c *cursor) {
		p := c.cur()
		v := termVal{turn: c.sc.contribution(&p.tf, &p.len)}
		v.best = v.turn
		l := &lazy[c.idx]
		if l.set = p.pe1 != 0; l.set {
			v.best = c.passBound(p)
			l.p, l.raw = *p, c.raw
		}
		vals[c.idx], has[c.idx], tfs[c.idx] = v, true, p.tf
	}
	at := make([]int, 0, len(cs)) // the essential terms' places in cs whose cursors are at the doc
	first := 0                    // terms before it are non-essential
	// theta is the k-th best score, read again only after an offer (the
	// only thing that raises it), and first moved on with it.
	theta, offered := 0.0, true
	// next is the next candidate when nextOK: found while the essential
	// terms' cursors moved past the last one, if none moved since.
	next, nextOK := uint64(0), false
	// Block-max: the sum of the bounds of every term's block at the
	// candidate, valid up to bound (the nearest block end).
	ub, bound, ubSet := 0.0, uint64(0), false
	ranges := query.Ranges // the ones not yet passed
	for iter := 0; ; iter++ {
		if iter&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			if bar.stopped() {
				return nil, 0, errShardStopped
			}
		}
		if offered || bar != nil {
			theta = top.threshold()
			if bar != nil {
				theta = max(theta, bar.load())
			}
			offered = false
			for first < len(cs) && prefix[first]*slack <= theta {
				first++
				nextOK = false // the lowest of fewer terms
			}
		}
		if first == len(cs) {
			break
		}
		// The next candidate: the lowest document of an essential term.
		d := next
		if !nextOK {
			d = endDoc
			for _, c := range cs[first:] {
				d = min(d, c.doc())
			}
		}
		nextOK = false
		if d == endDoc {
			break
		}
		if query.Ranges != nil {
			for len(ranges) > 0 && ranges[0].Hi < d {
				ranges = ranges[1:]
			}
			if len(ranges) == 0 {
				break
			}
			if d < ranges[0].Lo { // d and what follows it up to the range: not asked for
				for _, c := range cs[first:] {
					if err := c.seek(ranges[0].Lo); err != nil {
						return nil, 0, err
					}
				}
				continue
			}
		}
		// Block-max: what any document up to the nearest block end could
		// score at most. Too little, and that whole stretch is skipped.
		if theta > 0 {
			// Up to bound, no cursor's block changes but by moving past
			// bound (then it holds nothing up to it): ub stays a bound.
			if !ubSet || d > bound {
				ub, bound, ubSet = 0, endDoc, true
				for i, c := range cs {
					wb[i] = 0
					if i < first && c.shallow(d) < len(c.skips) || i >= first && c.bi < len(c.skips) {
						wb[i] = c.blockBound()
						bound = min(bound, c.skips[c.bi].last)
					}
					ub += wb[i]
					wprefix[i] = ub
				}
			}
			if ub*slack <= theta {
				if bound == endDoc {
					break
				}
				for _, c := range cs[first:] {
					if err := c.seek(bound + 1); err != nil {
						return nil, 0, err
					}
				}
				continue
			}
		}
		allowed := query.Allow == nil || query.Allow(d)
		// The essential terms at d, and what d can score from its blocks:
		// theirs and the other terms', which may hold it. Short of theta,
		// d is passed before any of its postings is scored or another list
		// looked up in: 23 % of the candidates met on the heavy memory.
		at, next = at[:0], endDoc
		sum := 0.0
		if first > 0 {
			sum = wprefix[first-1]
		}
		for j := first; j < len(cs); j++ {
			if x := cs[j].doc(); x == d {
				at = append(at, j)
				sum += wb[j]
			} else {
				next = min(next, x)
			}
		}
		if theta > 0 && sum*slack <= theta {
			allowed = false
		}
		pool = pool[:0]
		// A bound on what d scores from the terms taken so far: the larger
		// of their sum and Passage times the sum of each one's best passage.
		partTurn, partPass := 0.0, 0.0
		for _, j := range at {
			c := cs[j]
			if allowed {
				take(c)
				partTurn += vals[c.idx].turn
				partPass += vals[c.idx].best
			}
			if err := c.next(); err != nil {
				return nil, 0, err
			}
			next = min(next, c.doc())
		}
		nextOK = true
		if !allowed {
			continue
		}
		pruned := false
		for i := first - 1; i >= 0; i-- {
			// wprefix is all 0 while theta is: only terms bounded by 0
			// (probes) are non-essential then.
			partial := max(partTurn, p.Passage*partPass)
			if (partial+wprefix[i])*slack <= theta {
				pruned = true // even these terms' best in their blocks can't lift d
				break
			}
			c := cs[i]
			if c.bi >= len(c.skips) {
				continue
			}
			if err := c.seek(d); err != nil {
				return nil, 0, err
			}
			if c.doc() == d {
				take(c)
				partTurn += vals[c.idx].turn
				partPass += vals[c.idx].best
			}
		}
		if !pruned {
			for i := range vals {
				if has[i] && lazy[i].set {
					var err error
					if vals[i], pool, err = byIdx[i].sc.value(&lazy[i].p, lazy[i].raw, pool); err != nil {
						return nil, 0, err
					}
				}
			}
			var h Hit
			h, scratch = finish(vals, has, p.Passage, scratch)
			h.Doc = d
			scored++
			if h.Score > 0 && top.takes(h) {
				h.Fields = make([]FieldMask, len(query.Terms))
				for i, c := range byIdx {
					if has[i] {
						for _, o := range c.origs {
							h.Fields[o] = FieldMask(tfMask(&tfs[i]))
						}
					}
				}
				top.offer(h)
				offered = true
				if bar != nil {
					bar.offer(h.Score)
				}
			}
		}
		clear(has)
	}
	return top, scored, nil
}

// SearchExhaustive scores every document that holds a query term, with the
// same BM25F as Search, and keeps the top K and their ties as Search does:
// the reference Search's pruning is tested against.
func SearchExhaustive(ctx context.Context, q Preparer, query Query, p Params) ([]Hit, error) {
	if query.K <= 0 {
		return nil, nil
	}
	exhaustiveRuns.Add(1)
	s, cs, err := open(ctx, q, query, p)
	defer s.close()
	if err != nil {
		return nil, err
	}
	type scored struct {
		vals   []termVal
		has    []bool
		fields []FieldMask
	}
	acc := map[uint64]*scored{}
	var docs []uint64
	for _, c := range cs {
		for b := range c.skips {
			bl, err := c.load(b)
			if err != nil {
				return nil, err
			}
			ps := bl.ps
			for i := range ps {
				a := acc[ps[i].doc]
				if a == nil {
					a = &scored{vals: make([]termVal, len(cs)), has: make([]bool, len(cs)), fields: make([]FieldMask, len(query.Terms))}
					acc[ps[i].doc] = a
					docs = append(docs, ps[i].doc)
				}
				if a.vals[c.idx], _, err = c.sc.value(&ps[i], bl.raw, nil); err != nil {
					return nil, err
				}
				a.has[c.idx] = true
				for _, o := range c.origs {
					a.fields[o] = FieldMask(ps[i].mask())
				}
			}
		}
	}
	if query.Stats != nil {
		*query.Stats = SearchStats{Blocks: s.blocks, Scored: len(docs)}
	}
	top := &topK{k: query.K, maxTies: max(query.Ties, 0)}
	var scratch []int
	for _, d := range docs {
		a := acc[d]
		var h Hit
		h, scratch = finish(a.vals, a.has, p.Passage, scratch)
		if h.Score > 0 && (query.Allow == nil || query.Allow(d)) && InRanges(query.Ranges, d) {
			h.Doc, h.Fields = d, a.fields
			top.offer(h)
		}
	}
	return top.sorted(), nil
}

var exhaustiveRuns atomic.Int64

// ExhaustiveSearches is how many exhaustive searches this process ran: the
// proof that a bench asking with the exactness check on compared something.
func ExhaustiveSearches() int64 { return exhaustiveRuns.Load() }

// Docs calls fn with every document that holds term in one of fields, in
// ascending order, until fn returns false.
func Docs(ctx context.Context, q Preparer, term string, fields FieldMask, fn func(doc uint64) bool) error {
	s, cs, err := open(ctx, q, Query{Terms: []QueryTerm{{Term: term, Fields: fields}}}, DefaultParams())
	defer s.close()
	if err != nil || len(cs) == 0 {
		return err
	}
	c := cs[0]
	for b := range c.skips {
		bl, err := c.load(b)
		if err != nil {
			return err
		}
		ps := bl.ps
		for i := range ps {
			for f := range NumFields {
				if ps[i].tf[f] > 0 && fields.Has(Field(f)) {
					if !fn(ps[i].doc) {
						return nil
					}
					break
				}
			}
		}
	}
	return nil
}
