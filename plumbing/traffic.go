package plumbing

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Ireneo's own tool traffic, as it lands in an agent's transcript.
//
// Signals used, and why each:
//
//   - A call: the tool's name ends in one of Ireneo's tool names (recall,
//     get, sessions, list_projects) behind any server qualifier —
//     mcp__<server>__recall (Claude Code, Codex), <server>.recall (Codex
//     item_completed, ChatGPT), <server>__recall, or none (Claude.ai names
//     a connector's tool bare) — AND its arguments have the shape
//     of that tool's: a JSON object holding only Ireneo's argument names,
//     with the required ones present. The server name is whatever the person
//     registered ("ireneo", "memory", …), so it is never relied on; the
//     argument shape keeps another server's "get" or "sessions" searchable.
//   - A result, by its content alone (the tool name on a stored result may
//     be missing, or be a shell that ran the CLI):
//     the marker (ResultMarker) that begins every text answer and is the
//     "marker" field of every structured one since this build; and for
//     answers written before it, their shape: the "Past conversations
//     matching …" header with a "receipt: session_id=… turn_uuid=…" line,
//     the no-match and over-budget sentences, get's "Conversation …" header
//     with its session_id line and turn headers, sessions' and
//     list_projects' headers, and structured answers carrying Ireneo's own
//     fields (the records notice with hits or turns; total, offset,
//     sessions, token_budget; projects and untagged), also when wrapped in
//     an MCP content list or a structuredContent field.
//   - A shell call that runs Ireneo's CLI to recall (`ireneo recall …`,
//     `ireneo get …`, `ireneo sessions …`, `ireneo projects`) at a
//     command's start, in a shell tool's input (Claude Code's Bash
//     {"command": …}, Codex's shell {"command": [...]} or its joined command
//     line). Its output is known by the marker like any result: recall's
//     context block and get's header line begin with it, sessions' and
//     projects' tables have it on a line above, and each --json answer
//     carries it in its "marker" field (recall's in its context_block).
//     `ireneo audit`, `insights` and `forget` mark their output the same
//     way (each entry of audit's --json array carries the field), though
//     their command lines, quoting nothing, stay the shell's own.
//     Codex's exec puts an envelope before the output (ShellOutput): the
//     answer is looked for behind it. A text answer after other commands'
//     output (`git pull && ireneo get …`) is known by the marker beginning
//     a line: from there to the output's end is Ireneo's (markedLine), what
//     came before stays the shell's. Their output from builds before the
//     marker reads as the agent's own.
//
// An agent's own answer after a recall is none of these, and stays
// searchable like any turn.

// ResultMarker begins the text of every answer Ireneo's tools give (and of
// the CLI's recall context block), and is the "marker" field of every
// structured answer: it lets a later import know Ireneo's own output under
// any server name. An agent reads it as a plain label. Never change it:
// memories hold answers written with it.
const ResultMarker = "[ireneo-result]"

// MarkerField is the structured answers' field that holds ResultMarker.
const MarkerField = "marker"

// toolArgs lists Ireneo's tools (mcpserver/tools.go) and their argument
// names; required ones come first, up to required[tool]. mcpserver's tests
// check this against the real argument types.
var toolArgs = map[string][]string{
	"recall":        {"query", "project", "top_k", "token_budget", "source", "since", "until"},
	"get":           {"session_id", "turn_uuid", "window", "token_budget"},
	"sessions":      {"query", "project", "source", "since", "until", "limit", "offset", "token_budget"},
	"list_projects": {},
}

var required = map[string]int{"recall": 1, "get": 1}

// ToolArguments returns the argument names of Ireneo's tool, required ones
// first, and whether it is one of Ireneo's tools.
func ToolArguments(tool string) (args []string, requiredN int, ok bool) {
	a, ok := toolArgs[tool]
	return append([]string(nil), a...), required[tool], ok
}

// IreneoTool returns the Ireneo tool a tool name calls, under any server
// qualifier or none ("mcp__memory__recall", "memory.recall", "recall" →
// "recall"), or "" when it names none. The name alone proves nothing: a
// call is Ireneo's only when its arguments fit too (Classify).
func IreneoTool(name string) string {
	n := strings.TrimSpace(name)
	if _, ok := toolArgs[n]; ok {
		return n
	}
	// The qualifier ends in a separator: "__" (Claude Code, Codex), "."
	// (Codex item_completed), "_" (Gemini CLI's mcp_<server>_<tool>,
	// opencode's <server>_<tool>), "-" (Copilot CLI's <server>-<tool>). The
	// longest tool name that fits wins (list_projects, not projects).
	best := ""
	for tool := range toolArgs {
		if len(tool) <= len(best) || len(n) <= len(tool) || !strings.HasSuffix(n, tool) {
			continue
		}
		switch n[len(n)-len(tool)-1] {
		case '_', '.', '-':
			best = tool
		}
	}
	return best
}

