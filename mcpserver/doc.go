// Package mcpserver serves an Ireneo memory to local agents over the Model
// Context Protocol: four read-only tools (recall, get, sessions,
// list_projects) on a loopback Streamable HTTP endpoint guarded by per-client
// bearer tokens, and on stdio for clients that start a process.
//
// It owns the tokens (secrets in the OS keyring, metadata in the memory's
// catalog), the HTTP refusals (401 for a missing, unknown or revoked token;
// 403 for a foreign Host or Origin), the limits (request size, concurrent
// calls, per-call time, result size, query length), the audit log of every
// call, and the snippets that connect each supported client. The CLI and the
// GUI both drive it through Server, Tokens and the Connect functions.
package mcpserver
