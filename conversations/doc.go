// Package conversations reads the stored conversations as a person and an
// agent browse them: the list (filtered by source, dates, star, projects
// and words, sorted, paged), one conversation whole or around one of its
// turns, and the projects with their counts. The GUI's Conversations
// screen, the CLI's sessions, get and projects, and the MCP tools of those
// names read through it.
//
// It only reads, through memory's read transaction (one snapshot for a
// list's count, page and projects; for get, the conversation's lookup and
// its file, ReadTx.LoadSession). Tags and stars are choices, which memory
// writes; the answers' types and texts are package answer's.
package conversations