// cliRecall finds Ireneo's CLI asked for what the memory holds at the start
// of a command: the line's start, after && || ; | $( or a shell's -c. Its
// answers are marked; `audit`, `insights` and `forget` are here too (index
// layout 5), since their command lines name queries and conversations.
var cliRecall = regexp.MustCompile(`(?:^|&&|\|\||[;|\n]|\$\(|\s-l?c\s+['"]?)\s*(?:\S*/)?ireneo\s+(?:recall|get|sessions|projects|audit|insights|forget)\b`)

// shellCommand is the command line of a shell tool's input, or "".
func shellCommand(input string) string {
	in := strings.TrimSpace(input)
	if !strings.HasPrefix(in, "{") {
		return in // a joined command line, as Codex's local shell stores it
	}
	var args struct {
		Command json.RawMessage `json:"command"`
		Cmd     json.RawMessage `json:"cmd"`
	}
	if json.Unmarshal([]byte(in), &args) != nil {
		return ""
	}
	for _, raw := range []json.RawMessage{args.Command, args.Cmd} {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			return one
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil {
			return strings.Join(argv, " ")
		}
	}
	return ""
}

// isCall reports whether a tool_use block is a call to one of Ireneo's
// tools (the name and the argument shape both fit), or a shell running
// Ireneo's CLI to recall.
func isCall(toolName, input string) bool {
	tool := IreneoTool(toolName)
	if tool == "" {
		return strings.Contains(input, "ireneo") && cliRecall.MatchString(shellCommand(input))
	}
	in := strings.TrimSpace(input)
	if in == "" {
		in = "{}"
	}
	var args map[string]json.RawMessage
	if json.Unmarshal([]byte(in), &args) != nil || args == nil {
		return false
	}
	names := toolArgs[tool]
	for k := range args {
		found := false
		for _, n := range names {
			if k == n {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	for _, n := range names[:required[tool]] {
		var s string
		if json.Unmarshal(args[n], &s) != nil || strings.TrimSpace(s) == "" {
			return false
		}
	}
	return true
}

// recordsNotice begins the notice of recall's and get's structured answers
// since the first release.
const recordsNotice = "Verbatim records of the person's past conversations"

var (
	sessionsHeader = regexp.MustCompile(`^\d+ conversation\(s\) match; showing \d+ to \d+, newest first\.`)
	getTurnHeader  = regexp.MustCompile(`(?m)^\[turn \d+ · [^\n]* · turn_uuid [^\n]*\]`)
)

// execEnvelope is the header Codex writes before a command's output in the
// result of its exec_command (codex-rs unified exec: "Chunk ID: …", "Wall
// time: … seconds", "Process exited with code N" or "Process running with
// session ID N", "Original token count: N", "Output:") and shell_command
// ("Exit code: N", "Wall time: … seconds", "Output:"), with the notice it
// puts first in an output it cut in the middle.
var execEnvelope = regexp.MustCompile(`^(?:(?:Chunk ID: \S+|Wall time: [0-9.]+ seconds|Process exited with code -?\d+|Process running with session ID \d+|Original token count: \d+|Exit code: -?\d+)\n)+Output:\n(?:Warning: truncated output \(original token count: \d+\)\n(?:Total output lines: \d+\n)?\n?)?`)

// ShellOutput cuts a shell tool's result into the harness's envelope and
// the command's own output, so the CLI's answer is known, and erased from,
// behind it. Without an envelope, head is "" and out is text.
func ShellOutput(text string) (head, out string) {
	if text == "" || strings.IndexByte("CWPOE<", text[0]) < 0 {
		return "", text
	}
	n := len(execEnvelope.FindString(text))
	if n == 0 {
		n = len(geminiShellEnvelope.FindString(text))
	}
	return text[:n], text[n:]
}

// geminiShellEnvelope is what Gemini CLI's run_shell_command puts before a
// command's output: "<untrusted_context>\nOutput: " (0.4x on), or
// "Command: …\nDirectory: …\nStdout: " (before). The output runs from
// there on the same line.
var geminiShellEnvelope = regexp.MustCompile(`^(?:<untrusted_context>\n)?Output: |^Command: [^\n]*\nDirectory: [^\n]*\nStdout: `)

// markedLine is where the first line of text that begins with ResultMarker
// (followed by a space or the line's end) begins, past its first byte; 0
// when there is none. The CLI's text answers begin with it, so a shell's
// output holding one after other output is known by it.
func markedLine(text string) int {
	// One more pass over a tool's output: BenchmarkClassify's CPU 0.84-0.86
	// s -> 0.88-0.90 s (3000 runs, user time, 4 rounds interleaved, load
	// 2.4-2.7). The marker leads the search, not "\n" and the marker: '\n',
	// common in any output, made it 0.92-0.93 s.
	for at := 1; at < len(text); {
		i := strings.Index(text[at:], ResultMarker)
		if i < 0 {
			return 0
		}
		start := at + i
		end := start + len(ResultMarker)
		if text[start-1] == '\n' && (end == len(text) || strings.IndexByte(" \r\n", text[end]) >= 0) {
			return start
		}
		at = end
	}
	return 0
}

// isResult reports whether a tool result's text is an answer of Ireneo's.
func isResult(text string) bool { return resultAt(text, 0) }

func resultAt(text string, depth int) bool {
	t := strings.TrimSpace(text)
	if head, out := ShellOutput(t); head != "" {
		return resultAt(out, depth+1) // the CLI run through Codex's exec
	}
	switch {
	case t == "":
		return false
	case strings.HasPrefix(t, ResultMarker):
		return true
	case t[0] == '{' || t[0] == '[':
		if !mentionsIreneo(t) {
			return false // most tool output is JSON: decode only what may be an answer
		}
		var v any
		if json.Unmarshal([]byte(t), &v) != nil {
			return false
		}
		return jsonResult(v, depth)
	}
	return oldTextResult(t)
}

// jsonHints are words every structured answer of Ireneo's holds, or the
// text one wrapped in it.
var jsonHints = []string{
	ResultMarker, `"token_budget"`, `"untagged"`, "receipt: session_id=", "Nothing was found in memory",
	"exist but none fits in a budget", "session_id: ", "conversation(s) match; showing", "No conversations", "Projects (conversations)",
}

func mentionsIreneo(t string) bool {
	for _, h := range jsonHints {
		if strings.Contains(t, h) {
			return true
		}
	}
	return false
}

// oldTextResult recognises the text answers written before ResultMarker.
func oldTextResult(t string) bool {
	switch {
	case strings.HasPrefix(t, `Past conversations matching "`):
		return strings.Contains(t, "\nreceipt: session_id=")
	case strings.HasPrefix(t, `No past conversation matches "`):
		return strings.Contains(t, "Nothing was found in memory")
	case strings.HasPrefix(t, `Matches for "`):
		return strings.Contains(t, "exist but none fits in a budget of")
	case strings.HasPrefix(t, `Conversation "`):
		return strings.Contains(t, "\nsession_id: ") && (getTurnHeader.MatchString(t) || strings.Contains(t, "\n(no turns)"))
	case strings.HasPrefix(t, "No conversations in memory match. Try fewer filters or other words."),
		strings.HasPrefix(t, "No conversations at offset "):
		return true
	case strings.HasPrefix(t, "Projects (conversations):\n- "):
		return true
	}
	return sessionsHeader.MatchString(t)
}

// jsonResult recognises a structured answer, bare or wrapped as MCP sends
// it (a content list, a structuredContent field).
func jsonResult(v any, depth int) bool {
	if depth > 4 {
		return false
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if jsonResult(e, depth+1) {
				return true
			}
		}
	case map[string]any:
		if s, _ := x[MarkerField].(string); s == ResultMarker {
			return true
		}
		if n, _ := x["notice"].(string); strings.HasPrefix(n, recordsNotice) {
			if _, hits := x["hits"]; hits {
				return true
			}
			if _, turns := x["turns"]; turns {
				return true
			}
		}
		if has(x, "total", "offset", "sessions", "token_budget") {
			return true
		}
		if len(x) == 2 && has(x, "projects", "untagged") {
			return true
		}
		for _, k := range []string{"structuredContent", "structured_content", "content", "result", "output"} {
			if e, ok := x[k]; ok && jsonResult(e, depth+1) {
				return true
			}
		}
		if s, ok := x["text"].(string); ok && resultAt(s, depth+1) {
			return true
		}
		// The CLI's `recall --json`: the context block beside its hits.
		if s, ok := x["context_block"].(string); ok && has(x, "hits") && resultAt(s, depth+1) {
			return true
		}
	case string:
		return resultAt(x, depth+1)
	}
	return false
}

func has(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}
