// Package plumbing decides, from a transcript block's content alone, which
// parts of it are not a person's or an assistant's own words: an agent's
// calls to Ireneo's own tools and what Ireneo answered them, and what a
// harness (Claude Code, Codex) writes into its own transcripts — reminders,
// caveats, command envelopes, preambles, hook output, interruptions.
//
// Those parts stay verbatim in src/ (the verbatim promise), but memory's
// index does not search them: a memory that indexed its own answers would
// feed on itself, each recall adding copies that outrank what was said. The
// GUI shows them as one collapsed line (Kind.Label) that opens on demand.
//
// Ireneo's answers are known by package answer's readers, the one place
// that writes and reads them; plumbing imports no other Ireneo package, so
// memory (the indexer), importers and app/gui can all use it.
package plumbing
