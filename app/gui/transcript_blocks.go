package gui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/plumbing"
)

// One turn's blocks on screen: text as Markdown; thinking, tool calls and
// their results folded behind a line that says what they did; Ireneo's
// own recall traffic and harness plumbing (plumbing.Classify) folded
// behind "recall call", "recall result" or "harness note".

// fold is a disclosure line: ▸ when closed, ▾ when open, and its body,
// built on first open so a long session lays out quickly.
type fold struct {
	widget.BaseWidget
	head  *widget.Button
	title *widget.Label
	box   *fyne.Container
	body  fyne.CanvasObject
	build func() fyne.CanvasObject
	open  bool
}

func newFold(title string, build func() fyne.CanvasObject) *fold {
	f := &fold{build: build}
	f.title = widget.NewLabel(title)
	f.title.Truncation = fyne.TextTruncateEllipsis
	// An empty low-importance button under the words takes the click and
	// the keyboard (Space); the label on it cuts long words with "…".
	f.head = widget.NewButtonWithIcon("", theme.MenuExpandIcon(), f.toggle)
	f.head.Importance = widget.LowImportance
	f.head.Alignment = widget.ButtonAlignLeading
	row := container.NewStack(f.head, container.NewBorder(nil, nil, widget.NewIcon(nil), nil, f.title))
	f.box = container.NewVBox(row)
	f.ExtendBaseWidget(f)
	return f
}

func (f *fold) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(f.box)
}

// toggle opens or closes the fold.
func (f *fold) toggle() { f.setOpen(!f.open) }

func (f *fold) setOpen(open bool) {
	if open == f.open {
		return
	}
	f.open = open
	if open {
		if f.body == nil {
			f.body = container.NewPadded(f.build())
		}
		f.head.SetIcon(theme.MenuDropDownIcon())
		f.box.Add(f.body)
	} else {
		f.head.SetIcon(theme.MenuExpandIcon())
		f.box.Remove(f.body)
	}
	f.Refresh()
}

// blockKinds are the spans of a block, by plumbing.Classify.
func blockSpans(role string, b funes.Block) []plumbing.Span {
	spans := plumbing.Classify(role, b.Type, b.ToolName, b.Text)
	if len(spans) == 0 {
		return []plumbing.Span{{Start: 0, End: len(b.Text), Kind: plumbing.Said}}
	}
	return spans
}

// blockView shows one block. mk marks words; open folds it open (the find
// occurrence is inside).
func blockView(role, workdir string, b funes.Block, mk *marker, open bool) fyne.CanvasObject {
	spans := blockSpans(role, b)
	if len(spans) == 1 && spans[0].Kind == plumbing.Said {
		return saidView(workdir, b, b.Text, mk, open)
	}
	box := container.NewVBox()
	for _, sp := range spans {
		part := b.Text[sp.Start:sp.End]
		if sp.Kind == plumbing.Said {
			if strings.TrimSpace(part) != "" {
				box.Add(saidView(workdir, b, part, mk, open))
			}
			continue
		}
		box.Add(plumbingFold(sp.Kind, workdir, b, part, mk, open))
	}
	return box
}

// plumbingFold is one collapsed line of plumbing, opened on demand.
func plumbingFold(k plumbing.Kind, workdir string, b funes.Block, part string, mk *marker, open bool) fyne.CanvasObject {
	title := capitalise(k.Label())
	shown := mk.masked(part)
	switch {
	case k == plumbing.RecallCall && b.Type == funes.BlockToolUse:
		if s := toolSummary(b.ToolName, shown, workdir); s != "" {
			title += ": " + s
		}
	default:
		if p := plumbingPreview(shown); p != "" {
			title += ": " + p
		}
	}
	f := newFold(title, func() fyne.CanvasObject { return codeView(prettyInput(part), mk) })
	f.setOpen(open)
	return f
}

