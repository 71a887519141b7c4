package gui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/plumbing"
)

// toolSession is a Claude Code session as its importer stores one: Markdown
// answers, tool calls with JSON input, their results, a recall call to
// Ireneo and its answer, and a harness reminder.
func toolSession() *funes.Session {
	t0 := time.Date(2026, 4, 2, 10, 0, 0, 0, time.UTC)
	s := &funes.Session{ID: "sess-tools", Harness: funes.HarnessClaudeCode, Title: "Make the recall tests pass", Workdir: "/home/ana/src/ireneo", Project: "ireneo"}
	add := func(role string, blocks ...funes.Block) {
		seq := len(s.Turns)
		s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("tools-%d", seq), Seq: seq, TS: t0.Add(time.Duration(seq) * time.Minute), Role: role, Blocks: blocks})
	}
	text := func(s string) funes.Block { return funes.Block{Type: funes.BlockText, Text: s} }
	use := func(name, input string) funes.Block {
		return funes.Block{Type: funes.BlockToolUse, ToolName: name, Text: input}
	}
	result := func(name, out string) funes.Block {
		return funes.Block{Type: funes.BlockToolResult, ToolName: name, Text: out}
	}
	add(funes.RoleUser, text("The recall tests fail after the heron refactor.\nCan you look?\n\n<system-reminder>\nThe TodoWrite tool hasn't been used recently.\n</system-reminder>"))
	add(funes.RoleAssistant,
		text("Let me check what the last session found about the heron refactor."),
		use("mcp__ireneo__recall", `{"query":"heron refactor recall tests"}`),
	)
	add(funes.RoleUser, result("mcp__ireneo__recall", plumbing.ResultMarker+" Past conversations matching \"heron refactor recall tests\":\n[1] 2026-03-30 · Claude Code · ireneo\nreceipt: session_id=old turn_uuid=old-3\nThe heron refactor moved ranking."))
	add(funes.RoleAssistant,
		text("## Plan\n\nFirst I run the tests:\n\n1. `go test ./...` for the whole module\n2. then read **memory/recall.go**\n\n```go\nfunc rank(c []candidate) []candidate {\n\treturn c\n}\n```\nDone when the *heron* suite is green."),
		use("Bash", `{"command":"go test ./...","description":"Run all tests"}`),
	)
	add(funes.RoleUser, result("Bash", "--- FAIL: TestRecall (0.01s)\n    recall_test.go:40: heron not found\nFAIL\nFAIL\tgithub.com/ireneo-app/ireneo/memory\t0.4s"))
	add(funes.RoleAssistant,
		use("Read", `{"file_path":"/home/ana/src/ireneo/memory/recall.go"}`),
		use("Glob", `{"pattern":"**/*_test.go"}`),
		use("Grep", `{"pattern":"heron","path":"/home/ana/src/ireneo/memory"}`),
		use("Write", `{"file_path":"/home/ana/src/ireneo/NOTES.md","content":"line one\nline two\n\ttabbed line three"}`),
	)
	add(funes.RoleUser, result("Write", "File written"))
	add(funes.RoleAssistant, text("The heron suite passes now."))
	return s
}

