// Package tokenstore is the token store of Ireneo's MCP access tokens. It
// keeps their secrets in the OS keyring (the Secret Service on Linux,
// service "ireneo"), or, when the person chooses, in a plain 0600 file, or
// in process memory for tests, and tells a keyring that is missing, locked
// or silent apart (Probe, without raising an unlock prompt) with what to do
// about it. It keeps their records too (catalog.go: name, scope, hash,
// times), rows of the memory's tokens table, written through
// memory.WriteCatalog and read in a memory.ReadTx; the table's schema and
// migrations stay memory's (memory/schema.go). Making, revealing and
// checking tokens over both is mcpserver's Tokens.
package tokenstore
