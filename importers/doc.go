// Package importers turns the places a person's AI history lives — a ChatGPT
// or Claude.ai data export, Codex CLI rollouts, Claude Code transcripts and
// funes jsonl files — into verbatim memory.Session values, and imports them
// into a memory.
//
// It owns recognising an input by its content (Detect), reading archives
// safely, one streaming parser per source, the import orchestrator (Run) that
// commits each input all or nothing, and the folder watcher (Watch). Parsers
// never panic on input: a bad conversation is skipped and named, a bad file
// fails alone and leaves the memory unchanged.
package importers
