package answer

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// Reading an answer back: a tool result (or a shell's output) in an agent's
// transcript is one of Ireneo's answers when its content says so, whatever
// the tool was called (the server's name is the person's choice, and a
// shell runs the CLI):
//
//   - the marker, which begins every text answer and is the MarkerField of
//     every structured one since it was introduced;
//   - for answers written before it, their shape: recall's header with a
//     receipt line, the no-match and over-budget sentences, get's
//     "Conversation …" header with its session_id line and turn headers,
//     sessions' and list_projects' headers, and structured answers carrying
//     Ireneo's own fields (the records notice with hits or turns; total,
//     offset, sessions, token_budget; projects and untagged; the
//     CLI's context_block beside hits), also when wrapped in an MCP content
//     list or a structuredContent field;
//   - behind a shell's envelope (Codex's exec: ShellOutput).
//
// The CLI's get, sessions and --json answers from builds before the marker
// are read as a shell's own output: their shape is too plain to tell.

// readDepth bounds how deep answers wrapped in answers are followed.
const readDepth = 4

// Is reports whether text, a tool's result, is one of Ireneo's answers as
// a whole (any form, any build).
func Is(text string) bool { return isAt(text, 0) }

func isAt(text string, depth int) bool {
	t := strings.TrimSpace(text)
	if head, out := ShellOutput(t); head != "" {
		return isAt(out, depth+1) // the CLI run through Codex's exec
	}
	switch {
	case t == "":
		return false
	case strings.HasPrefix(t, Marker):
		return true
	case t[0] == '{' || t[0] == '[':
		if !mentionsIreneo(t) {
			return false // most tool output is JSON: decode only what may be an answer
		}
		var v any
		if json.Unmarshal([]byte(t), &v) != nil {
			return false
		}
		return jsonAnswer(v, depth)
	}
	return unmarkedText(t)
}

// jsonHints are words every structured answer holds, or the text one
// wrapped in it (TestJSONHintsAreWritten holds them to the renderers).
var jsonHints = []string{
	Marker, `"token_budget"`, `"untagged"`, receiptHead, nothingFound,
	"exist but none fits in a budget", getSessionID, "conversation(s) match; showing", "No conversations", "Projects (conversations)",
}

func mentionsIreneo(t string) bool {
	for _, h := range jsonHints {
		if strings.Contains(t, h) {
			return true
		}
	}
	return false
}

// recordsNoticeStart begins the notice of recall's and get's structured
// answers since the first release.
const recordsNoticeStart = "Verbatim records of the person's past conversations"

var (
	sessionsHeader = regexp.MustCompile(`^\d+` + regexp.QuoteMeta(sessionsHeadMid) + `\d+ to \d+` + regexp.QuoteMeta(sessionsHeadTail))
	getTurnHeader  = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(getTurnHead) + `\d+` + sep + `[^\n]*` + regexp.QuoteMeta(getTurnUUID) + `[^\n]*\]`)
)

// unmarkedText recognises the text answers written before the marker, and
// the CLI's no-match and over-budget sentences, which carried none.
func unmarkedText(t string) bool {
	switch {
	case strings.HasPrefix(t, recallHead):
		return strings.Contains(t, "\n"+receiptHead)
	case strings.HasPrefix(t, noMatchHead):
		return strings.Contains(t, nothingFound)
	case strings.HasPrefix(t, overBudgetHead):
		return strings.Contains(t, overBudgetMid)
	case strings.HasPrefix(t, getHead+`"`):
		return strings.Contains(t, "\n"+getSessionID) && (getTurnHeader.MatchString(t) || strings.Contains(t, "\n"+getNoTurns))
	case strings.HasPrefix(t, sessionsNone), strings.HasPrefix(t, sessionsNoneAt):
		return true
	case strings.HasPrefix(t, projectsHead+"\n- "):
		return true
	}
	return sessionsHeader.MatchString(t)
}

