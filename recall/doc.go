// Package recall owns Ireneo's recall pipeline: what the CLI, the MCP server
// and the GUI call to find the passages of past conversations that answer a
// question, within a token budget. A query takes this path, top down:
//
//  1. plan (recall.go): memory.PlanQuery takes the query apart into content
//     words, stopwords, identifiers, whether it asks for the latest, and whose
//     words it asks about;
//  2. candidates (candidates.go): the one seam to the index. It fetches the
//     best-matching chunks with their turn and conversation, with the
//     filters (project and scope, source, dates) applied;
//  3. ranking stages (coverage.go, semantic.go, rank.go): each earned its
//     place on the evaluation sets (bench/README.md): coverage of the
//     query, the session signal, recency, stars, newest first among ties,
//     one hit per turn and the diversity discount across conversations;
//  4. hydrate (hydrate.go): text, projects and neighbouring-turn previews;
//  5. budget (hydrate.go): hits in rank order while they fit the tokens;
//  6. context block (block.go): dated, sourced, verbatim passages with a
//     receipt each, beside the structured hits.
//
// It reads the memory only through memory's exported read methods.
package recall