// newToolMemory is the fixture memory plus the tool session.
func newToolMemory(t *testing.T) *memory.Memory {
	t.Helper()
	m := newTestMemory(t)
	if _, err := m.Ingest(context.Background(), []*funes.Session{toolSession()}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return m
}

// openTranscript opens a conversation on the Conversations screen.
func openTranscript(t *testing.T, u *ui, id string) *transcriptView {
	t.Helper()
	u.showScreen(screenConversations)
	waitIdle(t, u)
	u.convs.open(id, "")
	waitIdle(t, u)
	if u.convs.tv.tr == nil {
		t.Fatalf("%s did not open", id)
	}
	return u.convs.tv
}

// folds lists the transcript's fold lines by title.
func folds(o fyne.CanvasObject) map[string]*fold {
	out := map[string]*fold{}
	walk(o, func(c fyne.CanvasObject) {
		if f, ok := c.(*fold); ok {
			out[f.title.Text] = f
		}
	})
	return out
}

// texts collects the text segments under o with their styles.
func texts(o fyne.CanvasObject) []*widget.TextSegment {
	var out []*widget.TextSegment
	var add func(segs []widget.RichTextSegment)
	add = func(segs []widget.RichTextSegment) {
		for _, s := range segs {
			switch v := s.(type) {
			case *widget.TextSegment:
				// A copy without the wrap guard, to compare words.
				c := *v
				c.Text = strings.TrimPrefix(c.Text, wrapGuard)
				out = append(out, &c)
			case *widget.ParagraphSegment:
				add(v.Texts)
			case *widget.ListSegment:
				add(v.Items)
			}
		}
	}
	walk(o, func(c fyne.CanvasObject) {
		if rt, ok := c.(*widget.RichText); ok {
			add(rt.Segments)
		}
	})
	return out
}

func TestTranscriptRendersMarkdownCodeAndToolCalls(t *testing.T) {
	u := newTestUI(t, newToolMemory(t))
	tv := openTranscript(t, u, "claude_code:sess-tools")
	u.win.Resize(fyne.NewSize(1280, 800))
	capture(t, u, "transcript-tools-1280x800")

	// Markdown: the heading bold, inline code and the fenced block
	// monospaced, the list a list, single line breaks kept.
	var heading, inlineCode, fenced, list, bold, softBreak bool
	for _, s := range texts(tv.turns) {
		switch {
		case s.Text == "Plan" && s.Style.TextStyle.Bold:
			heading = true
		case s.Text == "go test ./..." && s.Style.TextStyle.Monospace:
			inlineCode = true
		case strings.Contains(s.Text, "func rank(c []candidate)") && s.Style.TextStyle.Monospace && strings.Contains(s.Text, "\n\treturn c\n"):
			fenced = true
		case s.Text == "memory/recall.go" && s.Style.TextStyle.Bold:
			bold = true
		case strings.Contains(s.Text, "heron refactor.\nCan you look?"):
			softBreak = true
		}
	}
	walk(tv.turns, func(o fyne.CanvasObject) {
		if rt, ok := o.(*widget.RichText); ok {
			for _, s := range rt.Segments {
				if l, ok := s.(*widget.ListSegment); ok && l.Ordered && len(l.Items) == 2 {
					list = true
				}
			}
		}
	})
	if !heading || !inlineCode || !fenced || !list || !bold || !softBreak {
		t.Errorf("markdown: heading %v, inline code %v, fenced code %v, list %v, bold %v, line break kept %v",
			heading, inlineCode, fenced, list, bold, softBreak)
	}
	for _, s := range texts(tv.turns) {
		if strings.Contains(s.Text, "```") || strings.Contains(s.Text, "**memory") || strings.HasPrefix(s.Text, "## ") {
			t.Errorf("markdown syntax shown as text: %q", s.Text)
		}
	}

	// A run of turns that only call tools folds as one line saying what
	// they did; open, its calls fold each behind its own line.
	fs := folds(tv.turns)
	var run *fold
	for title, f := range fs {
		if strings.HasPrefix(title, "4 tool calls, turns 5–7: Read: memory/recall.go · Glob: **/*_test.go") {
			run = f
		}
	}
	if run == nil || run.open {
		t.Fatalf("no closed run of tool calls for turns 5–7; folds: %q", keysOf(fs))
	}
	test.Tap(run.head)
	fs = folds(tv.turns)
	for _, want := range []string{
		"Bash: go test ./...",
		"Read: memory/recall.go",
		"Glob: **/*_test.go",
		"Grep: heron in memory",
		"Write: NOTES.md",
		"Recall call: heron refactor recall tests",
		"Harness note: The TodoWrite tool hasn't been used recently.",
	} {
		if _, ok := fs[want]; !ok {
			t.Errorf("no fold %q; folds: %q", want, keysOf(fs))
		}
	}
	var result *fold
	for title, f := range fs {
		if strings.HasPrefix(title, "Recall result: Past conversations matching") {
			result = f
		}
		if strings.HasPrefix(title, "Result of Bash: --- FAIL: TestRecall") && !strings.HasSuffix(title, "(4 lines)") {
			t.Errorf("the Bash result's line should count its lines: %q", title)
		}
	}
	if result == nil {
		t.Fatalf("Ireneo's answer should fold as a recall result; folds: %q", keysOf(fs))
	}

	// Closed folds point right, open ones down; the body is built on open.
	w := fs["Write: NOTES.md"]
	if w.open || w.head.Icon.Name() != theme.MenuExpandIcon().Name() || w.body != nil {
		t.Fatalf("a tool call should start closed with a right arrow (icon %s)", w.head.Icon.Name())
	}
	test.Tap(w.head)
	if !w.open || w.head.Icon.Name() != theme.MenuDropDownIcon().Name() {
		t.Fatalf("an open fold should point down (icon %s)", w.head.Icon.Name())
	}
	// Its input reads as written: indented JSON, the file's lines as lines.
	var input string
	for _, s := range texts(w.body) {
		input += s.Text
		if !s.Style.TextStyle.Monospace {
			t.Errorf("tool input should be monospaced: %q", s.Text)
		}
	}
	if strings.Contains(input, `\n`) || !strings.Contains(input, "\n    line two\n") || !strings.Contains(input, "  \"file_path\": ") {
		t.Fatalf("tool input not pretty:\n%s", input)
	}
	test.Tap(w.head)
	if w.open || w.head.Icon.Name() != theme.MenuExpandIcon().Name() {
		t.Fatal("tapping again should close the fold")
	}

	// Plumbing opens on demand and shows what was stored, verbatim.
	test.Tap(result.head)
	var body string
	for _, s := range texts(result.body) {
		body += s.Text
	}
	if !strings.Contains(body, "receipt: session_id=old turn_uuid=old-3") {
		t.Fatalf("the recall result should open to its text, got %q", body)
	}
	test.Tap(result.head)

	// Copy a message: the clipboard gets the turn, the feedback says so.
	var copyBtn *widget.Button
	walk(tv.items[len(tv.items)-1].obj, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Icon != nil && b.Icon.Name() == theme.ContentCopyIcon().Name() {
			copyBtn = b
		}
	})
	if copyBtn == nil {
		t.Fatal("a turn has no Copy button")
	}
	test.Tap(copyBtn)
	if got := u.app.Clipboard().Content(); got != "The heron suite passes now." || u.lastInfo != "Copied turn 8 to the clipboard" {
		t.Fatalf("copy put %q on the clipboard and said %q", got, u.lastInfo)
	}

	u.win.Resize(fyne.NewSize(900, 600))
	capture(t, u, "transcript-tools-900x600")
}

