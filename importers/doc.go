// Package importers turns the places a person's AI history lives — a ChatGPT
// or Claude.ai data export, Codex CLI rollouts, Claude Code transcripts and
// funes jsonl files — into verbatim funes.Session values, and imports them
// into a memory.
//
// It owns recognising an input by its content (Detect), reading archives
// safely, one streaming parser per source, the import orchestrator (Run) that
// commits each input all or nothing, and the folder watcher (Watch). Parsers
// never panic on input: a bad conversation is skipped and named, a bad file
// fails alone and leaves the memory unchanged.
//
// Facts about the real formats that the parsers rely on (kept in step with
// research/EXPORT-FORMATS.md; testdata/README.md says which fixture shows
// each):
//
//   - Claude Code 2.x writes one assistant response with N tool_use blocks
//     as N chained records sharing message.id; each tool_result record is a
//     child of its own tool_use record, and the conversation continues from
//     one result. Those siblings are all kept; only a branch that starts
//     with a person's message (a rewind, an edited prompt) or another
//     response is abandoned.
//   - Claude Code 1.0.x wrote sub-agent (Task) transcripts inline, as
//     isSidechain records without agentId, each rooted at its Task prompt;
//     2.x writes them to agent-<id>.jsonl files with agentId. Both become
//     sub-agent conversations <session>-agent-<id>. A compaction runs as an
//     agent too (agent-acompact-*, prompt "Your task is to create a detailed
//     summary…") and is titled "Compaction summary".
//   - Before 2.1 a compaction leaves no agent file: the session file gets a
//     compact_boundary system record (parentUuid null, logicalParentUuid
//     the last record before it; older 1.0.x wrote none, and the summary
//     is then a root with no link back), then a user record with
//     isCompactSummary whose text ("This session is being continued from
//     a previous conversation…") is the summary. It becomes a conversation
//     <session>-compact-<uuid>, titled "Compaction summary: …", the summary
//     an assistant turn; from 2.1 that record repeats the agent's summary
//     and is not kept again.
//   - A resumed Claude Code session copies earlier records, with their uuids
//     and old sessionId, into the new file (a resume of a resume copies
//     both). Each turn is kept once, where it first happened: in one run
//     originals are imported first, and an original imported after its
//     resume takes its turns out of the stored resume.
//   - A session started with a slash command opens with
//     <command-message>/<command-name>/<command-args> markup.
//   - Claude.ai flat exports (no parent_message_uuid) store chat_messages
//     out of time order, and a question and its answer may share created_at.
//   - ChatGPT text holds 【n†source】 and 【n†title†domain】 marks the person
//     saw (kept), and U+E200…U+E201 references into metadata (dropped);
//     canvas calls (canmore.*) carry their document as a JSON string.
//   - Codex shell outputs are JSON strings {"output", "metadata":
//     {"exit_code"}}; a failed call may have an empty output.
//   - Projects: Codex records the git remote (session_meta.git); Claude Code
//     only cwd and gitBranch, so worktrees (<repo>/.claude/worktrees/<n>,
//     <repo>-<branch>) are mapped to <repo>, and sub-agents take their
//     parent's project when the memory holds the parent.
package importers
