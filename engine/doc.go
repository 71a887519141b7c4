// Package engine is Ireneo's own retrieval engine: an inverted index of
// documents (one turn's searched text and its fields) kept in SQLite tables
// beside the rest of ireneo.db, and an exact top-k BM25F search over it that
// prunes with per-term and per-block score upper bounds (block-max MaxScore),
// so a common word costs almost nothing once the k-th best score is known.
//
// It owns its tables (Schema, Tables), the analysis both indexing and
// queries go through (Analyze, Tokens: FTS5's porter unicode61 with the runs
// of scripts written without spaces cut into character bigrams, Segmented;
// Identifiers, the whole terms of MT-4471 or foo_bar.go), the passages a
// long body is cut into (Passages: a document scores as the larger of
// itself and its best passage, weighed by Params.Passage, and a hit says
// which passage it was), the posting codec, writing within a caller's
// transaction (Writer) and searching within a caller's read transaction
// (Search, and SearchExhaustive, the reference it is proved against). It
// imports no Ireneo package; memory keeps it in step with the store, and
// recall asks it for candidates.
package engine