func keysOf(m map[string]*fold) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestToolSummaryAndPrettyInput(t *testing.T) {
	for _, c := range []struct{ name, input, want string }{
		{"Bash", `{"command":"go test ./...","description":"Run all tests"}`, "go test ./..."},
		{"shell", `{"command":["bash","-lc","go vet ./memory"],"workdir":"/src"}`, "go vet ./memory"},
		{"exec_command", `{"cmd":"rg heron"}`, "rg heron"},
		{"Read", `{"file_path":"/src/memory/recall.go"}`, "memory/recall.go"},
		{"Read", `{"file_path":"/home/ana/other/deep/tree/x.go"}`, "…/deep/tree/x.go"},
		{"WebSearch", `{"query":"fyne richtext"}`, "fyne richtext"},
		{"apply_patch", "*** Begin Patch\n*** Update File: app/gui/search.go\n@@\n-a\n+b\n*** End Patch", "app/gui/search.go"},
		{"shell", "go test ./memory -run TestStore -count 20", "go test ./memory -run TestStore -count 20"},
		{"TodoWrite", `{"todos":[{"content":"a"},{"content":"b"}]}`, "2 items"},
	} {
		if got := toolSummary(c.name, c.input, "/src"); got != c.want {
			t.Errorf("toolSummary(%s, %s) = %q, want %q", c.name, c.input, got, c.want)
		}
	}
	got := prettyInput(`{"b":[1,2],"command":"echo \"hi\"\necho bye","a":{}}`)
	want := "{\n  \"command\": \"\"\"\n    echo \"hi\"\n    echo bye\n  \"\"\",\n  \"a\": {},\n  \"b\": [\n    1,\n    2\n  ]\n}"
	if got != want {
		t.Errorf("prettyInput:\n%s\nwant:\n%s", got, want)
	}
	if got := prettyInput("not json\\n at all"); got != "not json\\n at all" {
		t.Errorf("text that is not JSON should stay as stored, got %q", got)
	}
}

