package gui

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/plumbing"
)

// Passages and turn previews as Search shows them, in the transcript's
// words. Recall hands back a passage's text and its neighbours' previews
// without their blocks: a tool call's passage is its input as stored
// (JSON), and a preview joins a turn's blocks, cut at 320 characters. A
// list row makes of them the line the transcript would fold them into
// ("Write: deploy.sh", "Bash: go test ./..."); the detail pane, which has
// the turns, shows their blocks as the transcript does (search.go).

// toolShapes name a call by the arguments it was given, for a passage
// whose tool name recall does not say: Claude Code's and Codex's tools.
var toolShapes = []struct {
	name string
	keys []string // all present
}{
	{"Edit", []string{"file_path", "old_string"}},
	{"Write", []string{"file_path", "content"}},
	{"Read", []string{"file_path"}},
	{"NotebookEdit", []string{"notebook_path"}},
	{"Grep", []string{"pattern", "path"}},
	{"Glob", []string{"pattern"}},
	{"TodoWrite", []string{"todos"}},
	{"WebFetch", []string{"url"}},
	{"WebSearch", []string{"query"}},
	{"Task", []string{"prompt"}},
	{"Bash", []string{"command"}},
	{"shell", []string{"cmd"}},
}

// guessTool names a call from its arguments; "Tool call" when none fits.
func guessTool(has func(string) bool) string {
	for _, s := range toolShapes {
		all := true
		for _, k := range s.keys {
			all = all && has(k)
		}
		if all {
			return s.name
		}
	}
	return "Tool call"
}

// jsonStringArg finds "key": "value" in JSON that may be cut short.
var jsonStringArg = regexp.MustCompile(`"(command|cmd|file_path|notebook_path|path|pattern|query|url|description|prompt|content|old_string|todos)"\s*:\s*("(?:[^"\\]|\\.)*"?|\[)`)

// toolLine is a tool call's input (JSON, whole or cut short) as the
// transcript's folded line says it, or "" if text is not one.
func toolLine(text, workdir string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return ""
	}
	var args map[string]any
	if json.Unmarshal([]byte(t), &args) == nil {
		name := guessTool(func(k string) bool { _, ok := args[k]; return ok })
		if _, ok := args["command"].([]any); ok {
			name = "shell" // Codex runs ["bash", "-lc", "…"]
		}
		return toolTitle(name, t, workdir)
	}
	// Cut short: read the arguments that say what it did.
	found := map[string]string{}
	for _, m := range jsonStringArg.FindAllStringSubmatch(t, -1) {
		v := m[2]
		if v == "[" {
			found[m[1]] = ""
			continue
		}
		if !strings.HasSuffix(v, `"`) || len(v) == 1 {
			v += `"`
		}
		if s, err := strconv.Unquote(v); err == nil {
			found[m[1]] = s
		} else {
			found[m[1]] = strings.Trim(v, `"`)
		}
	}
	if len(found) == 0 {
		return ""
	}
	name := guessTool(func(k string) bool { _, ok := found[k]; return ok })
	for _, k := range summaryKeys {
		if v, ok := found[k]; ok && v != "" {
			if k == "file_path" || k == "notebook_path" || k == "path" {
				v = shortPath(v, workdir)
			}
			return name + ": " + preview(v, 100)
		}
	}
	return name
}

// passageLine is a passage or a turn's preview on one line: Ireneo's own
// traffic and harness notes as their label, a tool call as its folded
// line, text as its words without Markdown. Its secrets are masked.
func (u *ui) passageLine(role, text, workdir string) string {
	text = u.secrets.mask(text)
	if k := plumbingKind(role, text); k != plumbing.Said {
		return "(" + k.Label() + ")"
	}
	if l := toolLine(text, workdir); l != "" {
		return l
	}
	// A preview joins a turn's blocks: its text, then a call's input.
	if i := strings.Index(text, "\n\n{"); i >= 0 {
		if l := toolLine(text[i+2:], workdir); l != "" {
			return oneLine(markdownPlain(text[:i])) + " · " + l
		}
	}
	return oneLine(markdownPlain(plumbing.SaidText(role, funes.BlockText, "", text)))
}

// turnLine is a turn on one line from its blocks, as the transcript folds
// them: its words, then what each call did.
func (u *ui) turnLine(turn funes.Turn, workdir string) string {
	var parts []string
	for _, b := range turn.Blocks {
		shown := u.secrets.mask(b.Text)
		spans := blockSpans(turn.Role, b)
		if len(spans) == 1 && spans[0].Kind != plumbing.Said || len(spans) > 1 && wholeKind(spans, b.Text) != plumbing.Said {
			parts = append(parts, "("+wholeKind(spans, b.Text).Label()+")")
			continue
		}
		switch b.Type {
		case funes.BlockText, "":
			if w := oneLine(markdownPlain(plumbing.SaidText(turn.Role, b.Type, b.ToolName, shown))); w != "" {
				parts = append(parts, w)
			}
		case funes.BlockToolUse:
			parts = append(parts, toolTitle(b.ToolName, shown, workdir))
		case funes.BlockToolResult:
			r := "Result"
			if b.ToolName != "" {
				r += " of " + b.ToolName
			}
			if p := preview(shown, 80); p != "" {
				r += ": " + p
			}
			parts = append(parts, r)
		case funes.BlockThinking:
			parts = append(parts, "Thinking: "+preview(shown, 80))
		}
	}
	return strings.Join(parts, " · ")
}

// turnCache keeps the last few conversations read for Search's detail
// pane, so moving back and forth through the results reads each once.
// It is touched on the UI goroutine only and emptied when the memory
// changes.
type turnCache struct {
	order []string
	byID  map[string]*conversations.Transcript
}

const turnCacheSize = 8

func (c *turnCache) get(id string) *conversations.Transcript { return c.byID[id] }

func (c *turnCache) put(id string, tr *conversations.Transcript) {
	if c.byID == nil {
		c.byID = map[string]*conversations.Transcript{}
	}
	if _, ok := c.byID[id]; !ok {
		c.order = append(c.order, id)
	}
	c.byID[id] = tr
	for len(c.order) > turnCacheSize {
		delete(c.byID, c.order[0])
		c.order = c.order[1:]
	}
}

func (c *turnCache) clear() { c.order, c.byID = nil, nil }
