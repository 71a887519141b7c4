// Package answer owns every answer Ireneo gives: to agents over MCP (recall,
// get, sessions, list_projects) and on the command line (recall, get,
// sessions, projects, audit, insights, forget), text and structured.
//
// For each answer it holds the structured types as given, the renderers
// (the MCP text content, the CLI's text and --json), the one budget fitter
// that keeps an answer within its token budget, and the readers that know
// each form again, current and historical (every shape an earlier build
// wrote sits in people's imported agent transcripts):
//
//   - plumbing asks the readers which parts of a tool's output are Ireneo's
//     answer (Is, Within), so the memory does not index its own answers;
//   - forget asks them where each quote of a forgotten conversation begins
//     and ends, and what stands in its place (Erase), so no file keeps it.
//
// A form is written and read in one place, from the same phrases, and each
// has a golden test that renders it, recognises it and erases from it.
//
// Every answer carries Marker (text: its first word or a line of its own;
// structured: the MarkerField field) and every text answer ends with a
// newline, so one printed after other shell output is still known.
//
// It is a leaf but for spans (the span replacer, itself a leaf): it
// imports no other Ireneo package. Token counts come from the caller (a
// Count), and memory's values are converted by the callers
// (memory/answers.go, app/cli).
package answer