func TestTranscriptKeysScroll(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	u.win.Resize(fyne.NewSize(900, 600))
	tv := openTranscript(t, u, "claude_code:sess-long")
	tv.focusKeys()
	if u.win.Canvas().Focused() != tv.keys {
		t.Fatal("the transcript should take the keyboard")
	}
	relayout(u.win.Content())
	if tv.scroll.Offset.Y != 0 {
		t.Fatalf("a conversation opens at its start, at %v", tv.scroll.Offset.Y)
	}
	press := func(k fyne.KeyName) float32 {
		t.Helper()
		u.win.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: k})
		waitIdle(t, u)
		return tv.scroll.Offset.Y
	}
	page := tv.scroll.Size().Height
	if y := press(fyne.KeyPageDown); y < page/2 {
		t.Fatalf("Page Down scrolled to %v, want most of a screen (%v)", y, page)
	}
	y1 := tv.scroll.Offset.Y
	if y := press(fyne.KeyDown); y <= y1 {
		t.Fatalf("Down should scroll a line (%v → %v)", y1, y)
	}
	if y := press(fyne.KeyPageUp); y >= y1 {
		t.Fatalf("Page Up should scroll back (%v → %v)", y1, y)
	}
	end := press(fyne.KeyEnd)
	if max := tv.scroll.Content.MinSize().Height - tv.scroll.Size().Height; end < max-1 {
		t.Fatalf("End scrolled to %v, the end is %v", end, max)
	}
	if y := press(fyne.KeyHome); y != 0 {
		t.Fatalf("Home scrolled to %v", y)
	}
}

func TestFindInConversation(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	tv := openTranscript(t, u, "claude_code:sess-long")
	// Ctrl+F on the Conversations screen finds in the open conversation.
	u.find()
	if tv.findBar.Hidden || u.win.Canvas().Focused() != tv.findEntry {
		t.Fatal("Ctrl+F should open the find bar with the keyboard in it")
	}
	test.Type(tv.findEntry, phraseLongTurn)
	waitIdle(t, u)
	if tv.findCount.Text != "1 of 1" {
		t.Fatalf("find count %q, want 1 of 1", tv.findCount.Text)
	}
	it := tv.items[30-tv.lo]
	var current bool
	for _, s := range texts(it.obj) {
		if strings.EqualFold(s.Text, phraseLongTurn) && s.Style.TextStyle.Underline && s.Style.ColorName == theme.ColorNameWarning {
			current = true
		}
	}
	if !current {
		t.Fatal("the current occurrence should stand out")
	}
	if tv.scroll.Offset.Y <= 0 {
		t.Fatal("find should scroll to turn 30")
	}

	// Many occurrences: Enter and Down go on, Up back, round the ends.
	tv.findEntry.SetText("")
	test.Type(tv.findEntry, "refactor")
	waitIdle(t, u)
	n := len(tv.matches)
	if n < 50 || !strings.HasSuffix(tv.findCount.Text, fmt.Sprintf("of %d", n)) {
		t.Fatalf("refactor should occur in most turns: %d (%q)", n, tv.findCount.Text)
	}
	first := tv.cur
	pressKey(tv.findEntry, fyne.KeyReturn)
	pressKey(tv.findEntry, fyne.KeyDown)
	if tv.cur != first+2 {
		t.Fatalf("Enter and Down should go two on: %d → %d", first, tv.cur)
	}
	pressKey(tv.findEntry, fyne.KeyUp)
	if tv.cur != first+1 {
		t.Fatalf("Up should go back one: %d", tv.cur)
	}
	for range n {
		pressKey(tv.findEntry, fyne.KeyDown)
	}
	if tv.cur != first+1 {
		t.Fatalf("find should go round the end: %d", tv.cur)
	}
	waitIdle(t, u)
	capture(t, u, "transcript-find")

	// Ctrl+F again selects the old text, so typing replaces it.
	u.find()
	test.Type(tv.findEntry, "nothing-like-this")
	waitIdle(t, u)
	if tv.findEntry.Text != "nothing-like-this" || tv.findCount.Text != "No matches" {
		t.Fatalf("find text %q (%q): the old text should be replaced", tv.findEntry.Text, tv.findCount.Text)
	}
	// Another conversation, shorter than the turns marked, opens clean.
	tv.findEntry.SetText("refactor")
	waitIdle(t, u)
	u.convs.open("claude:conv-db", "")
	waitIdle(t, u)
	if tv.tr.Session.SessionID != "conv-db" || tv.find != "" || !tv.findBar.Hidden {
		t.Fatal("opening another conversation should close the find bar")
	}
	u.convs.open("claude_code:sess-long", "")
	waitIdle(t, u)
	u.find()
	test.Type(tv.findEntry, "nothing-like-this")
	waitIdle(t, u)
	// Escape closes it and takes the marks away.
	pressKey(tv.findEntry, fyne.KeyEscape)
	if !tv.findBar.Hidden || tv.find != "" || u.win.Canvas().Focused() != tv.keys {
		t.Fatal("Escape should close the find bar and give the keys back to the transcript")
	}
	// Off the Conversations screen, Ctrl+F is the Search query.
	u.showScreen(screenSearch)
	u.find()
	if u.win.Canvas().Focused() != u.search.query {
		t.Fatal("Ctrl+F on Search should focus the query")
	}
}

