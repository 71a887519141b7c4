package plumbing

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/ireneo-app/ireneo/answer"
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
//     be missing, or be a shell that ran the CLI): package answer's
//     readers know every answer Ireneo gives, in every form any build
//     wrote (answer.Is), and one printed after other commands' output in
//     a shell's (answer.Within: from there to the output's end is Ireneo's,
//     what came before stays the shell's).
//   - A shell call that runs Ireneo's CLI to recall (`ireneo recall …`,
//     `ireneo get …`, `ireneo sessions …`, `ireneo projects`) at a
//     command's start, in a shell tool's input (Claude Code's Bash
//     {"command": …}, Codex's shell {"command": [...]} or its joined command
//     line). `ireneo audit`, `insights` and `forget` are calls too (their
//     command lines name queries and conversations).
//
// An agent's own answer after a recall is none of these, and stays
// searchable like any turn.

// ResultMarker is answer.Marker, which every answer of Ireneo's carries.
const ResultMarker = answer.Marker

// MarkerField is answer.MarkerField, the structured answers' marker field.
const MarkerField = answer.MarkerField

// toolArgs lists Ireneo's tools (mcpserver/tools.go) and their argument
// names; required ones come first, up to required[tool]. mcpserver's tests
// check this against the real argument types.
var toolArgs = map[string][]string{
	"recall":        {"query", "project", "top_k", "token_budget", "source", "since", "until"},
	"get":           {"session_id", "turn_uuid", "window", "token_budget"},
	"sessions":      {"query", "project", "source", "since", "until", "limit", "offset", "token_budget"},
	"list_projects": {},
	"scan":          {"pattern", "regexp", "ignore_case", "session_id", "project", "source", "since", "until", "limit", "cursor", "token_budget"},
	"insights":      {"period", "since", "until", "source", "project", "token_budget"},
}

var required = map[string]int{"recall": 1, "get": 1, "scan": 1}

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
