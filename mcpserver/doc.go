// Package mcpserver serves an Ireneo memory to local agents over the Model
// Context Protocol: four read-only tools (recall, get, sessions,
// list_projects) on a loopback Streamable HTTP endpoint guarded by per-client
// bearer tokens, and on stdio for clients that start a process.
//
// It makes and checks the tokens (Tokens; package tokenstore keeps their
// secrets and their records in the catalog), and owns the HTTP refusals
// (401 for a missing, unknown or revoked token; 403 for a foreign Host or
// any foreign Origin; both logged, rate-limited, to the audit log), the Streamable HTTP sessions (issued at
// initialize, bound to the token that opened them, ended by DELETE), the
// limits (request size, concurrent calls, per-call time, result size, query
// length), and the audit log of every call. The CLI and the GUI both drive it
// through Server and Tokens; the client configs that point at it are package
// clients', and the answers themselves (their types, text, marker and token
// budget) are package answer's.
//
// Scope: a token scoped to projects sees only conversations tagged with one
// of them, and of their tags only those in its scope. One side channel is
// left open, knowingly: BM25 statistics (how rare a word is, how long
// passages are on average) come from the whole memory, so the order of a
// scoped token's hits can shift when out-of-scope conversations mention its
// query words. Scores are not sent, so what leaks is at most ordering, and
// only to a client that can already read the person's in-scope memory;
// closing it would mean one index per scope.
package mcpserver