func TestSearchOpensAtPassageWithWordsMarked(t *testing.T) {
	u := newTestUI(t, newToolMemory(t))
	search(t, u, "heron suite")
	h, ok := u.search.hit(0)
	if !ok || h.SessionID != "sess-tools" {
		t.Fatalf("first hit %+v", h)
	}
	test.Tap(u.search.open)
	waitIdle(t, u)
	tv := u.convs.tv
	if tv.focus < 0 || tv.tr.Turns[tv.focus].TurnUUID != h.TurnUUID {
		t.Fatalf("opened at turn %d, want %s", tv.focus, h.TurnUUID)
	}
	if u.win.Canvas().Focused() != tv.keys {
		t.Fatal("opening from Search should give the transcript the keyboard")
	}
	var marked []string
	for _, s := range texts(tv.items[tv.focus-tv.lo].obj) {
		if s.Style.TextStyle.Bold && s.Style.ColorName == theme.ColorNamePrimary {
			marked = append(marked, strings.ToLower(s.Text))
		}
	}
	if !contains(marked, "heron") || !contains(marked, "suite") {
		t.Fatalf("the query's words should be marked in the passage, marked %q", marked)
	}
	capture(t, u, "transcript-from-search")

	// A neighbour that is Ireneo's own answer shows as its label.
	search(t, u, "last session found")
	if h, ok := u.search.hit(0); !ok || h.TurnUUID != "tools-1" {
		t.Fatalf("want turn 2 of sess-tools first, got %+v", h)
	}
	got := detailText(u.search)
	// (memory makes previews from the said words since i20's index change,
	// "(recall result)" for a turn of plumbing; the screen labels an older
	// preview that still holds the answer itself.)
	if !strings.Contains(got, "You, turn 3: recall result") && !strings.Contains(got, "You, turn 3: (recall result)") ||
		strings.Contains(got, "receipt: session_id=old") || strings.Contains(got, "TodoWrite tool") {
		t.Fatalf("Ireneo's answer and the harness note should show as labels, not their words: %q", got)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// What the Markdown renderer keeps: raw HTML and wrapper tags a person
// typed stay as text, lists nest, links are links, and nothing said is
// dropped.
func TestMarkdownKeepsWhatWasSaid(t *testing.T) {
	src := "Why does Codex write <environment_context> first?\n\n" +
		"<system-reminder>\nquoted by me\n</system-reminder>\n\n" +
		"- one\n  - nested\n- two with [a link](https://example.org)\n\n" +
		"> a quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n    indented code\n"
	var all strings.Builder
	var links, nested int
	var walkSegs func(segs []widget.RichTextSegment)
	walkSegs = func(segs []widget.RichTextSegment) {
		for _, s := range segs {
			switch v := s.(type) {
			case *widget.TextSegment:
				all.WriteString(v.Text)
			case *widget.HyperlinkSegment:
				links++
				all.WriteString(v.Text)
			case *widget.ParagraphSegment:
				walkSegs(v.Texts)
			case *widget.ListSegment:
				for _, it := range v.Items {
					if p, ok := it.(*widget.ParagraphSegment); ok {
						for _, x := range p.Texts {
							if _, ok := x.(*widget.ListSegment); ok {
								nested++
							}
						}
					}
				}
				walkSegs(v.Items)
			}
		}
	}
	var code string
	var table *mdTable
	for _, p := range parseMarkdownPieces(src) {
		if p.isCode {
			code += p.code
		}
		if p.table != nil {
			table = p.table
		}
		walkSegs(p.segs)
	}
	// A table is a table, its cells words, no pipes shown.
	if table == nil || table.text() != "a b 1 2 " {
		t.Errorf("the table: %+v", table)
	}
	got := all.String()
	if strings.Contains(got, "|") {
		t.Errorf("a table shows as | lines:\n%s", got)
	}
	for _, want := range []string{"<environment_context>", "<system-reminder>", "quoted by me", "nested", "a link", "a quote"} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered text lost %q:\n%s", want, got)
		}
	}
	if links != 1 || nested != 1 || code != "indented code" {
		t.Errorf("links %d, nested lists %d, code %q", links, nested, code)
	}
	if p := markdownPlain("## Plan\n\nRun `go test` **now**"); p != "Plan Run go test now" {
		t.Errorf("markdownPlain = %q", p)
	}
}

