// Package engine is Ireneo's own retrieval engine: an inverted index of
// documents (one turn's searched text and its fields) kept in SQLite tables
// beside the rest of ireneo.db, and an exact top-k BM25F search over it that
// prunes with per-term and per-block score upper bounds (block-max MaxScore),
// so a common word costs almost nothing once the k-th best score is known.
//
// It owns its tables (Schema, Tables), the tokenizer that both indexing and
// queries go through (Analyze), the posting codec, writing within a caller's
// transaction (Writer) and searching within a caller's read transaction
// (Search). It imports no Ireneo package; memory keeps it in step with the
// store, and recall asks it for candidates.
package engine
