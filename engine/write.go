package engine

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
)

// Writer adds and deletes documents within the caller's transaction, so the
// index changes all-or-nothing with whatever else the transaction writes.
// Added postings are buffered and written by Flush (and by Delete, which
// flushes first); call Flush before committing.
//
// Document ids should grow: a new document's id above every id in the
// index appends its postings to the end of each term's list. An id below
// that still works, at the cost of rewriting the lists of its terms.
type Writer struct {
	ctx      context.Context
	tx       *sql.Tx
	buf      map[string][]posting
	buffered int
	bufLo    uint64 // the range of buffered document ids
	bufHi    uint64
	docRows  []any // eng_docs rows waiting for a batched insert
	docs     int64
	lenSum   [NumFields]int64
	dirty    bool
	stmts    map[string]*sql.Stmt // batched statements by text
	// blockSize is how many postings a full block holds: BlockSize, less
	// in tests, so a few documents make many blocks.
	blockSize int
	lost      int // deleted documents looked for in every list
}

// Lost is how many documents this writer's deletes had to look for in
// every term's list, not handed them as added: 0 when the caller's
// documents matched the index.
func (w *Writer) Lost() int { return w.lost }

// flushAt is how many buffered postings make Add flush by itself: a bound on
// the writer's memory during a full rebuild (about 80 MB).
const flushAt = 1 << 21

// batchRows is how many rows one batched statement reads or writes.
const batchRows = 200

// NewWriter starts writing within tx, creating the tables if missing.
func NewWriter(ctx context.Context, tx *sql.Tx) (*Writer, error) {
	if err := Create(ctx, tx); err != nil {
		return nil, err
	}
	return &Writer{ctx: ctx, tx: tx, buf: map[string][]posting{}, stmts: map[string]*sql.Stmt{}, blockSize: BlockSize}, nil
}

// Close releases the writer's statements; it does not flush.
func (w *Writer) Close() {
	for _, s := range w.stmts {
		s.Close()
	}
	clear(w.stmts)
}

// stmt prepares a statement once per writer.
func (w *Writer) stmt(q string) (*sql.Stmt, error) {
	st, ok := w.stmts[q]
	if !ok {
		var err error
		if st, err = w.tx.PrepareContext(w.ctx, q); err != nil {
			return nil, err
		}
		w.stmts[q] = st
	}
	return st, nil
}

// exec runs a statement, preparing it once per writer.
func (w *Writer) exec(q string, args ...any) error {
	st, err := w.stmt(q)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(w.ctx, args...)
	return err
}