// BenchmarkTranscriptPage lays out a page of Markdown turns as the
// transcript does, against a floor measured in the same run: the same
// texts as plain wrapped labels, which is what the view drew before it
// rendered Markdown. The ratio is the cost of reading rendered text.
func BenchmarkTranscriptPage(b *testing.B) {
	test.NewTempApp(b)
	var texts []string
	for i := range transcriptPage {
		texts = append(texts, fmt.Sprintf("## Step %d\n\nRun `go test ./...` and read **memory/recall.go**:\n\n"+
			"1. the ranking\n2. the budget\n\n```go\nfunc rank(c []candidate) []candidate {\n\treturn c\n}\n```\nDone when the suite is green.", i))
	}
	size := fyne.NewSize(700, 10000)
	lay := func(objs []fyne.CanvasObject) {
		box := container.NewVBox(objs...)
		box.Resize(size)
		box.MinSize()
	}
	measure := func(view func(string) fyne.CanvasObject) time.Duration {
		start := time.Now()
		for range b.N {
			objs := make([]fyne.CanvasObject, len(texts))
			for i, s := range texts {
				objs[i] = view(s)
			}
			lay(objs)
		}
		return time.Since(start)
	}
	b.ResetTimer()
	floor := measure(func(s string) fyne.CanvasObject {
		l := widget.NewLabel(s)
		l.Wrapping = fyne.TextWrapWord
		return l
	})
	md := measure(func(s string) fyne.CanvasObject { return markdownView(s, &marker{cur: -1}) })
	b.ReportMetric(float64(md)/float64(b.N)/1e6, "ms/page")
	b.ReportMetric(float64(md)/float64(floor), "x-plain-labels")
}

// Marked text wraps as plain text does: many marks (every "r" of a long
// session) never set a line's characters one under the other, Fyne's
// wrapping bug when a segment starts where none of it fits.
func TestMarksWrapLikePlainText(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	u.win.Resize(fyne.NewSize(1280, 800))
	tv := openTranscript(t, u, "claude_code:sess-long")
	tv.openFind()
	tv.setFind("r")
	waitIdle(t, u)
	relayout(u.win.Content())
	tallest := float32(0)
	walk(tv.turns, func(o fyne.CanvasObject) {
		if rt, ok := o.(*widget.RichText); ok && strings.Contains(strings.ReplaceAll(rt.String(), wrapGuard, ""), "More detail") {
			tallest = max(tallest, rt.MinSize().Height)
		}
	})
	// A turn's text is four lines at this width; the bug made it hundreds.
	if tallest == 0 || tallest > 200 {
		t.Fatalf("the tallest marked turn text is %v high, want a few lines", tallest)
	}
	segs := guardWrap([]widget.RichTextSegment{
		&widget.TextSegment{Text: "a", Style: widget.RichTextStyleInline},
		&widget.TextSegment{Text: "b", Style: widget.RichTextStyleParagraph},
		&widget.TextSegment{Text: "c", Style: widget.RichTextStyleInline},
	})
	if got := []string{segs[0].(*widget.TextSegment).Text, segs[1].(*widget.TextSegment).Text, segs[2].(*widget.TextSegment).Text}; got[0] != "a" || got[1] != wrapGuard+"b" || got[2] != "c" {
		t.Fatalf("guardWrap: %q", got)
	}
}

