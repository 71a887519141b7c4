// Package tokenstore keeps the secrets of Ireneo's MCP access tokens: in the
// OS keyring (the Secret Service on Linux, service "ireneo"), or, when the
// person chooses, in a plain 0600 file, or in process memory for tests. It
// tells a keyring that is missing, locked or silent apart (Probe, without
// raising an unlock prompt) with what to do about it. The catalog's side of
// a token (name, scope, hash) is memory's; making, revealing and checking
// tokens is mcpserver's Tokens.
package tokenstore