// saidView shows a block's own words: text as Markdown, the rest folded.
func saidView(workdir string, b funes.Block, text string, mk *marker, open bool) fyne.CanvasObject {
	var title string
	var build func() fyne.CanvasObject
	// Titles are one line: their secrets stay masked.
	shown := mk.masked(text)
	switch b.Type {
	case funes.BlockText, "":
		return blockText(text, func(s string) fyne.CanvasObject { return markdownView(s, mk) })
	case funes.BlockThinking:
		title = "Thinking"
		if p := preview(shown, 80); p != "" {
			title += ": " + p
		}
		build = func() fyne.CanvasObject {
			return blockText(text, func(s string) fyne.CanvasObject { return markdownView(s, mk) })
		}
	case funes.BlockToolUse:
		title = toolTitle(b.ToolName, shown, workdir)
		build = func() fyne.CanvasObject {
			return blockText(prettyInput(text), func(s string) fyne.CanvasObject { return codeView(s, mk) })
		}
	case funes.BlockToolResult:
		title = "Result"
		if b.ToolName != "" {
			title += " of " + b.ToolName
		}
		if p := preview(shown, 80); p != "" {
			title += ": " + p
		}
		if n := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1; n > 1 {
			title += fmt.Sprintf(" (%d lines)", n)
		}
		build = func() fyne.CanvasObject {
			return blockText(text, func(s string) fyne.CanvasObject { return codeView(s, mk) })
		}
	default:
		title = b.Type
		build = func() fyne.CanvasObject {
			return blockText(text, func(s string) fyne.CanvasObject { return markdownView(s, mk) })
		}
	}
	f := newFold(title, build)
	f.setOpen(open)
	return f
}

// blockText shows text through view, shortened past maxBlockRunes with a
// button that shows the rest, so one pasted log does not stall the layout.
func blockText(text string, view func(string) fyne.CanvasObject) fyne.CanvasObject {
	r := []rune(text)
	if len(r) <= maxBlockRunes {
		return view(text)
	}
	box := container.NewVBox(view(string(r[:maxBlockRunes]) + "…"))
	more := widget.NewButton(fmt.Sprintf("Show all %s", plural(len(r), "character", "characters")), nil)
	more.OnTapped = func() {
		box.Objects = []fyne.CanvasObject{view(text)}
		box.Refresh()
	}
	box.Add(more)
	return box
}

// toolTitle is a tool call's folded line: the tool and what it did.
func toolTitle(name, input, workdir string) string {
	if name == "" {
		name = "Tool call"
	}
	if s := toolSummary(name, input, workdir); s != "" {
		return name + ": " + s
	}
	return name
}

// Argument names that say what a call did, most telling first: the
// command run, the file touched, the pattern or query looked for.
var summaryKeys = []string{"command", "cmd", "file_path", "notebook_path", "path", "pattern", "query", "url", "description", "prompt", "session_id"}

// toolSummary says in one line what a call did: "go test ./...",
// "memory/recall.go" (paths inside the session's workdir relative to it),
// a pattern, a query.
func toolSummary(name, input, workdir string) string {
	in := strings.TrimSpace(input)
	var args map[string]any
	if json.Unmarshal([]byte(in), &args) != nil {
		// Not JSON: a shell line, a patch, a query as typed.
		if f := patchFile(in, workdir); f != "" {
			return f
		}
		return preview(in, 100)
	}
	for _, k := range summaryKeys {
		v, ok := args[k]
		if !ok {
			continue
		}
		s := argText(v)
		if s == "" {
			continue
		}
		if k == "file_path" || k == "notebook_path" || k == "path" {
			s = shortPath(s, workdir)
			// A search names where it looked after what it looked for.
			if p := argText(args["pattern"]); p != "" && k == "path" {
				s = p + " in " + s
			}
		}
		return preview(s, 100)
	}
	if f := patchFile(argText(args["input"]), workdir); f != "" {
		return f
	}
	if todos, ok := args["todos"].([]any); ok {
		return plural(len(todos), "item", "items")
	}
	return ""
}

// argText is an argument as text: a string, or a command's words.
func argText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var words []string
		for _, w := range t {
			if s, ok := w.(string); ok {
				words = append(words, s)
			}
		}
		// Codex runs ["bash", "-lc", "go test ./..."]: the script is the command.
		if len(words) == 3 && (words[1] == "-lc" || words[1] == "-c") {
			return words[2]
		}
		return strings.Join(words, " ")
	}
	return ""
}