// execRows inserts rows of cols values each with multi-row statements.
func (w *Writer) execRows(head string, cols int, vals []any) error {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	for len(vals) > 0 {
		n := min(len(vals)/cols, batchRows)
		q := head + " VALUES " + strings.TrimSuffix(strings.Repeat(one+",", n), ",")
		if err := w.exec(q, vals[:n*cols]...); err != nil {
			return err
		}
		vals = vals[n*cols:]
	}
	return nil
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// Doc is one document analysed for the index: its distinct terms with
// their frequency per field and, for a long body, per passage, and its
// field lengths. Analysing is the CPU-heavy part of indexing, so NewDoc may
// run on any goroutine, ahead of the one Writer.
type Doc struct {
	terms []string // sorted
	tf    [][NumFields]uint32
	pe    [][]pentry // per term, the passages of a long body holding it
	lens  [NumFields]uint32
}

// NewDoc analyses a document: the text of each of its fields.
func NewDoc(fields [NumFields]string) *Doc {
	d := &Doc{}
	at := map[string]int{}
	add := func(tok string, f Field) int {
		t := cachedStem(tok)
		i, ok := at[t]
		if !ok {
			i = len(d.terms)
			at[t] = i
			d.terms = append(d.terms, t)
			d.tf = append(d.tf, [NumFields]uint32{})
		}
		d.tf[i][f]++
		d.lens[f]++
		return i
	}
	var bodyTerm, bodyPassage []int
	spans := bodyTokens(fields[Body], func(tok string, p int) {
		bodyTerm = append(bodyTerm, add(tok, Body))
		bodyPassage = append(bodyPassage, p)
	})
	for f := Body + 1; f < NumFields; f++ {
		Tokens(fields[f], func(tok string) { add(tok, f) })
	}
	if spans != nil {
		plen := make([]uint32, len(spans))
		for _, p := range bodyPassage {
			plen[p]++
		}
		d.pe = make([][]pentry, len(d.terms))
		for k, i := range bodyTerm {
			p := uint32(bodyPassage[k])
			if es := d.pe[i]; len(es) > 0 && es[len(es)-1].p == p {
				es[len(es)-1].tf++
				continue
			}
			d.pe[i] = append(d.pe[i], pentry{p: p, tf: 1, len: plen[p]})
		}
	}
	sort.Sort(byTerm{d})
	return d
}

// sum is a hash of the document's terms: a delete that is handed the
// document again checks it against the one stored, so the postings it
// removes are the ones the document added.
func (d *Doc) sum() int64 {
	h := fnv.New64a()
	for _, t := range d.terms {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	return int64(h.Sum64() >> 1)
}

// stemCache remembers recent stems, one per slot by the token's hash, so
// the words a history repeats are stemmed once; slots are replaced whole
// and atomically, so every goroutine analysing documents shares it without
// a lock.
var (
	stemCache [1 << 15]atomic.Pointer[stemmed]
	stemSeed  = maphash.MakeSeed()
)

type stemmed struct{ tok, term string }

func cachedStem(tok string) string {
	slot := &stemCache[maphash.String(stemSeed, tok)&uint64(len(stemCache)-1)]
	if e := slot.Load(); e != nil && e.tok == tok {
		return e.term
	}
	t := stem(tok)
	slot.Store(&stemmed{tok, t})
	return t
}

type byTerm struct{ d *Doc }

func (b byTerm) Len() int           { return len(b.d.terms) }
func (b byTerm) Less(i, j int) bool { return b.d.terms[i] < b.d.terms[j] }
func (b byTerm) Swap(i, j int) {
	b.d.terms[i], b.d.terms[j] = b.d.terms[j], b.d.terms[i]
	b.d.tf[i], b.d.tf[j] = b.d.tf[j], b.d.tf[i]
	if b.d.pe != nil {
		b.d.pe[i], b.d.pe[j] = b.d.pe[j], b.d.pe[i]
	}
}

// Add indexes one document: the text of each of its fields.
func (w *Writer) Add(id uint64, fields [NumFields]string) error {
	return w.AddDoc(id, NewDoc(fields))
}

// Empty reports whether the document holds no token at all.
func (d *Doc) Empty() bool { return len(d.terms) == 0 }

// AddDoc indexes an analysed document under id. A document without a single
// token is not indexed.
func (w *Writer) AddDoc(id uint64, d *Doc) error {
	if id > 1<<63-1 {
		return fmt.Errorf("engine: document id %d out of range", id)
	}
	if len(d.terms) == 0 {
		return nil
	}
	for i, t := range d.terms {
		p := posting{doc: id, tf: d.tf[i]}
		for f := range NumFields {
			if p.tf[f] != 0 { // only the lengths of fields the term is in matter
				p.len[f] = d.lens[f]
			}
		}
		if d.pe != nil {
			p.pe = d.pe[i]
		}
		w.buf[t] = append(w.buf[t], p)
	}
	var lb []byte
	for f := range NumFields {
		lb = binary.AppendUvarint(lb, uint64(d.lens[f]))
		w.lenSum[f] += int64(d.lens[f])
	}
	if w.buffered == 0 || id < w.bufLo {
		w.bufLo = id
	}
	w.bufHi = max(w.bufHi, id)
	w.docRows = append(w.docRows, int64(id), lb, len(d.terms), d.sum())
	w.docs++
	w.dirty = true
	w.buffered += len(d.terms)
	if len(w.docRows) >= 4*batchRows {
		if err := w.flushDocs(); err != nil {
			return err
		}
	}
	if w.buffered >= flushAt {
		return w.Flush()
	}
	return nil
}

func (w *Writer) flushDocs() error {
	if err := w.execRows(`INSERT INTO eng_docs(id, lens, n, sum)`, 4, w.docRows); err != nil {
		return fmt.Errorf("engine: add documents: %w", err)
	}
	w.docRows = w.docRows[:0]
	return nil
}

// Flush writes the buffered postings and the statistics.
func (w *Writer) Flush() error {
	if !w.dirty {
		return nil
	}
	if err := w.flushDocs(); err != nil {
		return err
	}
	terms := make([]string, 0, len(w.buf))
	for t := range w.buf {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	for len(terms) > 0 {
		n := min(len(terms), batchRows)
		if err := w.appendTerms(terms[:n]); err != nil {
			return err
		}
		terms = terms[n:]
	}
	clear(w.buf)
	w.buffered, w.bufLo, w.bufHi = 0, 0, 0
	if err := w.bumpStats(); err != nil {
		return err
	}
	w.dirty = false
	return nil
}

func (w *Writer) bumpStats() error {
	add := func(k string, v int64) error {
		return w.exec(`INSERT INTO eng_stats(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = value + ?2`, k, v)
	}
	if err := add("docs", w.docs); err != nil {
		return fmt.Errorf("engine: write stats: %w", err)
	}
	for f, k := range statKeys {
		if err := add(k, w.lenSum[f]); err != nil {
			return fmt.Errorf("engine: write stats: %w", err)
		}
	}
	// A new random generation, not a count: a rebuild starts the counts
	// again, and a cache must never take a later index for an earlier one.
	if err := w.exec(`INSERT INTO eng_stats(key, value) VALUES('gen', ?1) ON CONFLICT(key) DO UPDATE SET value = ?1`, rand.Int64()); err != nil {
		return fmt.Errorf("engine: write stats: %w", err)
	}
	w.docs, w.lenSum = 0, [NumFields]int64{}
	return nil
}

// termRow is a term's dictionary row, decoded.
type termRow struct {
	df    int
	skips []blockMeta // with the tail's last, when there is a tail
	tail  *sblock
}

func decodeTermRow(term string, df int, skips, tail []byte) (*termRow, error) {
	r := &termRow{df: df}
	var err error
	if r.skips, err = decodeSkips(skips); err != nil {
		return nil, fmt.Errorf("engine: skip list of %q: %w", term, err)
	}
	if len(tail) > 0 {
		ps, err := decodeS(nil, tail)
		if err != nil {
			return nil, fmt.Errorf("engine: postings of %q: %w", term, err)
		}
		if len(r.skips) > 0 && ps[0].doc <= r.skips[len(r.skips)-1].last {
			return nil, fmt.Errorf("engine: postings of %q: %w", term, corrupt("tail before the last block"))
		}
		r.tail = &sblock{ps: ps}
		if hasPassages(ps) {
			r.tail.raw = tail // sql scanned into a []byte of its own
		}
		m, err := metaOfS(*r.tail)
		if err != nil {
			return nil, fmt.Errorf("engine: postings of %q: %w", term, err)
		}
		r.skips = append(r.skips, m)
	}
	return r, nil
}

// writeRow is a term's dictionary row as the writer reads it. Its skip
// list stays encoded unless a block is cut or rewritten: most transactions
// only add a few postings to a term's tail, and decoding and re-encoding
// the skip lists of common terms on every one cost 15 of the heavy
// import's 168 CPU-seconds (profile of BenchmarkImportLifelike10k).
type writeRow struct {
	term    string
	df      int
	raw     []byte      // the skip list as stored
	skips   []blockMeta // decoded, once decoded is set
	decoded bool
	tail    []posting
}

// blocks decodes the skip list (once) and checks it against the tail.
func (r *writeRow) blocks() ([]blockMeta, error) {
	if r.decoded {
		return r.skips, nil
	}
	sk, err := decodeSkips(r.raw)
	if err != nil {
		return nil, fmt.Errorf("engine: skip list of %q: %w", r.term, err)
	}
	if len(sk) > 0 && len(r.tail) > 0 && r.tail[0].doc <= sk[len(sk)-1].last {
		return nil, fmt.Errorf("engine: postings of %q: %w", r.term, corrupt("tail before the last block"))
	}
	r.skips, r.decoded, r.raw = sk, true, nil
	return sk, nil
}

// maxDoc is the last document in the term's list (0 for none).
func (r *writeRow) maxDoc() (uint64, error) {
	if len(r.tail) > 0 {
		return r.tail[len(r.tail)-1].doc, nil
	}
	sk, err := r.blocks()
	if err != nil || len(sk) == 0 {
		return 0, err
	}
	return sk[len(sk)-1].last, nil
}

// readTerms reads the dictionary rows of terms (at most batchRows).
func (w *Writer) readTerms(terms []string) (map[string]*writeRow, error) {
	args := make([]any, len(terms))
	for i, t := range terms {
		args[i] = t
	}
	st, err := w.stmt(`SELECT term, df, skips, tail FROM eng_terms WHERE term IN (` + placeholders(len(terms)) + `)`)
	if err != nil {
		return nil, fmt.Errorf("engine: read terms: %w", err)
	}
	rows, err := st.QueryContext(w.ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("engine: read terms: %w", err)
	}
	defer rows.Close()
	out := make(map[string]*writeRow, len(terms))
	for rows.Next() {
		r := &writeRow{}
		var tail []byte
		if err := rows.Scan(&r.term, &r.df, &r.raw, &tail); err != nil {
			return nil, fmt.Errorf("engine: read terms: %w", err)
		}
		if len(tail) > 0 {
			if r.tail, err = decodeBlock(nil, tail); err != nil {
				return nil, fmt.Errorf("engine: postings of %q: %w", r.term, err)
			}
		}
		out[r.term] = r
	}
	return out, rows.Err()
}

func (w *Writer) readBlock(t string, last uint64) ([]posting, error) {
	var blob []byte
	if err := w.tx.QueryRowContext(w.ctx, `SELECT data FROM eng_blocks WHERE term=? AND last=?`, t, int64(last)).Scan(&blob); err != nil {
		return nil, fmt.Errorf("engine: block of %q ending at %d: %w", t, last, err)
	}
	ps, err := decodeBlock(nil, blob)
	if err != nil {
		return nil, fmt.Errorf("engine: block of %q ending at %d: %w", t, last, err)
	}
	return ps, nil
}

// changes collects the rows a batch of terms writes.
type changes struct {
	blocks   []any // term, last, data
	delBlock [][2]any
	terms    []any // term, df, skips, tail
	delTerms []any
}

// cut writes full blocks of ps to ch and returns their metas and the rest.
// A block is also cut at maxBlockBytes encoded, so its row stays within
// one page of SQLite's b-tree: a longer one spills into an overflow page
// mostly left empty (measured: 44 MB of 124 on the heavy memory once long
// turns' passages grew their blocks).
const maxBlockBytes = 900

// cut writes blocks of ps to ch (all of them when full; else the rest, if
// it holds fewer than size postings and fits maxBlockBytes, stays the
// tail) and returns their metas and the rest.
func cut(ch *changes, t string, ps []posting, full bool, size int) ([]blockMeta, []posting) {
	var metas []blockMeta
	for len(ps) > 0 {
		n := min(len(ps), size)
		enc := encodeBlock(nil, ps[:n])
		for len(enc) > maxBlockBytes && n > 1 {
			n = max(1, min(n-1, n*maxBlockBytes/len(enc)))
			enc = encodeBlock(nil, ps[:n])
		}
		if !full && n == len(ps) && n < size {
			break
		}
		ch.blocks = append(ch.blocks, t, int64(ps[n-1].doc), enc)
		metas = append(metas, metaOf(ps[:n]))
		ps = ps[n:]
	}
	return metas, ps
}

func (ch *changes) putTerm(t string, r *writeRow) {
	var tail []byte
	if len(r.tail) > 0 {
		tail = encodeBlock(nil, r.tail)
	}
	skips := r.raw
	if r.decoded {
		skips = encodeSkips(nil, r.skips)
	}
	ch.terms = append(ch.terms, t, r.df, skips, tail)
}

func (w *Writer) apply(ch *changes) error {
	for _, k := range ch.delBlock {
		if err := w.exec(`DELETE FROM eng_blocks WHERE term=? AND last=?`, k[0], k[1]); err != nil {
			return fmt.Errorf("engine: delete block: %w", err)
		}
	}
	if err := w.execRows(`INSERT OR REPLACE INTO eng_blocks(term, last, data)`, 3, ch.blocks); err != nil {
		return fmt.Errorf("engine: write blocks: %w", err)
	}
	if err := w.execRows(`INSERT OR REPLACE INTO eng_terms(term, df, skips, tail)`, 4, ch.terms); err != nil {
		return fmt.Errorf("engine: write terms: %w", err)
	}
	for len(ch.delTerms) > 0 {
		n := min(len(ch.delTerms), batchRows)
		if err := w.exec(`DELETE FROM eng_terms WHERE term IN (`+placeholders(n)+`)`, ch.delTerms[:n]...); err != nil {
			return fmt.Errorf("engine: delete terms: %w", err)
		}
		ch.delTerms = ch.delTerms[n:]
	}
	return nil
}

// appendTerms adds the buffered postings of a batch of terms.
func (w *Writer) appendTerms(terms []string) error {
	rows, err := w.readTerms(terms)
	if err != nil {
		return err
	}
	var ch changes
	for _, t := range terms {
		ps := w.buf[t]
		r := rows[t]
		if r == nil {
			r = &writeRow{term: t, decoded: true}
		}
		end, err := r.maxDoc()
		if err != nil {
			return err
		}
		var merged []posting
		if ps[0].doc > end {
			// The common case: the new postings follow the list's end.
			merged = append(r.tail, ps...)
		} else {
			// An id below the list's end: merge and rewrite the list.
			skips, err := r.blocks()
			if err != nil {
				return err
			}
			var all []posting
			for _, b := range skips {
				bp, err := w.readBlock(t, b.last)
				if err != nil {
					return err
				}
				all = append(all, bp...)
				ch.delBlock = append(ch.delBlock, [2]any{t, int64(b.last)})
			}
			all = append(all, r.tail...)
			r.skips = nil
			merged = make([]posting, 0, len(all)+len(ps))
			i, j := 0, 0
			for i < len(all) || j < len(ps) {
				switch {
				case j == len(ps) || i < len(all) && all[i].doc < ps[j].doc:
					merged = append(merged, all[i])
					i++
				case i == len(all) || ps[j].doc < all[i].doc:
					merged = append(merged, ps[j])
					j++
				default:
					return fmt.Errorf("engine: document %d added twice", ps[j].doc)
				}
			}
		}
		// Full blocks, or a tail grown past maxBlockBytes, become blocks.
		metas, rest := cut(&ch, t, merged, false, w.blockSize)
		if len(metas) > 0 {
			if _, err := r.blocks(); err != nil {
				return err
			}
			r.skips = append(r.skips, metas...)
		}
		merged = rest
		r.tail = merged
		r.df += len(ps)
		ch.putTerm(t, r)
	}
	return w.apply(&ch)
}

// Known hands a delete the documents it deletes as they were added: for id,
// it calls try with what it takes the document to be (analysed from the
// same text), best guess first, until try returns true.
type Known func(id uint64, try func(*Doc) bool)

// DeleteRange deletes every document whose id is in [lo, hi]. The index
// keeps no list of a document's terms (it would be a third of its size):
// known, when set, hands back the documents, and a document whose terms
// are those stored (their count and hash) has its postings taken from the
// lists of its terms. One it does not hand back so is looked for in every
// term's list instead: slower, as sure. It flushes first only if buffered
// documents fall in the range.
func (w *Writer) DeleteRange(lo, hi uint64, known Known) error {
	if w.buffered > 0 && lo <= w.bufHi && hi >= w.bufLo {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if err := w.flushDocs(); err != nil {
		return err
	}
	rows, err := w.tx.QueryContext(w.ctx, `SELECT id, lens, n, sum FROM eng_docs WHERE id BETWEEN ? AND ?`, int64(lo), int64(hi))
	if err != nil {
		return fmt.Errorf("engine: delete documents: %w", err)
	}
	return w.deleteDocs(rows, known)
}

// Delete removes documents and their postings, looking for them in every
// term's list (DeleteRange with known documents is the fast way); a term no
// document holds any more leaves the dictionary. Unknown ids are ignored.
func (w *Writer) Delete(ids []uint64) error {
	if err := w.Flush(); err != nil {
		return err
	}
	for len(ids) > 0 {
		n := min(len(ids), batchRows)
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = int64(id)
		}
		rows, err := w.tx.QueryContext(w.ctx, `SELECT id, lens, n, sum FROM eng_docs WHERE id IN (`+placeholders(n)+`)`, args...)
		if err != nil {
			return fmt.Errorf("engine: delete documents: %w", err)
		}
		if err := w.deleteDocs(rows, nil); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// deleteDocs deletes the documents rows lists (id, lens, n, sum).
func (w *Writer) deleteDocs(rows *sql.Rows, known Known) error {
	byTerm := map[string][]uint64{}
	var ids []any
	lost := map[uint64]bool{} // documents to look for in every list
	for rows.Next() {
		var id, n, sum int64
		var lb []byte
		if err := rows.Scan(&id, &lb, &n, &sum); err != nil {
			rows.Close()
			return fmt.Errorf("engine: delete documents: %w", err)
		}
		r := reader{b: lb}
		for f := range NumFields {
			w.lenSum[f] -= int64(r.uvarint())
		}
		if r.err != nil {
			rows.Close()
			return fmt.Errorf("engine: delete document %d: lengths: %w", id, r.err)
		}
		found := false
		if known != nil {
			known(uint64(id), func(d *Doc) bool {
				if d == nil || int64(len(d.terms)) != n || d.sum() != sum {
					return false
				}
				for _, t := range d.terms {
					byTerm[t] = append(byTerm[t], uint64(id))
				}
				found = true
				return true
			})
		}
		if !found {
			lost[uint64(id)] = true
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("engine: delete documents: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	if len(lost) > 0 {
		w.lost += len(lost)
		if err := w.findPostings(lost, byTerm); err != nil {
			return err
		}
	}
	for len(ids) > 0 {
		n := min(len(ids), batchRows)
		if err := w.exec(`DELETE FROM eng_docs WHERE id IN (`+placeholders(n)+`)`, ids[:n]...); err != nil {
			return fmt.Errorf("engine: delete documents: %w", err)
		}
		w.docs -= int64(n)
		ids = ids[n:]
	}
	terms := make([]string, 0, len(byTerm))
	for t := range byTerm {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	for len(terms) > 0 {
		n := min(len(terms), batchRows)
		if err := w.removeFromTerms(terms[:n], byTerm); err != nil {
			return err
		}
		terms = terms[n:]
	}
	return w.bumpStats()
}

// findPostings adds to byTerm every term whose list holds one of docs,
// reading the whole dictionary and the blocks whose range holds one.
func (w *Writer) findPostings(docs map[uint64]bool, byTerm map[string][]uint64) error {
	sorted := make([]uint64, 0, len(docs))
	for d := range docs {
		sorted = append(sorted, d)
	}
	slices.Sort(sorted)
	// holds reports whether a document to find lies in (after, upTo].
	holds := func(after, upTo uint64) bool {
		i := sort.Search(len(sorted), func(i int) bool { return sorted[i] > after })
		return i < len(sorted) && sorted[i] <= upTo
	}
	rows, err := w.tx.QueryContext(w.ctx, `SELECT term, df, skips, tail FROM eng_terms`)
	if err != nil {
		return fmt.Errorf("engine: look for deleted documents: %w", err)
	}
	type hit struct {
		term string
		last uint64
	}
	var blocks []hit
	for rows.Next() {
		var term string
		var df int
		var sk, tail []byte
		if err := rows.Scan(&term, &df, &sk, &tail); err != nil {
			rows.Close()
			return fmt.Errorf("engine: look for deleted documents: %w", err)
		}
		r, err := decodeTermRow(term, df, sk, tail)
		if err != nil {
			rows.Close()
			return err
		}
		blocksOf := r.skips
		if r.tail != nil {
			blocksOf = blocksOf[:len(blocksOf)-1]
			for _, p := range r.tail.ps {
				if docs[p.doc] {
					byTerm[term] = append(byTerm[term], p.doc)
				}
			}
		}
		prev := uint64(0)
		for i, b := range blocksOf {
			if holds(prev, b.last) || i == 0 && docs[0] {
				blocks = append(blocks, hit{term, b.last})
			}
			prev = b.last
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("engine: look for deleted documents: %w", err)
	}
	for _, b := range blocks {
		ps, err := w.readBlock(b.term, b.last)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if docs[p.doc] {
				byTerm[b.term] = append(byTerm[b.term], p.doc)
			}
		}
	}
	return nil
}

// removeFromTerms takes documents out of the lists of a batch of terms,
// rewriting only the blocks that held them.
func (w *Writer) removeFromTerms(terms []string, byTerm map[string][]uint64) error {
	rows, err := w.readTerms(terms)
	if err != nil {
		return err
	}
	var ch changes
	for _, t := range terms {
		r := rows[t]
		if r == nil {
			continue
		}
		if _, err := r.blocks(); err != nil {
			return err
		}
		docs := byTerm[t]
		gone := make(map[uint64]bool, len(docs))
		hit := map[int]bool{}
		for _, d := range docs {
			gone[d] = true
			hit[sort.Search(len(r.skips), func(i int) bool { return r.skips[i].last >= d })] = true
		}
		keep := func(ps []posting) []posting {
			var out []posting
			for _, p := range ps {
				if !gone[p.doc] {
					out = append(out, p)
				}
			}
			return out
		}
		var skips []blockMeta
		removed := 0
		for i, b := range r.skips {
			if !hit[i] {
				skips = append(skips, b)
				continue
			}
			ps, err := w.readBlock(t, b.last)
			if err != nil {
				return err
			}
			kept := keep(ps)
			if len(kept) == len(ps) {
				skips = append(skips, b)
				continue
			}
			removed += len(ps) - len(kept)
			ch.delBlock = append(ch.delBlock, [2]any{t, int64(b.last)})
			m, _ := cut(&ch, t, kept, true, w.blockSize)
			skips = append(skips, m...)
		}
		if hit[len(r.skips)] {
			kept := keep(r.tail)
			removed += len(r.tail) - len(kept)
			r.tail = kept
		}
		r.skips = skips
		r.df -= removed
		if len(r.skips) == 0 && len(r.tail) == 0 {
			ch.delTerms = append(ch.delTerms, t)
			continue
		}
		ch.putTerm(t, r)
	}
	return w.apply(&ch)
}
