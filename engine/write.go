package engine

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Writer adds and deletes documents within the caller's transaction, so the
// index changes all-or-nothing with whatever else the transaction writes.
// Added postings are buffered and written by Flush (and by Delete, which
// flushes first); call Flush before committing.
//
// Document ids must grow: a new document's id is above every id in the
// index, so its postings append to the end of each term's list. An id
// below that still works, at the cost of rewriting that term's list.
type Writer struct {
	ctx      context.Context
	tx       *sql.Tx
	buf      map[string][]posting
	buffered int
	docs     int64
	lenSum   [NumFields]int64
	dirty    bool
	insDoc   *sql.Stmt
	getTerm  *sql.Stmt
	putTerm  *sql.Stmt
	getBlock *sql.Stmt
	putBlock *sql.Stmt
	delBlock *sql.Stmt
}

// flushAt is how many buffered postings make Add flush by itself: a bound on
// the writer's memory during a full rebuild.
const flushAt = 1 << 21

// NewWriter starts writing within tx, creating the tables if missing.
func NewWriter(ctx context.Context, tx *sql.Tx) (*Writer, error) {
	if err := Create(ctx, tx); err != nil {
		return nil, err
	}
	w := &Writer{ctx: ctx, tx: tx, buf: map[string][]posting{}}
	for _, s := range []struct {
		st **sql.Stmt
		q  string
	}{
		{&w.insDoc, `INSERT INTO eng_docs(id, lens, terms) VALUES(?,?,?)`},
		{&w.getTerm, `SELECT df, skips FROM eng_terms WHERE term=?`},
		{&w.putTerm, `INSERT OR REPLACE INTO eng_terms(term, df, skips) VALUES(?,?,?)`},
		{&w.getBlock, `SELECT data FROM eng_blocks WHERE term=? AND last=?`},
		{&w.putBlock, `INSERT OR REPLACE INTO eng_blocks(term, last, data) VALUES(?,?,?)`},
		{&w.delBlock, `DELETE FROM eng_blocks WHERE term=? AND last=?`},
	} {
		st, err := tx.PrepareContext(ctx, s.q)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("engine: prepare: %w", err)
		}
		*s.st = st
	}
	return w, nil
}

// Close releases the writer's statements; it does not flush.
func (w *Writer) Close() {
	for _, s := range []*sql.Stmt{w.insDoc, w.getTerm, w.putTerm, w.getBlock, w.putBlock, w.delBlock} {
		if s != nil {
			s.Close()
		}
	}
}

// Add indexes one document: the text of each of its fields. A document
// without a single token is not indexed.
func (w *Writer) Add(id uint64, fields [NumFields]string) error {
	if id > 1<<63-1 {
		return fmt.Errorf("engine: document id %d out of range", id)
	}
	type tfs = [NumFields]uint32
	counts := map[string]*tfs{}
	var lens [NumFields]uint32
	for f := range NumFields {
		Tokens(fields[f], func(tok string) {
			t := stem(tok)
			c := counts[t]
			if c == nil {
				c = &tfs{}
				counts[t] = c
			}
			c[f]++
			lens[f]++
		})
	}
	if len(counts) == 0 {
		return nil
	}
	terms := make([]string, 0, len(counts))
	for t, c := range counts {
		terms = append(terms, t)
		w.buf[t] = append(w.buf[t], posting{doc: id, tf: *c, len: lens})
	}
	// Only the lengths of fields the term is in matter to its score.
	for _, t := range terms {
		ps := w.buf[t]
		p := &ps[len(ps)-1]
		for f := range NumFields {
			if p.tf[f] == 0 {
				p.len[f] = 0
			}
		}
	}
	sort.Strings(terms)
	var lb []byte
	for f := range NumFields {
		lb = binary.AppendUvarint(lb, uint64(lens[f]))
		w.lenSum[f] += int64(lens[f])
	}
	if _, err := w.insDoc.ExecContext(w.ctx, int64(id), lb, strings.Join(terms, " ")); err != nil {
		return fmt.Errorf("engine: add document %d: %w", id, err)
	}
	w.docs++
	w.dirty = true
	w.buffered += len(terms)
	if w.buffered >= flushAt {
		return w.Flush()
	}
	return nil
}

