package recallbench

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
)

// mirror is the baseline's ranking computed in Go: FTS5's bm25() (k1 = 1.2,
// b = 0.75, idf = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6, one phrase
// per query word, duplicates counted) over the postings of the baseline's
// own FTS5 index, read once through fts5vocab, with query words tokenized
// by the same FTS5 tokenizer. TestMirrorMatchesFTS5 holds it to the SQL.
type mirror struct {
	terms  map[string][]posting
	pos    []int32 // token offsets, referenced by postings
	docLen []int32 // tokens per row, by rowid-1
	avgdl  float64
	docs   []Doc // by rowid-1
	toks   map[string][]string
	b      *Baseline

	scratch []float64 // scores by row, zero between searches
}

type posting struct {
	doc      int32 // rowid-1
	off, cnt int32 // into mirror.pos
}

// loadMirror reads the baseline's index into memory.
func (b *Baseline) loadMirror(ctx context.Context, docs []Doc) error {
	for _, q := range []string{
		`CREATE VIRTUAL TABLE IF NOT EXISTS turns_inst USING fts5vocab(turns, 'instance')`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS qtok USING fts5(w, tokenize = 'porter unicode61')`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS qtok_inst USING fts5vocab(qtok, 'instance')`,
	} {
		if _, err := b.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("baseline mirror: %w", err)
		}
	}
	m := &mirror{terms: map[string][]posting{}, docLen: make([]int32, len(docs)), docs: docs, toks: map[string][]string{}, b: b}
	rows, err := b.db.QueryContext(ctx, `SELECT term, doc, "offset" FROM turns_inst`)
	if err != nil {
		return fmt.Errorf("baseline mirror: %w", err)
	}
	defer rows.Close()
	type inst struct{ doc, off int32 }
	raw := map[string][]inst{}
	var total int64
	for rows.Next() {
		var term string
		var doc, off int64
		if err := rows.Scan(&term, &doc, &off); err != nil {
			return err
		}
		if doc < 1 || int(doc) > len(docs) {
			return fmt.Errorf("baseline mirror: rowid %d out of range", doc)
		}
		raw[term] = append(raw[term], inst{int32(doc - 1), int32(off)})
		m.docLen[doc-1]++
		total++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for term, is := range raw {
		sort.Slice(is, func(i, j int) bool {
			if is[i].doc != is[j].doc {
				return is[i].doc < is[j].doc
			}
			return is[i].off < is[j].off
		})
		var ps []posting
		for _, in := range is {
			if n := len(ps); n > 0 && ps[n-1].doc == in.doc {
				ps[n-1].cnt++
			} else {
				ps = append(ps, posting{doc: in.doc, off: int32(len(m.pos)), cnt: 1})
			}
			m.pos = append(m.pos, in.off)
		}
		m.terms[term] = ps
	}
	if len(docs) > 0 {
		m.avgdl = float64(total) / float64(len(docs))
	}
	b.mirror = m
	return nil
}

