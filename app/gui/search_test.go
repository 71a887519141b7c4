package gui

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// search runs a query as a person would: type it, press Enter.
func search(t testing.TB, u *ui, q string) {
	t.Helper()
	u.search.query.SetText("")
	test.Type(u.search.query, q)
	pressKey(u.search.query, fyne.KeyReturn)
	waitIdle(t, u)
}

func TestSearchFindsAndOpensTurn(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	s := u.search

	search(t, u, phraseBudget)
	if s.length() == 0 {
		t.Fatalf("no results for %s; summary %q", phraseBudget, s.summary.Text)
	}
	h, _ := s.hit(0)
	if h.SessionID != "conv-budget" || !strings.Contains(h.Text, phraseBudget) {
		t.Fatalf("first hit is %s %q, want the budget conversation", h.SessionID, h.Text)
	}
	if s.selected != 0 || s.open.Disabled() {
		t.Fatalf("the first result should be selected and openable (selected %d)", s.selected)
	}
	// The detail shows the passage with the query term emphasised, and a
	// neighbour turn.
	var emphasised, neighbour bool
	walk(s.detail, func(o fyne.CanvasObject) {
		rt, ok := o.(*widget.RichText)
		if !ok {
			return
		}
		for _, seg := range rt.Segments {
			if ts, ok := seg.(*widget.TextSegment); ok {
				if strings.EqualFold(strings.TrimPrefix(ts.Text, wrapGuard), phraseBudget) && ts.Style.TextStyle.Bold {
					emphasised = true
				}
				if strings.Contains(ts.Text, "turn ") {
					neighbour = true
				}
			}
		}
	})
	if !emphasised || !neighbour {
		t.Fatalf("detail should highlight %s (%v) and show a neighbour turn (%v)", phraseBudget, emphasised, neighbour)
	}

	// Arrow keys move through the results without leaving the field.
	if s.length() > 1 {
		pressKey(s.query, fyne.KeyDown)
		if s.selected != 1 {
			t.Fatalf("Down selected %d, want 1", s.selected)
		}
		pressKey(s.query, fyne.KeyUp)
		if s.selected != 0 {
			t.Fatalf("Up selected %d, want 0", s.selected)
		}
	}

	// A turn deep in a long conversation: Enter after the arrows opens it,
	// scrolled to that turn.
	search(t, u, phraseLongTurn)
	h, ok := s.hit(0)
	if !ok || h.SessionID != "sess-long" || h.Seq != 30 {
		t.Fatalf("want turn 30 of sess-long, got %+v", h)
	}
	pressKey(s.query, fyne.KeyDown) // stays on the only result
	pressKey(s.query, fyne.KeyReturn)
	waitIdle(t, u)
	if u.tabs.SelectedIndex() != screenConversations {
		t.Fatalf("Enter on a result should open the Conversations screen, on %d", u.tabs.SelectedIndex())
	}
	tv := u.convs.tv
	if tv.tr == nil || tv.tr.Session.SessionID != "sess-long" {
		t.Fatal("the transcript of the hit is not shown")
	}
	if tv.focus < 0 || tv.tr.Turns[tv.focus].Seq != 30 {
		t.Fatalf("focus on turn index %d, want seq 30", tv.focus)
	}
	if tv.focusedOffset() <= 0 || tv.scroll.Offset.Y <= 0 {
		t.Fatalf("the view should scroll down to turn 30 (turn at %v, scrolled to %v)", tv.focusedOffset(), tv.scroll.Offset.Y)
	}
	if !strings.Contains(u.convs.tv.title.Text, "A long session") {
		t.Fatalf("transcript title %q", u.convs.tv.title.Text)
	}
}

