// Package recall owns Ireneo's recall pipeline: what the CLI, the MCP server
// and the GUI call to find the passages of past conversations that answer a
// question, within a token budget. Recall (recall.go) reads top down, and
// reads package memory through one door, a memory.ReadTx: opened once,
// read through, closed once:
//
//  1. plan (plan.go): the query taken apart (package querywords cuts it as
//     the index cuts text) into content words, stopwords, identifiers,
//     whether it asks for the latest, and whose words it asks about; its
//     engine terms. It reads nothing;
//  2. read (candidates.go, reads.go, turnreads.go): openSnapshot opens one
//     read transaction of the memory (memory.BeginRead: the first trip)
//     and reads, through it, the engine's best turns (BM25F over text,
//     title, identifiers and date, the filters applied inside the search)
//     with what the ranking stages weigh them by: the rarity of the
//     query's words and, when a stage reads it, each turn's text. The
//     queries are recall's, over memory's tables (memory/schema.go); the
//     ReadTx runs them, and the engine's search, in its one transaction;
//     what recall keeps between recalls is readcache.go's;
//  3. ranking stages (coverage.go, semantic.go, rank.go), each earned on the
//     evaluation sets (bench/README.md): coverage of the query, the session
//     signal, recency, stars, a turn holding the question's identifiers
//     whole (not only their parts), the person's own turns for a question about
//     their life ("my", "I"), newest first among ties, then how one
//     conversation's turns are shown and counted: one hit per exchange (a
//     message and its reply: the other shows as its neighbour) and a mild
//     discount for a conversation's further hits, so several conversations
//     are covered without pushing out a second evidence turn of the first;
//  4. hydrate (hydrate.go): the snapshot's Shown (shown.go) reads the
//     hits' text, receipts, projects and neighbouring-turn previews through
//     the same ReadTx (the second trip), so a turn forgotten meanwhile is
//     still whole;
//  5. budget and context block (package answer, FitRecall): hits in rank
//     order while they fit the tokens, rendered as dated, sourced,
//     verbatim passages with a receipt each, beside the structured hits;
//  6. the snapshot's ReadTx closes — the third trip.
//
// A request's stages and constants are one value (run, from Options and
// its Tuning); no package state changes what a recall does.
package recall
