// Package memory owns an Ireneo memory: the funes jsonl conversations under
// src/, and ireneo.db beside them, which holds the derived search index and
// the catalog of the person's own choices (project tags, stars, tombstones)
// and the tables of the catalog's other owners (access token records, the
// audit log, the scrub allow-list and history), whose schema is here.
// The two are versioned apart (schema.go): Open migrates the catalog
// forward, rebuilds the index from src/ when its layout changed, and refuses
// a database written by a newer Ireneo. Its jobs are four: the store (Open,
// the schema, status, the lookup of one conversation and its file), the
// catalog's choices (tags, stars, project renames), ingest (ingest*.go:
// staging, then one commit of files, index and catalog) and forget
// (forget*.go and the erase journal), with the one rewrite of stored
// conversations a scrub applies (rewrite.go). What is indexed of a
// conversation (its chunks, previews and engine documents) is package
// indexdoc's cut, which memory stores; reading the conversation list, one
// conversation and the projects is package conversations', through the
// read transaction.
//
// Three doors lead in, and every change to the files, the index or the
// erase journal is memory's own:
//   - a read transaction (readtx.go: BeginRead, the engine's search with
//     its cache, the index generation), through which package recall reads
//     its candidates with queries of its own over the tables schema.go
//     documents, as conversations, insights, sync, memscrub, tokenstore,
//     auditlog and catalog read theirs (loops over rows with one helper, querier.go);
//   - the catalog's write door (catalogtx.go: WriteCatalog), through which a
//     package that owns a catalog table writes it: tokenstore the access
//     tokens' records, auditlog the tool calls, memscrub the allow-list and
//     history, catalog a snapshot of the choices (a backup's, or tombstones
//     from sync);
//   - a rewrite (rewrite.go: BeginRewrite), which memscrub fills with the
//     new versions of the conversations it redacts and its catalog edits;
//     memory commits them as one job of the erase journal, the old bytes
//     overwritten and erased.
//
// A restore is package backup's; memory only clears what a dead one left in
// its staging folder, wherever it clears leftovers (restoreleftovers.go), so
// a restore killed at any step leaves the memory as it was.
//
// The search index is package engine's tables in ireneo.db (one document
// per turn), which memory keeps in the same transaction as every import,
// forget, rewrite and reindex. The conversations' model and codec are
// package funes. Besides funes and engine it imports only leaves: indexdoc
// (what a turn is indexed as), querywords (the forget audit's words),
// sqlitepages (zeroing free page space), diskproblem (why the files cannot
// be written), filelock (staging and journal locks), shred (a file zeroed
// before it goes), plumbing (what in a transcript is not a person's words)
// and answer (forget recognises Ireneo's own answers quoted in an agent's
// transcript by answer's readers).
package memory