func TestSearchFiltersAndEmpty(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	s := u.search
	search(t, u, "nothingmatchesthis")
	if s.length() != 0 || s.summary.Text != "No results" || !s.open.Disabled() {
		t.Fatalf("want no results, got %d (%q)", s.length(), s.summary.Text)
	}
	// The source filter narrows the same query: "WAL" is in a Claude and
	// a Codex conversation.
	search(t, u, "WAL")
	all := s.length()
	if all < 2 {
		t.Fatalf("WAL should match two conversations, got %d", all)
	}
	s.source.SetSelected("Codex")
	waitIdle(t, u)
	if n := s.length(); n == 0 || n >= all {
		t.Fatalf("the Codex filter should keep some but not all of %d conversations, kept %d", all, n)
	}
	for i := 0; i < s.length(); i++ {
		if h, _ := s.hit(i); h.Source != "codex" {
			t.Fatalf("source filter let %s through", h.Source)
		}
	}
	// With a filter set, the empty result says which one narrows it.
	search(t, u, phraseForget)
	if s.length() != 0 || !strings.Contains(detailText(s), "the source (Codex)") {
		t.Fatalf("an empty filtered search should name the filter: %q", detailText(s))
	}
	s.source.SetSelected(anySource)
	waitIdle(t, u)
	search(t, u, "nothingmatchesthis")
	if strings.Contains(detailText(s), "narrowed") {
		t.Fatalf("with no filter set, the empty result should not blame the filters: %q", detailText(s))
	}
}

// detailText is every text in the search detail pane.
func detailText(s *searchScreen) string {
	var parts []string
	walk(s.detail, func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Label:
			parts = append(parts, v.Text)
		case *widget.RichText:
			parts = append(parts, strings.ReplaceAll(v.String(), wrapGuard, ""))
		}
	})
	return strings.Join(parts, " | ")
}