// TestMarkdownTableAndParagraphs: a table answer lays out as a grid with a
// bold header, its cells in columns; paragraphs have space between them.
func TestMarkdownTableAndParagraphs(t *testing.T) {
	m := newTestMemory(t)
	if _, err := m.Ingest(context.Background(), []*funes.Session{markdownSession()}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	u := newTestUI(t, m)
	u.win.Resize(fyne.NewSize(1280, 800))
	tv := openTranscript(t, u, "chatgpt:conv-compare")
	var grids, boldHead int
	walk(tv.turns, func(o fyne.CanvasObject) {
		if c, ok := o.(*fyne.Container); ok && len(c.Objects) == 4 {
			if rt, ok := c.Objects[0].(*widget.RichText); ok && strings.Contains(rt.String(), "Database") {
				grids++
				if ts, ok := rt.Segments[0].(*widget.TextSegment); ok && ts.Style.TextStyle.Bold {
					boldHead++
				}
			}
		}
	})
	if grids != 1 || boldHead != 1 {
		t.Errorf("the table: %d header rows of 4 columns, %d bold", grids, boldHead)
	}
	for _, s := range texts(tv.turns) {
		if strings.Contains(s.Text, "|---") || strings.HasPrefix(strings.TrimSpace(s.Text), "| ") {
			t.Errorf("a table line shows as text: %q", s.Text)
		}
	}
	gaps := 0
	for _, s := range texts(tv.turns) {
		if s.Text == "" && s.Style.SizeName == theme.SizeNameCaptionText {
			gaps++
		}
	}
	if gaps < 2 {
		t.Errorf("%d gaps between the answer's paragraphs and list, want 2", gaps)
	}
	capture(t, u, "transcript-table-1280x800")
	u.win.Resize(fyne.NewSize(900, 600))
	capture(t, u, "transcript-table-900x600")
}

// TestArtifactOnACodePanel: a Claude.ai artifact, kept in its message's
// text between <antArtifact> tags with no fence, shows its body on a code
// panel, lines and indentation as written, with its tags as typed and the
// prose around it as Markdown.
func TestArtifactOnACodePanel(t *testing.T) {
	body := "import React from 'react';\n\nconst A = () => {\n  return <div>*not emphasis*</div>;\n};"
	src := "I'll make **it**.\n\n<antArtifact identifier=\"a\" type=\"application/vnd.ant.react\" title=\"A\">\n" + body + "\n</antArtifact>\n\nDone."
	ps := parseMarkdownPieces(src)
	var kinds []string
	var code string
	for _, p := range ps {
		switch {
		case p.isCode:
			kinds = append(kinds, "code")
			code = p.code
		default:
			var b strings.Builder
			for _, s := range p.segs {
				if ts, ok := s.(*widget.TextSegment); ok {
					b.WriteString(ts.Text)
				}
			}
			kinds = append(kinds, "prose:"+b.String())
		}
	}
	want := []string{"prose:I'll make it.", `prose:<antArtifact identifier="a" type="application/vnd.ant.react" title="A">`, "code", "prose:</antArtifact>", "prose:Done."}
	if strings.Join(kinds, "|") != strings.Join(want, "|") {
		t.Fatalf("pieces %q, want %q", kinds, want)
	}
	if code != body {
		t.Fatalf("the artifact's code %q, want it as written %q", code, body)
	}
	// Unclosed (a cut message), it stays prose.
	if ps := parseMarkdownPieces("<antArtifact title=\"A\">\nconst a = 1;"); len(ps) != 1 || ps[0].isCode {
		t.Fatalf("an unclosed artifact: %d pieces", len(ps))
	}
}