// patchFile is the first file an apply_patch body touches.
func patchFile(s, workdir string) string {
	for _, line := range strings.Split(s, "\n") {
		for _, p := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), p); ok {
				return shortPath(rest, workdir)
			}
		}
	}
	return ""
}

// shortPath is a path inside workdir relative to it; another long
// absolute path keeps its last three parts.
func shortPath(p, workdir string) string {
	if workdir != "" {
		if rel, ok := strings.CutPrefix(filepath.ToSlash(p), strings.TrimSuffix(filepath.ToSlash(workdir), "/")+"/"); ok && rel != "" {
			return rel
		}
	}
	parts := strings.Split(filepath.ToSlash(p), "/")
	if len(parts) > 4 && strings.HasPrefix(p, "/") {
		return "…/" + strings.Join(parts[len(parts)-3:], "/")
	}
	return p
}

// prettyInput indents JSON and turns its escaped strings back into lines:
// a command or a file's content reads as it was written. Anything else is
// shown as stored.
func prettyInput(s string) string {
	t := strings.TrimSpace(s)
	if !json.Valid([]byte(t)) || (t == "" || (t[0] != '{' && t[0] != '[')) {
		return s
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return s
	}
	var b strings.Builder
	writePretty(&b, v, "")
	return b.String()
}

// writePretty writes a JSON value indented, with multi-line strings as
// their lines under the key rather than one line of \n escapes.
func writePretty(b *strings.Builder, v any, indent string) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		keys := orderedKeys(t)
		for i, k := range keys {
			b.WriteString(indent + "  " + quote(k) + ": ")
			writePretty(b, t[k], indent+"  ")
			if i < len(keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range t {
			b.WriteString(indent + "  ")
			writePretty(b, e, indent+"  ")
			if i < len(t)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case string:
		if !strings.Contains(t, "\n") {
			b.WriteString(quote(t))
			return
		}
		// A text block: its own lines, indented under the key.
		b.WriteString("\"\"\"\n")
		for _, line := range strings.Split(strings.TrimRight(t, "\n"), "\n") {
			b.WriteString(indent + "  " + line + "\n")
		}
		b.WriteString(indent + "\"\"\"")
	default:
		out, _ := json.Marshal(t)
		b.Write(out)
	}
}

// orderedKeys lists an object's keys, the telling ones first.
func orderedKeys(m map[string]any) []string {
	var keys []string
	for _, k := range summaryKeys {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range m {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// preview is the first line of text with words in it, cut to n runes.
func preview(s string, n int) string {
	for _, line := range strings.Split(s, "\n") {
		if l := strings.TrimSpace(line); l != "" {
			return clip(oneLine(l), n)
		}
	}
	return ""
}

// plumbingPreview is the first line of plumbing that says something: not
// Ireneo's marker, not a wrapper's tag on its own line.
func plumbingPreview(s string) string {
	s = strings.ReplaceAll(s, plumbing.ResultMarker, "")
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || (strings.HasPrefix(l, "<") && strings.HasSuffix(l, ">") && !strings.ContainsAny(l[1:len(l)-1], "<> ")) {
			continue
		}
		return clip(oneLine(l), 80)
	}
	return ""
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// messageText is a turn as copied: its text blocks verbatim, and a line
// for each folded block saying what it was.
func messageText(turn funes.Turn) string {
	var parts []string
	for _, b := range turn.Blocks {
		switch b.Type {
		case funes.BlockText, "":
			parts = append(parts, b.Text)
		case funes.BlockToolUse:
			parts = append(parts, "["+toolTitle(b.ToolName, b.Text, "")+"]\n"+prettyInput(b.Text))
		case funes.BlockToolResult:
			parts = append(parts, "[Result]\n"+b.Text)
		case funes.BlockThinking:
			parts = append(parts, "[Thinking]\n"+b.Text)
		default:
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}
