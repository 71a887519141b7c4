package engine

import (
	"context"
	"database/sql"
	"fmt"
)

// Schema creates the engine's tables. The index is derived data: a caller
// that changes what it indexes, or how, drops Tables and adds again.
//
//   - eng_terms: the term dictionary: each term's document frequency, its
//     skip list (per block: last doc, size, per field max tf and min length,
//     for the body and the passages a frontier of (tf, length) pairs)
//     and its tail: the postings after the last block, fewer than BlockSize,
//     inline (most terms are rare and have nothing else).
//   - eng_blocks: posting blocks of up to BlockSize documents, keyed by term
//     and the block's last document.
//   - eng_docs: each document's field lengths (so the length sums stay right
//     after a delete), and the count and a hash of its distinct terms, so a
//     delete handed the document again knows it is the one indexed. Its
//     terms are not kept: they were a third of the index.
//   - eng_stats: document count, field length sums, and a generation that
//     every write bumps (cache keys).
const Schema = `
CREATE TABLE IF NOT EXISTS eng_stats(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS eng_terms(term TEXT PRIMARY KEY, df INTEGER NOT NULL, skips BLOB NOT NULL, tail BLOB) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS eng_blocks(term TEXT NOT NULL, last INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(term, last)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS eng_docs(id INTEGER PRIMARY KEY, lens BLOB NOT NULL, n INTEGER NOT NULL, sum INTEGER NOT NULL);
`

// Tables are the engine's tables, for a caller that drops its derived index.
var Tables = []string{"eng_stats", "eng_terms", "eng_blocks", "eng_docs"}

// Create makes the engine's tables within tx if they are missing.
func Create(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, Schema); err != nil {
		return fmt.Errorf("create engine tables: %w", err)
	}
	return nil
}

// Stats are the collection statistics BM25F needs.
type Stats struct {
	Docs   int64
	LenSum [NumFields]int64
	Gen    int64 // bumped by every write
}

var statKeys = [...]string{"len_body", "len_title", "len_ids", "len_date"}

// Querier is what the engine reads through: a *sql.Tx (one snapshot) or a
// *sql.Conn inside a transaction.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ReadStats reads the collection statistics.
func ReadStats(ctx context.Context, q Querier) (Stats, error) {
	var st Stats
	rows, err := q.QueryContext(ctx, `SELECT key, value FROM eng_stats`)
	if err != nil {
		return st, fmt.Errorf("read engine stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			return st, fmt.Errorf("read engine stats: %w", err)
		}
		switch k {
		case "docs":
			st.Docs = v
		case "gen":
			st.Gen = v
		default:
			for f, sk := range statKeys {
				if k == sk {
					st.LenSum[f] = v
				}
			}
		}
	}
	return st, rows.Err()
}

// DocFreq returns in how many documents each term occurs (0 if in none).
func DocFreq(ctx context.Context, q Querier, terms []string) (map[string]int, error) {
	out := make(map[string]int, len(terms))
	for _, t := range terms {
		if _, ok := out[t]; ok {
			continue
		}
		var df int
		err := q.QueryRowContext(ctx, `SELECT df FROM eng_terms WHERE term=?`, t).Scan(&df)
		if err != nil && err != sql.ErrNoRows {
			return nil, fmt.Errorf("read document frequency of %q: %w", t, err)
		}
		out[t] = df
	}
	return out, nil
}

// HasTerm reports whether any document holds term (an index term, as
// Analyze makes it): the erasure checks ask it after a forget or a scrub.
func HasTerm(ctx context.Context, q Querier, term string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM eng_terms WHERE term=?1) + (SELECT count(*) FROM eng_blocks WHERE term=?1)`, term).Scan(&n); err != nil {
		return false, fmt.Errorf("look up term %q: %w", term, err)
	}
	return n > 0, nil
}