// prepare tokenizes the words of many queries at once, in one pass over
// the scratch table.
func (m *mirror) prepare(ctx context.Context, queries []string) error {
	var words []string
	seen := map[string]bool{}
	for _, q := range queries {
		for _, w := range queryWords(q) {
			if _, ok := m.toks[w]; !ok && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	if len(words) == 0 {
		return nil
	}
	db := m.b.db
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i, w := range words {
		if _, err := tx.ExecContext(ctx, `INSERT INTO qtok(rowid, w) VALUES(?, ?)`, i+1, w); err != nil {
			return err
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT doc, term FROM qtok_inst ORDER BY doc, "offset"`)
	if err != nil {
		return err
	}
	toks := make([][]string, len(words))
	for rows.Next() {
		var doc int
		var t string
		if err := rows.Scan(&doc, &t); err != nil {
			rows.Close()
			return err
		}
		toks[doc-1] = append(toks[doc-1], t)
	}
	rows.Close()
	if _, err := tx.ExecContext(ctx, `DELETE FROM qtok`); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for i, w := range words {
		m.toks[w] = toks[i]
	}
	return nil
}

// tokens is how FTS5's tokenizer cuts one query word, read back from a
// scratch table with the same tokenizer.
func (m *mirror) tokens(ctx context.Context, word string) ([]string, error) {
	if t, ok := m.toks[word]; ok {
		return t, nil
	}
	db := m.b.db
	if _, err := db.ExecContext(ctx, `INSERT INTO qtok(rowid, w) VALUES(1, ?)`, word); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT term FROM qtok_inst ORDER BY "offset"`)
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, t)
	}
	rows.Close()
	if _, err := db.ExecContext(ctx, `DELETE FROM qtok`); err != nil {
		return nil, err
	}
	m.toks[word] = out
	return out, nil
}

// phraseFreq maps each row to how often the phrase occurs in it.
func (m *mirror) phraseFreq(phrase []string) map[int32]int {
	first := m.terms[phrase[0]]
	out := make(map[int32]int, len(first))
	if len(phrase) == 1 {
		for _, p := range first {
			out[p.doc] = int(p.cnt)
		}
		return out
	}
	rest := make([]map[int32]posting, len(phrase)-1)
	for i, t := range phrase[1:] {
		ps := m.terms[t]
		rest[i] = make(map[int32]posting, len(ps))
		for _, p := range ps {
			rest[i][p.doc] = p
		}
	}
	for _, p := range first {
		n := 0
		for _, start := range m.pos[p.off : p.off+p.cnt] {
			ok := true
			for i := range rest {
				q, found := rest[i][p.doc]
				if !found || !m.has(q, start+int32(i)+1) {
					ok = false
					break
				}
			}
			if ok {
				n++
			}
		}
		if n > 0 {
			out[p.doc] = n
		}
	}
	return out
}

func (m *mirror) has(p posting, off int32) bool {
	for _, o := range m.pos[p.off : p.off+p.cnt] {
		if o == off {
			return true
		}
	}
	return false
}

type ranked struct {
	doc   int32
	score float64 // bm25() as FTS5 returns it: lower is better
}

// search ranks rows for q as `WHERE turns MATCH Query(q) ORDER BY rank`.
func (m *mirror) search(ctx context.Context, q string, k int) ([]ranked, error) {
	const k1, b = 1.2, 0.75
	n := float64(len(m.docs))
	if len(m.scratch) != len(m.docs) {
		m.scratch = make([]float64, len(m.docs))
	}
	scores := m.scratch
	var touched []int32
	add := func(doc int32, idf, tf float64) {
		if scores[doc] == 0 {
			touched = append(touched, doc)
		}
		scores[doc] += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(m.docLen[doc])/m.avgdl))
	}
	idfOf := func(hits int) float64 {
		idf := math.Log((n - float64(hits) + 0.5) / (float64(hits) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		return idf
	}
	for _, w := range queryWords(q) {
		toks, err := m.tokens(ctx, w)
		if err != nil {
			return nil, err
		}
		switch len(toks) {
		case 0:
		case 1:
			ps := m.terms[toks[0]]
			idf := idfOf(len(ps))
			for _, p := range ps {
				add(p.doc, idf, float64(p.cnt))
			}
		default:
			freq := m.phraseFreq(toks)
			idf := idfOf(len(freq))
			for doc, f := range freq {
				add(doc, idf, float64(f))
			}
		}
	}
	out := make([]ranked, 0, len(touched))
	for _, doc := range touched {
		out = append(out, ranked{doc, -scores[doc]})
		scores[doc] = 0
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score < out[j].score
		}
		return out[i].doc < out[j].doc
	})
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

// queryWords are the words Query quotes and ORs.
func queryWords(q string) []string {
	var out []string
	for _, w := range strings.Fields(q) {
		w = strings.TrimFunc(w, func(r rune) bool { return strings.ContainsRune(`?!.,;:"'()[]{}`, r) })
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}