// Flush writes the buffered postings and the statistics.
func (w *Writer) Flush() error {
	if !w.dirty {
		return nil
	}
	terms := make([]string, 0, len(w.buf))
	for t := range w.buf {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	for _, t := range terms {
		if err := w.appendTerm(t, w.buf[t]); err != nil {
			return fmt.Errorf("engine: write postings of %q: %w", t, err)
		}
	}
	clear(w.buf)
	w.buffered = 0
	if err := w.bumpStats(); err != nil {
		return err
	}
	w.dirty = false
	return nil
}

func (w *Writer) bumpStats() error {
	add := func(k string, v int64) error {
		_, err := w.tx.ExecContext(w.ctx, `INSERT INTO eng_stats(key, value) VALUES(?1, ?2)
			ON CONFLICT(key) DO UPDATE SET value = value + ?2`, k, v)
		return err
	}
	if err := add("docs", w.docs); err != nil {
		return fmt.Errorf("engine: write stats: %w", err)
	}
	for f, k := range statKeys {
		if err := add(k, w.lenSum[f]); err != nil {
			return fmt.Errorf("engine: write stats: %w", err)
		}
	}
	if err := add("gen", 1); err != nil {
		return fmt.Errorf("engine: write stats: %w", err)
	}
	w.docs, w.lenSum = 0, [NumFields]int64{}
	return nil
}

// termList is a term's dictionary row.
type termList struct {
	df     int
	skips  []blockMeta
	exists bool
}

func (w *Writer) readTerm(t string) (termList, error) {
	var tl termList
	var blob []byte
	switch err := w.getTerm.QueryRowContext(w.ctx, t).Scan(&tl.df, &blob); {
	case errors.Is(err, sql.ErrNoRows):
		return tl, nil
	case err != nil:
		return tl, err
	}
	sk, err := decodeSkips(blob)
	if err != nil {
		return tl, fmt.Errorf("skip list: %w", err)
	}
	tl.skips, tl.exists = sk, true
	return tl, nil
}

func (w *Writer) readBlock(t string, last uint64) ([]posting, error) {
	var blob []byte
	if err := w.getBlock.QueryRowContext(w.ctx, t, int64(last)).Scan(&blob); err != nil {
		return nil, fmt.Errorf("block ending at %d: %w", last, err)
	}
	return decodeBlock(nil, blob)
}

// writeBlocks cuts postings into full blocks and writes them.
func (w *Writer) writeBlocks(t string, ps []posting) ([]blockMeta, error) {
	var metas []blockMeta
	var buf []byte
	for len(ps) > 0 {
		n := min(len(ps), BlockSize)
		buf = encodeBlock(buf[:0], ps[:n])
		if _, err := w.putBlock.ExecContext(w.ctx, t, int64(ps[n-1].doc), buf); err != nil {
			return nil, err
		}
		metas = append(metas, metaOf(ps[:n]))
		ps = ps[n:]
	}
	return metas, nil
}

func (w *Writer) putTermRow(t string, df int, skips []blockMeta) error {
	_, err := w.putTerm.ExecContext(w.ctx, t, df, encodeSkips(nil, skips))
	return err
}

// appendTerm adds new postings (sorted by doc) to a term's list.
func (w *Writer) appendTerm(t string, ps []posting) error {
	tl, err := w.readTerm(t)
	if err != nil {
		return err
	}
	switch {
	case !tl.exists:
		metas, err := w.writeBlocks(t, ps)
		if err != nil {
			return err
		}
		return w.putTermRow(t, len(ps), metas)
	case ps[0].doc > tl.skips[len(tl.skips)-1].last:
		// The common case: fill the last block up, then add full ones.
		keep := tl.skips
		if last := keep[len(keep)-1]; last.n < BlockSize {
			old, err := w.readBlock(t, last.last)
			if err != nil {
				return err
			}
			if _, err := w.delBlock.ExecContext(w.ctx, t, int64(last.last)); err != nil {
				return err
			}
			ps = append(old, ps...)
			keep = keep[:len(keep)-1]
		}
		metas, err := w.writeBlocks(t, ps)
		if err != nil {
			return err
		}
		return w.putTermRow(t, tl.df+len(ps)-(sumN(tl.skips)-sumN(keep)), append(keep, metas...))
	default:
		// An id below the list's end: merge and rewrite the list.
		var all []posting
		for _, b := range tl.skips {
			bp, err := w.readBlock(t, b.last)
			if err != nil {
				return err
			}
			all = append(all, bp...)
			if _, err := w.delBlock.ExecContext(w.ctx, t, int64(b.last)); err != nil {
				return err
			}
		}
		merged := make([]posting, 0, len(all)+len(ps))
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
				return fmt.Errorf("document %d added twice", ps[j].doc)
			}
		}
		metas, err := w.writeBlocks(t, merged)
		if err != nil {
			return err
		}
		return w.putTermRow(t, len(merged), metas)
	}
}

