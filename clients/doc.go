// Package clients connects the person's MCP clients (Claude Desktop, Claude
// Code, Codex, Cursor, VS Code, Gemini CLI, opencode, Copilot CLI) to
// Ireneo: the exact entry each reads from
// its own config file, merged into that file after a backup (JSON, JSON
// with comments, TOML; every other server and setting kept), the commands
// that add it instead, and the capture hooks that run `ireneo hook CLIENT`
// from a harness's own settings. The CLI's `connect` and the GUI's Connect
// screen both call it; it serves nothing (package mcpserver does).
package clients
