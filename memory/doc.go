// Package memory owns an Ireneo memory: the funes jsonl conversations under
// src/, and ireneo.db beside them, which holds the derived search index and
// the catalog of the person's own choices (project tags, stars, tombstones,
// access token metadata, the audit log and the scrub history). The two are
// versioned apart (schema.go): Open migrates the catalog forward, rebuilds
// the index from src/ when its layout changed, and refuses a database
// written by a newer Ireneo. A package that owns a table of the catalog
// writes it through one door, WriteCatalog (catalogtx.go), and reads it in
// a ReadTx: tokenstore the access tokens' records, package catalog a
// snapshot of the choices (a backup's, or tombstones from sync). A restore
// is package backup's; memory only clears what a dead one left in its
// staging folder, wherever it clears leftovers (restoreleftovers.go), so a
// restore killed at any step leaves the memory as it was.
//
// Everything that reads or changes a memory goes through this package: the
// CLI, the MCP server and the GUI call the same functions. The recall
// pipeline is package recall: it reads through one door, a read
// transaction (readtx.go: BeginRead, the engine's search with its cache,
// the index generation), with queries of its own over the tables that
// schema.go documents; reads here and there loop over rows with one
// helper (querier.go). Insights' counts, sync's snapshot and memscrub's
// allow-list and audit reads go through the same door. Queries are cut into words by package querywords; the
// free space a forget leaves in the database's pages is zeroed by package
// sqlitepages.
// The search index is package engine's tables in ireneo.db (one document
// per turn), which memory keeps in the same transaction as every import,
// forget, scrub and reindex. The conversations' model and codec are package
// funes. Besides funes and engine it imports only leaves: o200k (a turn's
// token count), querywords (a search's words), sqlitepages (zeroing free
// page space), diskproblem (why the files cannot be written), filelock
// (staging and journal locks), shred (a file zeroed before it goes), plumbing
// (what in a transcript is not a person's words) and answer (forget
// recognises Ireneo's own answers quoted in an agent's transcript by
// answer's readers). Finding secrets and scrubbing a stored memory are
// packages redact and memscrub; memory keeps the conversation list and
// loads a scrub needs, the allow-list's and history's writes, and its
// journaled commit (scrub_memory.go).
package memory