func sumN(bs []blockMeta) int {
	n := 0
	for _, b := range bs {
		n += b.n
	}
	return n
}

// DeleteRange deletes every document whose id is in [lo, hi].
func (w *Writer) DeleteRange(lo, hi uint64) error {
	rows, err := w.tx.QueryContext(w.ctx, `SELECT id FROM eng_docs WHERE id BETWEEN ? AND ?`, int64(lo), int64(hi))
	if err != nil {
		return fmt.Errorf("engine: delete documents: %w", err)
	}
	var ids []uint64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("engine: delete documents: %w", err)
		}
		ids = append(ids, uint64(id))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("engine: delete documents: %w", err)
	}
	return w.Delete(ids)
}

// Delete removes documents and their postings; a term no document holds any
// more leaves the dictionary. Unknown ids are ignored.
func (w *Writer) Delete(ids []uint64) error {
	if len(ids) == 0 {
		return nil
	}
	if err := w.Flush(); err != nil {
		return err
	}
	byTerm := map[string][]uint64{}
	for _, id := range ids {
		var lb []byte
		var terms string
		switch err := w.tx.QueryRowContext(w.ctx, `SELECT lens, terms FROM eng_docs WHERE id=?`, int64(id)).Scan(&lb, &terms); {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return fmt.Errorf("engine: delete document %d: %w", id, err)
		}
		r := reader{b: lb}
		for f := range NumFields {
			w.lenSum[f] -= int64(r.uvarint())
		}
		if r.err != nil {
			return fmt.Errorf("engine: delete document %d: lengths: %w", id, r.err)
		}
		for _, t := range strings.Fields(terms) {
			byTerm[t] = append(byTerm[t], id)
		}
		if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM eng_docs WHERE id=?`, int64(id)); err != nil {
			return fmt.Errorf("engine: delete document %d: %w", id, err)
		}
		w.docs--
		w.dirty = true
	}
	terms := make([]string, 0, len(byTerm))
	for t := range byTerm {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	for _, t := range terms {
		if err := w.removeFromTerm(t, byTerm[t]); err != nil {
			return fmt.Errorf("engine: delete postings of %q: %w", t, err)
		}
	}
	if !w.dirty {
		return nil
	}
	err := w.bumpStats()
	w.dirty = false
	return err
}

// removeFromTerm takes docs out of a term's list, rewriting only the blocks
// that held them.
func (w *Writer) removeFromTerm(t string, docs []uint64) error {
	tl, err := w.readTerm(t)
	if err != nil || !tl.exists {
		return err
	}
	gone := make(map[uint64]bool, len(docs))
	for _, d := range docs {
		gone[d] = true
	}
	hit := map[int]bool{}
	for _, d := range docs {
		i := sort.Search(len(tl.skips), func(i int) bool { return tl.skips[i].last >= d })
		if i < len(tl.skips) {
			hit[i] = true
		}
	}
	var skips []blockMeta
	removed := 0
	for i, b := range tl.skips {
		if !hit[i] {
			skips = append(skips, b)
			continue
		}
		ps, err := w.readBlock(t, b.last)
		if err != nil {
			return err
		}
		kept := ps[:0]
		for _, p := range ps {
			if !gone[p.doc] {
				kept = append(kept, p)
			}
		}
		removed += len(ps) - len(kept)
		if len(kept) == len(ps) {
			skips = append(skips, b)
			continue
		}
		if _, err := w.delBlock.ExecContext(w.ctx, t, int64(b.last)); err != nil {
			return err
		}
		if len(kept) > 0 {
			m, err := w.writeBlocks(t, kept)
			if err != nil {
				return err
			}
			skips = append(skips, m...)
		}
	}
	if len(skips) == 0 {
		_, err := w.tx.ExecContext(w.ctx, `DELETE FROM eng_terms WHERE term=?`, t)
		return err
	}
	return w.putTermRow(t, tl.df-removed, skips)
}