// jsonAnswer recognises a structured answer, bare or wrapped as MCP sends
// it (a content list, a structuredContent field).
func jsonAnswer(v any, depth int) bool {
	if depth > readDepth {
		return false
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if jsonAnswer(e, depth+1) {
				return true
			}
		}
	case map[string]any:
		if s, _ := x[MarkerField].(string); s == Marker {
			return true
		}
		if n, _ := x["notice"].(string); strings.HasPrefix(n, recordsNoticeStart) {
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
			if e, ok := x[k]; ok && jsonAnswer(e, depth+1) {
				return true
			}
		}
		if s, ok := x["text"].(string); ok && isAt(s, depth+1) {
			return true
		}
		// The CLI's `recall --json` (and the first MCP server's recall):
		// the context block beside its hits.
		if s, ok := x["context_block"].(string); ok && has(x, "hits") && isAt(s, depth+1) {
			return true
		}
	case string:
		return isAt(x, depth+1)
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

// Within is where an answer of Ireneo's begins in a shell's output after
// the output of commands before it (`git pull && ireneo get …`), past its
// first byte; 0 when none does. From there to the output's end is Ireneo's:
// no line says where the shell's next command began. An answer begins at
// a line that begins with the marker (followed by a space or the line's
// end: every CLI text answer begins so), at the line that opens a CLI
// --json answer holding the marker where CLIJSON puts it, at the CLI's
// no-match or over-budget sentence (the CLI printed them unmarked, without
// a newline, before this build: anywhere, as the next command's output may
// follow on its line), or at the header of the CLI's context block from
// before the marker, at a line's start.
func Within(text string) int {
	at := markedLine(text)
	limit := len(text)
	if at > 0 {
		limit = at
	}
	if i := unmarkedAnswer(text[:limit]); i > 0 {
		return i
	}
	return at
}

// markedLine is where the first line that begins with the marker
// (followed by a space or the line's end) begins, past its first byte; 0
// when there is none.
func markedLine(text string) int {
	// One more pass over a tool's output: BenchmarkClassify's CPU 0.84-0.86
	// s -> 0.88-0.90 s (3000 runs, user time, 4 rounds interleaved, load
	// 2.4-2.7). The marker leads the search, not "\n" and the marker: '\n',
	// common in any output, made it 0.92-0.93 s.
	for at := 1; at < len(text); {
		i := strings.Index(text[at:], Marker)
		if i < 0 {
			return 0
		}
		start := at + i
		end := start + len(Marker)
		if text[start-1] == '\n' && (end == len(text) || strings.IndexByte(" \r\n", text[end]) >= 0) {
			return start
		}
		if s := markedJSON(text, start); s > 0 {
			return s
		}
		at = end
	}
	return 0
}

// The CLI's --json answers, as CLIJSON indents them, hold the marker on
// their second line (audit's array on its third, the first entry's), or,
// recall's, in its context_block on its third.
const (
	markerJSONLine = "{\n  \"" + MarkerField + "\": \""
	markerJSONItem = "[\n  {\n    \"" + MarkerField + "\": \""
	recallJSONHead = "{\n  \"query\": "
	recallJSONMark = ",\n  \"context_block\": \""
)

// markedJSON is where a --json answer of the CLI's begins at a line's
// start, past its first byte, when the marker at m is its marker (or its
// context block's); 0 otherwise.
func markedJSON(text string, m int) int {
	before := text[:m]
	for _, head := range []string{markerJSONLine, markerJSONItem} {
		if s := len(before) - len(head); s >= 1 && text[s-1] == '\n' && strings.HasSuffix(before, head) {
			return s
		}
	}
	// recall's: {, its query on the next line, then the context block.
	if !strings.HasSuffix(before, recallJSONMark) {
		return 0
	}
	line := strings.LastIndexByte(before[:len(before)-len(recallJSONMark)], '\n')
	if s := line - 1; line >= 2 && text[s] == '{' && text[s-1] == '\n' && strings.HasPrefix(text[s:], recallJSONHead) {
		if _, err := strconv.QuotedPrefix(text[s+len(recallJSONHead):]); err == nil {
			return s
		}
	}
	return 0
}

// unmarkedAnswer is where the first of the CLI's unmarked answers begins
// in text, past its first byte: its no-match or over-budget sentence
// anywhere, or its context block's header from before the marker at a
// line's start; 0 for none. Each is looked for by words that begin with a
// capital, rare in output (strings.Index skips to their first byte):
// BenchmarkClassify's instructions per run, counted by callgrind, 3.11 M
// before, 3.25 M with the three (+4.4%); one pass for "atch", in all
// three heads, made it 3.85 M (a small letter stops the skip too often).
func unmarkedAnswer(text string) int {
	best := 0
	find := func(needle string, at func(i int) int) {
		for from := 1; from < len(text); {
			i := strings.Index(text[from:], needle)
			if i < 0 {
				return
			}
			i += from
			from = i + len(needle)
			if s := at(i); s >= 1 && (best == 0 || s < best) {
				best = s
				return
			}
		}
	}
	sentence := func(i int) int {
		if _, ok := sentenceEnd(text[i:]); ok {
			return i
		}
		return 0
	}
	find(noMatchHead+`"`, sentence)
	find(overBudgetHead+`"`, sentence)
	// The block's advice ends its header line, which begins a line.
	find(adviceCLI[1:], func(i int) int {
		s := strings.LastIndexByte(text[:i], '\n') + 1
		line, rest, _ := strings.Cut(text[s:], "\n")
		if _, cli, ok := readRecallHeader(line); ok && cli && strings.HasPrefix(rest, "\n[1] ") && strings.Contains(rest, "\n"+receiptHead) {
			return s
		}
		return 0
	})
	return best
}

// sentenceEnd reads the no-match or over-budget sentence at the start of s
// and says where it ends.
func sentenceEnd(s string) (int, bool) {
	for _, head := range []string{noMatchHead, overBudgetHead} {
		rest, ok := strings.CutPrefix(s, head)
		if !ok {
			continue
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return 0, false
		}
		rest = rest[len(q):]
		if head == noMatchHead {
			if strings.HasPrefix(rest, noMatchTail) {
				return len(s) - len(rest) + len(noMatchTail), true
			}
			return 0, false
		}
		rest, ok = strings.CutPrefix(rest, overBudgetMid)
		n := digits(rest)
		if !ok || n == 0 || !strings.HasPrefix(rest[n:], overBudgetTail) {
			return 0, false
		}
		return len(s) - len(rest) + n + len(overBudgetTail), true
	}
	return 0, false
}

// digits is how many ASCII digits s begins with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// readRecallHeader reads recall's header line, either form, marked or not:
// the number of hits it announces, and whether it is the CLI's.
func readRecallHeader(line string) (hits int, cli, ok bool) {
	rest := strings.TrimLeft(strings.TrimPrefix(line, Marker), " ")
	rest, ok = strings.CutPrefix(rest, recallHead)
	if !ok {
		return 0, false, false
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return 0, false, false
	}
	rest, ok = strings.CutPrefix(rest[len(q):], ": ")
	n := digits(rest)
	if !ok || n == 0 || n > 6 {
		return 0, false, false
	}
	hits, _ = strconv.Atoi(rest[:n])
	switch {
	case strings.HasPrefix(rest[n:], passagesCLI):
		return hits, true, true
	case strings.HasPrefix(rest[n:], passagesMCP):
		return hits, false, true
	}
	return 0, false, false
}
