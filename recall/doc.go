// Package recall owns Ireneo's recall pipeline: what the CLI, the MCP server
// and the GUI call to find the passages of past conversations that answer a
// question, within a token budget. A query takes this path, top down:
//
//  1. plan (recall.go): memory.PlanQuery takes the query apart into content
//     words, stopwords, identifiers, whether it asks for the latest, and whose
//     words it asks about;
//  2. candidates (candidates.go): the one seam to the index. It asks the
//     engine for the best turns (BM25F over text, title, identifiers and
//     date), with the filters (project and scope, source, dates) applied
//     inside the search;
//  3. ranking stages (coverage.go, semantic.go, rank.go), each earned on the
//     evaluation sets (bench/README.md): coverage of the query, the session
//     signal, recency, stars, the person's own turns for a question about
//     their life ("my", "I"), newest first among ties, then how one
//     conversation's turns are shown and counted: one hit per exchange (a
//     message and its reply: the other shows as its neighbour) and a mild
//     discount for a conversation's further hits, so several conversations
//     are covered without pushing out a second evidence turn of the first;
//  4. hydrate (hydrate.go): text, projects and neighbouring-turn previews;
//  5. budget and context block (package answer, FitRecall): hits in rank
//     order while they fit the tokens, rendered as dated, sourced, verbatim
//     passages with a receipt each, beside the structured hits.
//
// It reads the memory only through memory's exported read methods.
package recall