// manyHits is a memory where one word is in more passages than a page
// holds: 40 conversations of three turns each.
func manyHits(t *testing.T) *memory.Memory {
	t.Helper()
	m, err := memory.Open(filepath.Join(t.TempDir(), "memory"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	var ss []*funes.Session
	for i := range 40 {
		id := fmt.Sprintf("heron-%02d", i)
		s := &funes.Session{ID: id, Harness: funes.HarnessChatGPT, Title: fmt.Sprintf("Heron survey, site %d, with a title long enough to be cut short in a narrow list", i)}
		if i%4 == 0 {
			s.Project = "spotter-fum"
		}
		for j := range 3 {
			s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("%s-%d", id, j), Seq: j, TS: t0.Add(time.Duration(i*10+j) * time.Minute),
				Role:   []string{funes.RoleUser, funes.RoleAssistant, funes.RoleUser}[j],
				Blocks: []funes.Block{{Type: funes.BlockText, Text: fmt.Sprintf("Counted %d herons at site %d on pass %d, by the reed beds.", i+j, i, j)}}})
		}
		ss = append(ss, s)
	}
	if _, err := m.Ingest(context.Background(), ss, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSearchGroupsByConversationAndPages(t *testing.T) {
	u := newTestUI(t, manyHits(t))
	s := u.search
	u.showScreen(screenSearch)
	waitIdle(t, u)
	search(t, u, "herons")
	// One row per conversation, its passages together.
	seen := map[string]bool{}
	for _, g := range s.groups {
		id := g.best().SessionID
		if seen[id] {
			t.Fatalf("%s has two rows", id)
		}
		seen[id] = true
		for _, h := range g.hits {
			if h.SessionID != id {
				t.Fatalf("row %s holds a passage of %s", id, h.SessionID)
			}
		}
	}
	if s.passages != searchK || s.showMore.Hidden || !strings.Contains(s.summary.Text, "more below") {
		t.Fatalf("a full page of %d passages should offer more (%d, %q)", searchK, s.passages, s.summary.Text)
	}
	rows := s.length()
	u.win.Resize(fyne.NewSize(1280, 800))
	capture(t, u, "search-1280x800")
	u.win.Resize(fyne.NewSize(900, 600))
	capture(t, u, "search-900x600")
	// The meta line is cut with an ellipsis, not clipped, at 900 px.
	var meta *widget.RichText
	walk(s.list, func(o fyne.CanvasObject) {
		if rt, ok := o.(*widget.RichText); ok && meta == nil && strings.Contains(rt.String(), " · ChatGPT · ") {
			meta = rt
		}
	})
	if meta == nil || meta.Truncation != fyne.TextTruncateEllipsis {
		t.Fatal("the date · source line should truncate with an ellipsis")
	}
	// Passage lines with marked words are cut with "…" too.
	cut := 0
	walk(s.list, func(o fyne.CanvasObject) {
		if sn, ok := o.(*snippet); ok && strings.HasSuffix(sn.String(), "…") {
			cut++
			if w := sn.MinSize().Width; w > sn.Size().Width+1 {
				t.Errorf("a cut passage line is wider (%v) than its row (%v)", w, sn.Size().Width)
			}
		}
	})
	if cut == 0 {
		t.Fatal("at 900 px some passage lines should be cut with an ellipsis")
	}

	// Show more adds the next page to the rows already there.
	test.Tap(s.showMore)
	waitIdle(t, u)
	if s.passages != 100 || s.length() < rows {
		t.Fatalf("after Show more: %d passages in %d rows (was %d rows)", s.passages, s.length(), rows)
	}
	test.Tap(s.showMore)
	waitIdle(t, u)
	if s.passages != 120 || s.length() != 40 || !s.showMore.Hidden {
		t.Fatalf("all 120 passages in 40 rows, then no more: %d in %d (more hidden %v)", s.passages, s.length(), s.showMore.Hidden)
	}
	for _, g := range s.groups {
		if len(g.hits) != 3 {
			t.Fatalf("%s has %d passages, want its 3", g.best().SessionID, len(g.hits))
		}
	}

	// The project filter says what it does, and does it.
	opts := s.project.sel.Options
	for _, want := range []string{anyProject, "Untagged (30)", "spotter-fum + untagged (40)", "only spotter-fum (10)"} {
		if !contains(opts, want) {
			t.Fatalf("project options %q lack %q", opts, want)
		}
	}
	s.project.sel.SetSelected("spotter-fum + untagged (40)")
	waitIdle(t, u)
	capture(t, u, "search-project-filter-900x600")
	s.project.sel.SetSelected("only spotter-fum (10)")
	waitIdle(t, u)
	for _, g := range s.groups {
		if len(g.best().Projects) != 1 || g.best().Projects[0] != "spotter-fum" {
			t.Fatalf("only spotter-fum let %s through", g.best().SessionID)
		}
	}
	if s.length() != 10 {
		t.Fatalf("only spotter-fum: %d conversations, want 10", s.length())
	}
	s.project.sel.SetSelected("Untagged (30)")
	waitIdle(t, u)
	for _, g := range s.groups {
		if len(g.best().Projects) != 0 {
			t.Fatalf("Untagged let %s through", g.best().SessionID)
		}
	}
	if s.length() == 0 {
		t.Fatal("Untagged found nothing")
	}
}

func TestFirstRunEmptyStates(t *testing.T) {
	m, err := memory.Open(filepath.Join(t.TempDir(), "memory"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	u := newTestUI(t, m)
	u.showScreen(screenSearch)
	waitIdle(t, u)
	got := detailText(u.search)
	for _, want := range []string{"no conversations yet", "ChatGPT: Settings › Data controls › Export data", "Claude: Settings › Privacy › Export data", "Go to Import"} {
		if !strings.Contains(got+" | "+buttonTexts(u.search.detail), want) {
			t.Errorf("the empty Search screen should say %q; it says %q", want, got)
		}
	}
	u.win.Resize(fyne.NewSize(900, 600))
	capture(t, u, "search-first-run-900x600")
	search(t, u, "anything")
	if got := detailText(u.search); strings.Contains(got, "filters") || !strings.Contains(got, "no conversations yet") {
		t.Errorf("a search on an empty memory should say it is empty, not blame filters: %q", got)
	}

	u.showScreen(screenConversations)
	waitIdle(t, u)
	var parts []string
	walk(u.convs.tv.turns, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok {
			parts = append(parts, l.Text)
		}
	})
	conv := strings.Join(parts, " | ")
	if strings.Contains(conv, "Pick a conversation") || !strings.Contains(conv, "Export data") {
		t.Errorf("the empty Conversations screen should say how to import, not point left: %q", conv)
	}
	capture(t, u, "conversations-first-run-900x600")
	var goImport *widget.Button
	walk(u.convs.tv.turns, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Go to Import" {
			goImport = b
		}
	})
	if goImport == nil {
		t.Fatal("no Go to Import button")
	}
	test.Tap(goImport)
	if u.tabs.SelectedIndex() != screenImport {
		t.Fatal("Go to Import should open the Import screen")
	}
}

func buttonTexts(o fyne.CanvasObject) string {
	var parts []string
	walk(o, func(c fyne.CanvasObject) {
		if b, ok := c.(*widget.Button); ok {
			parts = append(parts, b.Text)
		}
	})
	return strings.Join(parts, " | ")
}

func TestHighlight(t *testing.T) {
	segs := highlight("Budget for MT-4471: the mt-4471 line, not xmt-4471", queryTerms("mt-4471 budget"), widget.RichTextStyleInline)
	hot := lit(segs)
	if strings.Join(hot, ",") != "Budget,MT-4471,mt-4471" {
		t.Fatalf("highlighted %q", hot)
	}
}

// TestHighlightWholeWords: a word lights up when it is a query word or
// shares its stem, whole; not when it only begins with one (the review
// saw "User" lit inside $Username and "Local" inside LocalAdmin).
func TestHighlightWholeWords(t *testing.T) {
	segs := highlight("$Username = LocalAdmin; create_local_user for users, deployed scripts", queryTerms("local user deploy script"), widget.RichTextStyleInline)
	hot := lit(segs)
	if strings.Join(hot, ",") != "local,user,users,deployed,scripts" {
		t.Fatalf("highlighted %q", hot)
	}
	// The transcript and code panels mark the same words.
	text := "$Username = LocalAdmin; create_local_user for users, deployed scripts"
	var marked []string
	for _, sp := range (&marker{terms: queryTerms("local user deploy script")}).spans(text) {
		marked = append(marked, text[sp.start:sp.end])
	}
	if strings.Join(marked, ",") != strings.Join(hot, ",") {
		t.Fatalf("the transcript marks %q, results light %q", marked, hot)
	}
}

// lit is the highlighted text of segs, in order.
func lit(segs []widget.RichTextSegment) []string {
	var hot []string
	for _, s := range segs {
		if ts := s.(*widget.TextSegment); ts.Style.TextStyle.Bold {
			hot = append(hot, ts.Text)
		}
	}
	return hot
}

// TestHighlightSegmentedScript: a word of a script written without spaces
// lights up inside a sentence, as the engine finds it there.
func TestHighlightSegmentedScript(t *testing.T) {
	segs := highlight("昨日は東京で旅行した", queryTerms("東京"), widget.RichTextStyleInline)
	hot := lit(segs)
	if strings.Join(hot, ",") != "東京" {
		t.Fatalf("highlighted %q", hot)
	}
}

// TestEverySourceNamed: each harness a memory may hold (the importers of
// issue 31 included) has a display name and an option in the source
// filters, which maps back to it.
func TestEverySourceNamed(t *testing.T) {
	opts := sourceOptions()
	for _, h := range funes.Harnesses {
		if h == "funes" {
			continue
		}
		name := sourceName(h)
		if name == h && h != funes.HarnessOpenCode {
			t.Errorf("harness %q has no display name", h)
		}
		if !slices.Contains(opts, name) || sourceID(name) != h {
			t.Errorf("harness %q (%s) is not a source filter option: %q", h, name, opts)
		}
		if !strings.Contains(sourcesInWords(), name) {
			t.Errorf("Search's hint does not name %s: %q", name, sourcesInWords())
		}
		if h != funes.HarnessChatGPT && h != funes.HarnessClaude && !strings.Contains(agentsInWords(), name) {
			t.Errorf("Import's intro does not name %s: %q", name, agentsInWords())
		}
	}
}

// TestDetailShowsEachTurnOnce: in Search's detail, a turn that is itself
// a passage is not repeated as another passage's neighbour line, and a
// neighbour of two passages shows once.
func TestDetailShowsEachTurnOnce(t *testing.T) {
	u := newTestUI(t, shownSecretsMemory(t))
	u.win.Resize(fyne.NewSize(1280, 800))
	search(t, u, "deploy script")
	u.search.list.Select(0)
	waitIdle(t, u)
	g, ok := u.search.group(0)
	if !ok || len(g.hits) < 2 {
		t.Fatalf("want a conversation with several passages, got %d", len(g.hits))
	}
	text := strings.Join(renderedTexts(u), "\n")
	for _, h := range g.hits {
		line := fmt.Sprintf("%s, turn %d:", roleName(h.Role), h.Seq+1)
		if strings.Contains(text, line) {
			t.Errorf("turn %d is a passage and a neighbour line too:\n%s", h.Seq+1, text)
		}
	}
	seen := map[string]int{}
	for _, l := range renderedTexts(u) {
		if strings.Contains(l, ", turn ") {
			seen[l]++
		}
	}
	for l, n := range seen {
		if n > 1 {
			t.Errorf("the neighbour line %q shows %d times", l, n)
		}
	}
}

// TestButtonsThatWouldDoNothingAreOff: Search is off with no words (and
// with blanks only), on once there are some; Scan memory is off on an
// empty memory and on once it holds a conversation.
func TestButtonsThatWouldDoNothingAreOff(t *testing.T) {
	m, err := memory.Open(filepath.Join(t.TempDir(), "memory"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	u := newTestUI(t, m)
	u.showScreen(screenSearch)
	waitIdle(t, u)
	s := u.search
	if !s.searchBtn.Disabled() {
		t.Error("Search is on with no words")
	}
	s.query.SetText("   ")
	if !s.searchBtn.Disabled() {
		t.Error("Search is on with blanks only")
	}
	s.query.SetText("falcon")
	if s.searchBtn.Disabled() {
		t.Error("Search is off with words typed")
	}
	u.showScreen(screenScrub)
	waitIdle(t, u)
	if !u.scrub.scan.Disabled() {
		t.Error("Scan memory is on on an empty memory")
	}
	if _, err := m.Ingest(context.Background(), fixtureSessions(), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	u.showScreen(screenSearch)
	waitIdle(t, u)
	u.showScreen(screenScrub)
	waitIdle(t, u)
	if u.scrub.scan.Disabled() {
		t.Error("Scan memory is off on a memory with conversations")
	}
}

// TestOneDateFormat: every date the screens show that read the memory
// (Search's rows and detail, Conversations' list and transcript, Forget's
// list, Activity, Insights) is written one way, 2026-03-01 with the time
// after it where there is one: no month names, no slashes, no RFC 3339.
func TestOneDateFormat(t *testing.T) {
	u := newTestUI(t, shownSecretsMemory(t))
	u.win.Resize(fyne.NewSize(1280, 800))
	other := regexp.MustCompile(`\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2}\b|\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\d{4}-\d{2}-\d{2}T\d{2}`)
	ours := regexp.MustCompile(`\b20\d{2}-\d{2}-\d{2}\b`)
	check := func(where string) {
		t.Helper()
		waitIdle(t, u)
		relayout(u.win.Content())
		text := strings.Join(renderedTexts(u), "\n")
		if m := other.FindString(text); m != "" {
			t.Errorf("%s shows a date as %q", where, m)
		}
		if !ours.MatchString(text) {
			t.Errorf("%s shows no date at all: the check saw nothing", where)
		}
	}
	search(t, u, "deploy script")
	u.search.list.Select(0)
	check("Search")
	openTranscript(t, u, "claude_code:cc-deploy")
	check("Conversations")
	u.forget.query.SetText("deploy")
	u.forget.find()
	u.showScreen(screenForget)
	check("Forget")
	u.showScreen(screenActivity)
	check("Activity")
	u.showScreen(screenInsights)
	check("Insights")
}

// TestToolCallsReadTheSameEverywhere: a tool call reads as the
// transcript's folded line ("Edit: importers/codex.go") in Search's rows,
// in its detail and in the transcript, never as its JSON input.
func TestToolCallsReadTheSameEverywhere(t *testing.T) {
	m := newTestMemory(t)
	if _, err := m.Ingest(context.Background(), []*funes.Session{agentSession()}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	u := newTestUI(t, m)
	u.win.Resize(fyne.NewSize(1280, 800))
	const line = "Edit: importers/codex.go"
	search(t, u, "response_item.payload")
	if u.search.length() == 0 {
		t.Fatal("the Edit call's input found nothing")
	}
	rows := strings.Join(textsUnder(u.search.list), "\n")
	if !strings.Contains(rows, line) || strings.Contains(rows, `{"file_path"`) {
		t.Errorf("Search's row does not read %q:\n%s", line, rows)
	}
	u.search.list.Select(0)
	waitIdle(t, u)
	relayout(u.win.Content())
	detail := strings.Join(textsUnder(u.search.detail), "\n")
	if !strings.Contains(detail, line) || strings.Contains(detail, `{"file_path"`) {
		t.Errorf("Search's detail does not read %q:\n%s", line, detail)
	}
	tv := openTranscript(t, u, "claude_code:cc-agent")
	relayout(u.win.Content())
	tr := strings.Join(textsUnder(tv.turns), "\n")
	if !strings.Contains(tr, line) || strings.Contains(tr, `{"file_path"`) {
		t.Errorf("the transcript does not read %q:\n%s", line, tr)
	}
}

// TestSnippetShowsItsMark: a result row whose marked word would fall past
// its end shortens the words before it from the left ("You: …"), so the
// row shows why it matched; a row whose mark fits is left as it is.
func TestSnippetShowsItsMark(t *testing.T) {
	newTestUI(t, newTestMemory(t)) // the app's theme, to measure text with
	text := func(s *snippet) string {
		var b strings.Builder
		for _, seg := range s.Segments {
			if ts, ok := seg.(*widget.TextSegment); ok {
				b.WriteString(ts.Text)
			}
		}
		return b.String()
	}
	long := "You: " + strings.Repeat("東京で三日間の旅行計画を立ててください。", 4) + "Tokyo, three days, in spring."
	sn := newSnippet()
	sn.set(highlight(long, []string{"tokyo"}, inlineStyle()))
	sn.Resize(fyne.NewSize(320, 30))
	got := text(sn)
	if !strings.HasPrefix(got, "You: …") || !strings.Contains(got, "Tokyo") {
		t.Errorf("a row cut before its mark reads %q", got)
	}
	words := "Assistant: Rotate that key first: it is in this chat now, and then I write the deploy script for the staging site."
	sn.set(highlight(words, []string{"deploy"}, inlineStyle()))
	sn.Resize(fyne.NewSize(300, 30))
	if got := text(sn); !strings.HasPrefix(got, "Assistant: …") || !strings.Contains(got, "deploy") || strings.Contains(got, "…"+"en ") {
		t.Errorf("a cut before the mark should start at a word: %q", got)
	} else if f := strings.TrimPrefix(got, "Assistant: …"); !strings.Contains(words, " "+strings.Fields(f)[0]+" ") {
		t.Errorf("a cut before the mark starts inside a word: %q", got)
	}
	short := "You: Plan a trip to Lisbon next spring please, and then a much longer tail that runs past the end"
	sn.set(highlight(short, []string{"spring"}, inlineStyle()))
	if got := text(sn); !strings.HasPrefix(got, "You: Plan a trip") || !strings.Contains(got, "spring") {
		t.Errorf("a row whose mark fits reads %q", got)
	}
}

// TestRowOfACallsSlice: a passage that is a slice of a long tool call's
// input (recall's window, not starting at its "{") reads in Search's row
// as the transcript's folded line, not as JSON.
func TestRowOfACallsSlice(t *testing.T) {
	m := newTestMemory(t)
	var body strings.Builder
	for i := range 120 {
		fmt.Fprintf(&body, "Line %d of the zoo notes: the penguins are fed at noon and the otters at four.\\n", i)
		if i == 90 {
			body.WriteString("The quokka enclosure moves next spring.\\n")
		}
	}
	t0 := time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)
	s := &funes.Session{ID: "cc-zoo", Harness: funes.HarnessClaudeCode, Title: "Zoo notes", Workdir: "/home/ana/zoo", Turns: []funes.Turn{
		{TurnUUID: "z-0", Seq: 0, TS: t0, Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: "Write the zoo notes file."}}},
		{TurnUUID: "z-1", Seq: 1, TS: t0.Add(time.Minute), Role: funes.RoleAssistant, Blocks: []funes.Block{{Type: funes.BlockToolUse, ToolName: "Write",
			Text: `{"file_path":"/home/ana/zoo/notes/zoo.md","content":"` + body.String() + `"}`}}},
	}}
	if _, err := m.Ingest(context.Background(), []*funes.Session{s}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	u := newTestUI(t, m)
	u.win.Resize(fyne.NewSize(1280, 800))
	search(t, u, "quokka enclosure")
	h, ok := u.search.hit(0)
	if !ok || h.SessionID != "cc-zoo" {
		t.Fatalf("first hit %+v", h)
	}
	t.Logf("the passage starts %q", clip(h.Text, 40))
	rows := strings.Join(textsUnder(u.search.list), "\n")
	if !strings.Contains(rows, "Write: notes/zoo.md") || strings.Contains(rows, `\n`) || strings.Contains(rows, `":"`) {
		t.Errorf("the row of a call's slice does not read as the transcript's line:\n%s", rows)
	}
	u.search.list.Select(0)
	waitIdle(t, u)
	relayout(u.win.Content())
	if detail := strings.Join(textsUnder(u.search.detail), "\n"); !strings.Contains(detail, "Write: notes/zoo.md") {
		t.Errorf("the detail of a call's slice does not fold it as the transcript does:\n%s", detail)
	}
}
