package gui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/plumbing"
	"github.com/ireneo-app/ireneo/recall"
)

// The search screen: a query with filters, a list of recalled passages and
// the selected one in full, with the turns around it.

// searchK is how many passages the window asks for. A person scanning a
// list wants more than an agent's context budget allows, so the GUI asks
// for the most recall gives and no token budget to speak of.
const (
	searchK      = recall.MaxK
	searchBudget = 1 << 30
)

const anyProject = "All projects"

type searchScreen struct {
	u *ui

	// workdirs are the folders of the conversations whose passages are
	// tool calls on paths, by source:id, so a row says the path as the
	// transcript does (relative to the folder); callLines are the folded
	// lines of passages that are a slice of a tool call's input (which
	// does not start with its "{"), by source:id:seq. Both filled off the
	// UI goroutine as results arrive.
	workdirs, callLines sync.Map

	query    *searchEntry
	project  *projectFilter
	source   *widget.Select
	when     *widget.Select
	summary  *widget.Label
	list     *widget.List
	detail   *fyne.Container
	dscroll  *container.Scroll
	open     *widget.Button
	showMore *widget.Button

	// groups are the conversations found, best first, each with its
	// passages in rank order; passages counts them all.
	groups   []hitGroup
	passages int
	// more says the last page was full: recall may hold more.
	more     bool
	opts     recall.Options // of the results shown, for the next page
	terms    []string
	selected int
	// empty says the memory holds no conversation yet (first run).
	empty bool
	// searched is the query of the results shown; navigated says the
	// arrow keys moved since, so Enter opens rather than searches again.
	searched  string
	navigated bool
	seq       int // drops results of searches overtaken by newer ones

	searchBtn *widget.Button
	// notice says the passages shown hold secrets Scrub would redact;
	// revealed are those the person chose to see.
	notice   *fyne.Container
	revealed map[string]bool
	// turns are the selected conversation's turns, once read, so its
	// passages show as the transcript shows them; detailSeq drops a read
	// that a newer selection overtook.
	turns     *conversations.Transcript
	detailSeq int
}

// hitGroup is one conversation's passages in a result.
type hitGroup struct {
	hits []recall.Hit // rank order; hits[0] is the best
}

func (g hitGroup) best() recall.Hit { return g.hits[0] }

// searchEntry is the query field: Enter searches, and the arrow keys move
// through the results without leaving the field.
type searchEntry struct {
	widget.Entry
	onMove func(delta int)
}

func newSearchEntry() *searchEntry {
	e := &searchEntry{}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey moves through the results on Up, Down, Page Up and Page Down.
func (e *searchEntry) TypedKey(k *fyne.KeyEvent) {
	if e.onMove != nil {
		switch k.Name {
		case fyne.KeyDown:
			e.onMove(1)
			return
		case fyne.KeyUp:
			e.onMove(-1)
			return
		case fyne.KeyPageDown:
			e.onMove(10)
			return
		case fyne.KeyPageUp:
			e.onMove(-10)
			return
		}
	}
	e.Entry.TypedKey(k)
}

func newSearchScreen(u *ui) *searchScreen {
	s := &searchScreen{u: u, selected: -1, revealed: map[string]bool{}}
	s.query = newSearchEntry()
	s.query.SetPlaceHolder("Search your conversations: an identifier like MT-4471, or a few key words")
	s.query.OnSubmitted = func(string) { s.submit() }
	s.searchBtn = widget.NewButtonWithIcon("Search", theme.SearchIcon(), s.submit)
	s.searchBtn.Disable()
	s.query.OnChanged = func(q string) {
		s.navigated = false
		enable(s.searchBtn, strings.TrimSpace(q) != "")
	}
	msg := widget.NewLabel("")
	msg.Wrapping = fyne.TextWrapWord
	s.notice = container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()),
		widget.NewButtonWithIcon("Scrub…", theme.VisibilityOffIcon(), func() { u.showScreen(screenScrub) }), msg)
	s.query.onMove = s.move
	s.project = newProjectFilter(s.rerun)
	s.source = newSelect(sourceOptions(), anySource, func(string) { s.rerun() })
	s.when = newSelect(dateOptions, anyTime, func(string) { s.rerun() })
	s.summary = widget.NewLabel("")
	s.summary.Truncation = fyne.TextTruncateEllipsis
	s.open = widget.NewButtonWithIcon("Open conversation", theme.DocumentIcon(), s.openSelected)
	s.open.Importance = widget.HighImportance
	s.open.Disable()
	s.showMore = widget.NewButtonWithIcon("Show more results", theme.MoreVerticalIcon(), s.nextPage)
	s.showMore.Hide()

	s.list = widget.NewList(s.length, s.createRow, s.updateRow)
	s.list.OnSelected = func(id widget.ListItemID) {
		s.selected = id
		s.showDetail()
	}
	s.detail = container.NewVBox()
	s.dscroll = container.NewVScroll(container.NewPadded(s.detail))
	s.showHint()
	return s
}

func (s *searchScreen) content() fyne.CanvasObject {
	top := container.NewBorder(nil, nil, nil, s.searchBtn, s.query)
	// The filters share the width, so "spotter-fum + untagged (71)" reads
	// whole; the count of what was found heads the list.
	filters := container.NewGridWithColumns(3, s.project.sel, s.source, s.when)
	right := container.NewBorder(nil, container.NewHBox(layout.NewSpacer(), s.open), nil, nil, s.dscroll)
	left := container.NewBorder(s.summary, s.showMore, nil, nil, s.list)
	split := container.NewHSplit(left, right)
	split.Offset = 0.45
	return container.NewBorder(container.NewVBox(top, filters), nil, nil, nil, split)
}

// focus puts the cursor in the query field.
func (s *searchScreen) focus() {
	if c := s.u.win.Canvas(); c != nil {
		c.Focus(s.query)
	}
}

// submit is Enter in the query field: search, or open the result the arrow
// keys moved to.
func (s *searchScreen) submit() {
	if s.navigated && s.query.Text == s.searched && s.selected >= 0 {
		s.openSelected()
		return
	}
	s.run()
}

// rerun searches again with the current query, after a filter changed or
// the memory did.
func (s *searchScreen) rerun() {
	if s.searched != "" || s.query.Text != "" {
		s.run()
	}
}

func (s *searchScreen) options() recall.Options {
	o := recall.Options{Query: s.query.Text, Source: sourceID(s.source.Selected), K: searchK, Budget: searchBudget}
	c := s.project.cur
	o.Project, o.ProjectOnly, o.Untagged = c.project, c.only, c.untagged
	o.Since = since(s.when.Selected, time.Now())
	return o
}

// run searches off the UI goroutine.
func (s *searchScreen) run() {
	o := s.options()
	if len(queryTerms(o.Query)) == 0 && len([]rune(o.Query)) < 2 {
		s.groups, s.passages, s.searched, s.more = nil, 0, "", false
		s.showMore.Hide()
		s.list.Refresh()
		s.showHint()
		s.summary.SetText("")
		return
	}
	s.seq++
	seq := s.seq
	s.summary.SetText("Searching…")
	load(s.u, "search", func(ctx context.Context) (*recall.Result, error) {
		return s.recall(ctx, o)
	}, func(res *recall.Result) {
		if seq != s.seq {
			return
		}
		s.show(o, res)
	})
}

// recall runs a search and finds the secrets of everything its results
// show, off the UI goroutine.
func (s *searchScreen) recall(ctx context.Context, o recall.Options) (*recall.Result, error) {
	res, err := recall.Recall(ctx, s.u.mem, o)
	if err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		s.findWorkdir(ctx, h)
		s.u.secrets.warm(ctx, h.Title, h.Text, projectsText(h.Projects))
		for _, n := range h.Neighbors {
			s.u.secrets.warm(ctx, n.Text)
		}
	}
	return res, nil
}

// findWorkdir looks up the folder of a hit's conversation when the hit is
// a tool call on a path (one turn read, once per conversation).
//
// A passage that reads like a slice of JSON (a long call's input, cut by
// recall's window) is looked up too: when its turn's block is a tool
// call, the row says what the call did, as the transcript folds it.
func (s *searchScreen) findWorkdir(ctx context.Context, h recall.Hit) {
	id := h.Source + ":" + h.SessionID
	_, known := s.workdirs.Load(id)
	onPath := !known && strings.Contains(toolLine(h.Text, ""), "/")
	slice := !strings.HasPrefix(strings.TrimSpace(h.Text), "{") && jsonSlice.MatchString(h.Text)
	if !onPath && !slice {
		return
	}
	tr, err := conversations.Get(ctx, s.u.mem, conversations.GetOptions{SessionID: id, TurnUUID: h.TurnUUID, Window: 1})
	if err != nil {
		return
	}
	s.workdirs.Store(id, tr.Session.Workdir)
	if !slice {
		return
	}
	for _, turn := range tr.Turns {
		if turn.Seq != h.Seq {
			continue
		}
		if i := passageBlock(turn, h.Text); i >= 0 && turn.Blocks[i].Type == funes.BlockToolUse {
			one := funes.Turn{Role: turn.Role, Blocks: []funes.Block{turn.Blocks[i]}}
			s.callLines.Store(fmt.Sprintf("%s:%d", id, h.Seq), s.u.turnLine(one, tr.Session.Workdir))
		}
	}
}

// jsonSlice finds what a slice of a JSON object holds: a key and its
// string value, or an escaped line break.
var jsonSlice = regexp.MustCompile(`"[a-z_]+"\s*:\s*"|\\n|\\"`)

// workdir is the folder of a hit's conversation, if known.
func (s *searchScreen) workdir(h recall.Hit) string {
	if v, ok := s.workdirs.Load(h.Source + ":" + h.SessionID); ok {
		return v.(string)
	}
	return ""
}

// nextPage asks recall for the passages after those shown and adds them:
// to their conversation's row when it is listed, as new rows otherwise.
func (s *searchScreen) nextPage() {
	if !s.more {
		return
	}
	o := s.opts
	o.Offset = s.passages
	s.seq++
	seq := s.seq
	s.showMore.Disable()
	load(s.u, "search", func(ctx context.Context) (*recall.Result, error) {
		return s.recall(ctx, o)
	}, func(res *recall.Result) {
		s.showMore.Enable()
		if seq != s.seq {
			return
		}
		s.add(res.Hits)
		s.more = len(res.Hits) == searchK
		s.list.Refresh()
		s.setSummary()
		if s.selected >= 0 {
			s.showDetail()
		}
	})
}

// show puts a result on screen and selects its first conversation.
func (s *searchScreen) show(o recall.Options, res *recall.Result) {
	s.opts, s.searched, s.navigated = o, o.Query, false
	s.terms = queryTerms(o.Query)
	s.groups, s.passages = nil, 0
	s.add(res.Hits)
	s.more = len(res.Hits) == searchK
	s.selected = -1
	s.list.UnselectAll()
	s.list.Refresh()
	s.list.ScrollToTop()
	s.setSummary()
	if len(s.groups) == 0 {
		s.showEmpty(o.Query)
		return
	}
	s.list.Select(0)
}

// add groups hits by conversation, keeping the conversations in the order
// of their best passage.
func (s *searchScreen) add(hits []recall.Hit) {
	for _, h := range hits {
		s.passages++
		placed := false
		for i := range s.groups {
			if b := s.groups[i].best(); b.Source == h.Source && b.SessionID == h.SessionID {
				s.groups[i].hits = append(s.groups[i].hits, h)
				placed = true
				break
			}
		}
		if !placed {
			s.groups = append(s.groups, hitGroup{hits: []recall.Hit{h}})
		}
	}
}

func (s *searchScreen) setSummary() {
	if s.more {
		s.showMore.Show()
	} else {
		s.showMore.Hide()
	}
	if len(s.groups) == 0 {
		s.summary.SetText("No results")
		return
	}
	more := ""
	if s.more {
		more = ", more below"
	}
	s.summary.SetText(fmt.Sprintf("%s, %s%s", plural(len(s.groups), "conversation", "conversations"),
		plural(s.passages, "passage", "passages"), more))
}

// move selects the result delta places away.
func (s *searchScreen) move(delta int) {
	n := s.length()
	if n == 0 {
		return
	}
	i := min(max(s.selected+delta, 0), n-1)
	if s.selected < 0 {
		i = 0
	}
	s.navigated = true
	s.list.Select(i)
	s.list.ScrollTo(i)
}

func (s *searchScreen) length() int { return len(s.groups) }

func (s *searchScreen) group(i int) (hitGroup, bool) {
	if i < 0 || i >= len(s.groups) {
		return hitGroup{}, false
	}
	return s.groups[i], true
}

// hit is the best passage of the i-th conversation.
func (s *searchScreen) hit(i int) (recall.Hit, bool) {
	g, ok := s.group(i)
	if !ok {
		return recall.Hit{}, false
	}
	return g.best(), true
}

// A row: the title, a date · source · project line, and the conversation's
// two best passages, each cut with an ellipsis.
func (s *searchScreen) createRow() fyne.CanvasObject {
	title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Truncation = fyne.TextTruncateEllipsis
	meta := newMuted("")
	meta.Truncation = fyne.TextTruncateEllipsis
	return container.NewVBox(title, meta, newSnippet(), newSnippet())
}

func (s *searchScreen) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	g, ok := s.group(id)
	if !ok {
		return
	}
	h := g.best()
	box := o.(*fyne.Container)
	setBoldText(box.Objects[0].(*widget.Label), s.u.secrets.mask(hitTitle(h)))
	setMuted(box.Objects[1].(*widget.RichText), s.rowMeta(g))
	for i, obj := range box.Objects[2:] {
		var segs []widget.RichTextSegment
		if i < len(g.hits) {
			h := g.hits[i]
			// Masked before it is cut: a cut must not leave half a secret.
			line := s.u.passageLine(h.Role, h.Text, s.workdir(h))
			if l, ok := s.callLines.Load(fmt.Sprintf("%s:%s:%d", h.Source, h.SessionID, h.Seq)); ok {
				line = l.(string)
			}
			segs = highlight(clip(roleName(h.Role)+": "+line, 300), s.terms, inlineStyle())
		}
		obj.(*snippet).set(segs)
	}
}

// rowMeta is a result row's second line.
func (s *searchScreen) rowMeta(g hitGroup) string {
	h := g.best()
	return fmt.Sprintf("%s · %s · %s · %s", day(h.TS), sourceName(h.Source), s.u.secrets.mask(projectsText(h.Projects)),
		plural(len(g.hits), "passage", "passages"))
}

func hitTitle(h recall.Hit) string {
	if h.Title != "" {
		return h.Title
	}
	return "Untitled conversation"
}

// showDetail shows the selected conversation's passages in full, each
// between its neighbours, with a button that opens the conversation there.
// The passages show from recall's text at once, and as the transcript
// shows them (tool calls folded into what they did) once the
// conversation's turns are read, off the UI goroutine.
func (s *searchScreen) showDetail() {
	g, ok := s.group(s.selected)
	if !ok {
		s.open.Disable()
		return
	}
	s.open.Enable()
	h := g.best()
	id := h.Source + ":" + h.SessionID
	if s.turns == nil || s.turns.Session.Source+":"+s.turns.Session.SessionID != id {
		s.turns = nil
		if tr := s.u.turnCache.get(id); tr != nil {
			s.turns = tr
		} else {
			s.readTurns(id)
		}
	}
	s.drawDetail(g)
	s.dscroll.ScrollToTop()
}

// readTurns reads a conversation's turns for the detail pane and draws it
// again with them, if it is still the one selected.
func (s *searchScreen) readTurns(id string) {
	s.detailSeq++
	seq := s.detailSeq
	secrets := s.u.secrets
	s.u.goBackground(func(ctx context.Context) {
		tr, err := conversations.Get(ctx, s.u.mem, conversations.GetOptions{SessionID: id})
		if err != nil {
			return // the passages stay as recall gave them
		}
		warmTurns(ctx, secrets, tr.Turns)
		fyneDo(func() {
			s.u.turnCache.put(id, tr)
			g, ok := s.group(s.selected)
			if seq != s.detailSeq || !ok || g.best().Source+":"+g.best().SessionID != id {
				return
			}
			s.turns = tr
			y := s.dscroll.Offset
			s.drawDetail(g)
			s.dscroll.ScrollToOffset(y)
		})
	})
}

// drawDetail lays the detail pane out for a conversation's passages.
func (s *searchScreen) drawDetail(g hitGroup) {
	h := g.best()
	shownTitle := s.u.secrets.mask(hitTitle(h))
	title := widget.NewLabelWithStyle(shownTitle, fyne.TextAlignLeading, boldStyle(shownTitle))
	title.Wrapping = fyne.TextWrapWord
	meta := newMuted(fmt.Sprintf("%s · %s · %s", sourceName(h.Source), s.u.secrets.mask(projectsText(h.Projects)),
		plural(len(g.hits), "passage", "passages")+" found"))
	meta.Wrapping = fyne.TextWrapWord
	objs := []fyne.CanvasObject{title, meta}
	seen := map[string]bool{}
	// A neighbour that is itself a passage here, or beside the passage
	// before it, shows once: in full as its passage, or on the first line.
	shown := map[int]bool{}
	for _, h := range g.hits {
		shown[h.Seq] = true
	}
	var views []fyne.CanvasObject
	for _, h := range g.hits {
		views = append(views, widget.NewSeparator(), s.passageView(h, seen, shown))
	}
	if len(seen) > 0 {
		s.notice.Objects[0].(*widget.Label).SetText(scrubNote(len(seen)))
		objs = append(objs, s.notice)
	}
	s.detail.Objects = append(objs, views...)
	s.detail.Refresh()
}

// turnOf is the read conversation's turn of a passage, or nil.
func (s *searchScreen) turnOf(source, sessionID string, seq int) *funes.Turn {
	tr := s.turns
	if tr == nil || tr.Session.Source != source || tr.Session.SessionID != sessionID {
		return nil
	}
	for i := range tr.Turns {
		if tr.Turns[i].Seq == seq {
			return &tr.Turns[i]
		}
	}
	return nil
}

// secretMarks are a text's secrets for the detail pane, counted in seen.
func (s *searchScreen) secretMarks(seen map[string]bool, texts ...string) *secretMarks {
	var vals []string
	for _, t := range texts {
		vals = appendNew(vals, s.u.secrets.values(t))
	}
	if len(vals) == 0 {
		return nil
	}
	for _, v := range vals {
		seen[v] = true
	}
	return &secretMarks{values: vals, revealed: s.revealed, toggle: func(v string) {
		s.revealed[v] = !s.revealed[v]
		if g, ok := s.group(s.selected); ok {
			y := s.dscroll.Offset
			s.drawDetail(g)
			s.dscroll.ScrollToOffset(y)
		}
	}}
}

// passageView is one passage with the turns around it.
func (s *searchScreen) passageView(h recall.Hit, seen map[string]bool, shown map[int]bool) fyne.CanvasObject {
	workdir := ""
	if s.turns != nil {
		workdir = s.turns.Session.Workdir
	}
	var objs []fyne.CanvasObject
	for _, n := range h.Neighbors {
		if n.Seq < h.Seq && !shown[n.Seq] {
			shown[n.Seq] = true
			objs = append(objs, s.neighbourView(h, n, workdir))
		}
	}
	head := widget.NewRichText(
		&widget.TextSegment{Text: roleName(h.Role), Style: strongInline()},
		&widget.TextSegment{Text: fmt.Sprintf("   %s   turn %d", stamp(h.TS), h.Seq+1), Style: mutedInline()},
	)
	openHere := widget.NewButtonWithIcon("Open here", theme.NavigateNextIcon(), func() { s.openHit(h) })
	openHere.Importance = widget.LowImportance
	var passage fyne.CanvasObject
	turn := s.turnOf(h.Source, h.SessionID, h.Seq)
	bi := -1
	if turn != nil {
		bi = passageBlock(*turn, h.Text)
	}
	switch {
	case bi >= 0 && turn.Blocks[bi].Type != funes.BlockText && turn.Blocks[bi].Type != "":
		// A tool call, its result or thinking: as the transcript folds it,
		// open, with the query's words marked.
		b := turn.Blocks[bi]
		mk := &marker{terms: s.terms, cur: -1, secrets: s.secretMarks(seen, b.Text, prettyInput(b.Text))}
		passage = blockView(h.Role, workdir, b, mk, true)
	case plumbingKind(h.Role, h.Text) != plumbing.Said:
		// Ireneo's own output or a harness note: one line, open on demand.
		text := h.Text
		k := plumbingKind(h.Role, text)
		mk := &marker{terms: s.terms, cur: -1, secrets: s.secretMarks(seen, text)}
		passage = newFold(capitalise(k.Label())+": "+plumbingPreview(mk.masked(text)), func() fyne.CanvasObject {
			return codeView(text, mk)
		})
	case toolLine(h.Text, workdir) != "":
		// A call whose turn is not read (yet): its folded line.
		mk := &marker{terms: s.terms, cur: -1, secrets: s.secretMarks(seen, h.Text)}
		text := h.Text
		passage = newFold(toolLine(mk.masked(text), workdir), func() fyne.CanvasObject { return codeView(prettyInput(text), mk) })
	default:
		passage = markdownView(h.Text, &marker{terms: s.terms, cur: -1, secrets: s.secretMarks(seen, h.Text)})
	}
	objs = append(objs, container.NewBorder(nil, nil, nil, openHere, head), passage)
	// The turn's tool calls beside the passage, folded as the transcript
	// folds them, so a turn shown as a passage still says what it did.
	if turn != nil {
		for i, b := range turn.Blocks {
			if i != bi && b.Text != h.Text && (b.Type == funes.BlockToolUse || b.Type == funes.BlockToolResult) {
				mk := &marker{terms: s.terms, cur: -1, secrets: s.secretMarks(seen, b.Text, prettyInput(b.Text))}
				objs = append(objs, blockView(h.Role, workdir, b, mk, false))
			}
		}
	}
	if h.Truncated {
		objs = append(objs, newMuted("(passage shortened; open the conversation for all of it)"))
	}
	for _, n := range h.Neighbors {
		if n.Seq > h.Seq && !shown[n.Seq] {
			shown[n.Seq] = true
			objs = append(objs, s.neighbourView(h, n, workdir))
		}
	}
	return container.NewVBox(objs...)
}

// neighbourChars is how much of a neighbour turn the detail shows: about
// three lines at 900 points, context that does not outweigh its passage.
const neighbourChars = 240

// neighbourView is a turn before or after a hit, quieter than the hit, on
// one line: from its blocks once read (tool calls as what they did),
// else from recall's preview. Plumbing shows as its label.
func (s *searchScreen) neighbourView(h recall.Hit, n recall.Neighbor, workdir string) fyne.CanvasObject {
	var line string
	if turn := s.turnOf(h.Source, h.SessionID, n.Seq); turn != nil {
		line = s.u.turnLine(*turn, workdir)
	} else {
		line = s.u.passageLine(n.Role, n.Text, workdir)
	}
	// One segment: Fyne moves a segment that would fit a line of its own
	// whole to the next line, so a bold label before it left its line
	// half empty.
	style := widget.RichTextStyleParagraph
	style.TextStyle.Italic = true
	style.ColorName = theme.ColorNamePlaceHolder
	rt := widget.NewRichText(&widget.TextSegment{Text: roleName(n.Role) + ", turn " + fmt.Sprint(n.Seq+1) + ": " + clip(line, neighbourChars), Style: style})
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

func roleName(r string) string {
	switch r {
	case funes.RoleUser:
		return "You"
	case funes.RoleAssistant:
		return "Assistant"
	case funes.RoleSystem:
		return "System"
	case funes.RoleTool:
		return "Tool"
	}
	return r
}

// showHint fills the detail pane before a search: how to search, or, on a
// memory with nothing in it yet, what to do first.
func (s *searchScreen) showHint() {
	if s.empty {
		s.detail.Objects = firstRunHelp(s.u, "Nothing to search.")
	} else {
		hint := widget.NewLabel("Search everything you have discussed with " + sourcesInWords() + ".\n\n" +
			"Short queries work best: an identifier (MT-4471, P-003), a name, or two or three key nouns. " +
			"Press Enter to search, the arrow keys to move through the results, and Enter again to open one.")
		hint.Wrapping = fyne.TextWrapWord
		s.detail.Objects = []fyne.CanvasObject{hint}
	}
	s.detail.Refresh()
	s.open.Disable()
}

// showEmpty says what to try when nothing was found, naming the filters
// only when some are set.
func (s *searchScreen) showEmpty(query string) {
	if s.empty {
		s.detail.Objects = firstRunHelp(s.u, fmt.Sprintf("Nothing found for “%s”.", query))
		s.detail.Refresh()
		s.open.Disable()
		return
	}
	tips := "Try other words, fewer words, or an identifier."
	var set []string
	if c := s.project.cur; c != (projectChoice{}) {
		set = append(set, "the project ("+s.project.sel.Selected+")")
	}
	if s.source.Selected != anySource {
		set = append(set, "the source ("+s.source.Selected+")")
	}
	if s.when.Selected != anyTime {
		set = append(set, "the date ("+s.when.Selected+")")
	}
	if len(set) > 0 {
		tips += " The search is narrowed by " + strings.Join(set, ", ") + ": widen it to look everywhere."
	}
	msg := widget.NewLabel(fmt.Sprintf("Nothing found for “%s”.\n\n%s", query, tips))
	msg.Wrapping = fyne.TextWrapWord
	s.detail.Objects = []fyne.CanvasObject{msg}
	s.detail.Refresh()
	s.open.Disable()
}

// openSelected shows the selected conversation at its best passage.
func (s *searchScreen) openSelected() {
	if h, ok := s.hit(s.selected); ok {
		s.openHit(h)
	}
}

// openHit opens a passage's conversation, scrolled to it, with the
// passage and the query's words marked.
func (s *searchScreen) openHit(h recall.Hit) {
	s.u.openConversationAt(h.Source+":"+h.SessionID, transcriptMark{turnUUID: h.TurnUUID, passage: h.Text, terms: s.terms}, h.Title)
}

// refreshFilters reloads the project list, and whether the memory is empty.
func (s *searchScreen) refreshFilters() {
	type lists struct {
		ps       []answer.ProjectCount
		untagged int
		empty    bool
	}
	load(s.u, "list projects", func(ctx context.Context) (lists, error) {
		var l lists
		var err error
		if l.ps, l.untagged, err = conversations.Projects(ctx, s.u.mem, nil); err != nil {
			return l, err
		}
		st, err := s.u.mem.Status(ctx)
		l.empty = st.Conversations == 0
		return l, err
	}, func(l lists) {
		s.project.set(l.ps, l.untagged)
		if l.empty != s.empty {
			s.empty = l.empty
			if s.searched == "" {
				s.showHint()
			}
		}
	})
}

// snippet is one line of marked text cut with "…" at its width. Fyne's
// own ellipsis works on one segment; a line with marked words is several,
// and it clipped them without one.
type snippet struct {
	widget.RichText
	full  []widget.RichTextSegment
	width float32
}

func newSnippet() *snippet {
	s := &snippet{}
	s.Scroll = container.ScrollNone // the zero value scrolls both ways
	s.Truncation = fyne.TextTruncateClip
	s.ExtendBaseWidget(s)
	return s
}

func (s *snippet) set(segs []widget.RichTextSegment) {
	s.full = segs
	s.fit()
}

// Resize cuts the line again for its new width.
func (s *snippet) Resize(size fyne.Size) {
	s.RichText.Resize(size)
	if size.Width != s.width {
		s.width = size.Width
		s.fit()
	}
}

func (s *snippet) fit() {
	avail := s.width - 2*theme.InnerPadding()
	var out []widget.RichTextSegment
	used := float32(0)
	for _, seg := range s.fromFirstMark(avail) {
		ts, ok := seg.(*widget.TextSegment)
		if !ok {
			continue
		}
		size := theme.TextSize()
		w := fyne.MeasureText(ts.Text, size, ts.Style.TextStyle).Width
		if s.width <= 0 || used+w <= avail {
			out = append(out, ts)
			used += w
			continue
		}
		// Cut this segment to what fits with the ellipsis, and stop.
		ell := fyne.MeasureText("…", size, ts.Style.TextStyle).Width
		r := []rune(ts.Text)
		lo, hi := 0, len(r)
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if used+fyne.MeasureText(string(r[:mid]), size, ts.Style.TextStyle).Width+ell <= avail {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		out = append(out, &widget.TextSegment{Text: strings.TrimRight(string(r[:lo]), " ") + "…", Style: ts.Style})
		break
	}
	if len(out) == 0 {
		out = []widget.RichTextSegment{&widget.TextSegment{Style: inlineStyle()}}
	}
	s.Segments = out
	s.Refresh()
}

// fromFirstMark is the line's segments with the words before its first
// marked word shortened from the left ("You: …words marked"), when the
// mark would otherwise fall past the line's end: a row shows why it
// matched (CJK text, with no spaces to break at, hid it).
func (s *snippet) fromFirstMark(avail float32) []widget.RichTextSegment {
	if s.width <= 0 || len(s.full) < 2 {
		return s.full
	}
	size := theme.TextSize()
	width := func(seg widget.RichTextSegment) float32 {
		ts, ok := seg.(*widget.TextSegment)
		if !ok {
			return 0
		}
		return fyne.MeasureText(ts.Text, size, ts.Style.TextStyle).Width
	}
	k, before := -1, float32(0)
	for i, seg := range s.full {
		if ts, ok := seg.(*widget.TextSegment); ok && ts.Style.ColorName == theme.ColorNamePrimary {
			k = i
			break
		}
		before += width(seg)
	}
	if k < 1 || before+width(s.full[k]) <= avail {
		return s.full
	}
	var prefix strings.Builder
	for _, seg := range s.full[:k] {
		if ts, ok := seg.(*widget.TextSegment); ok {
			prefix.WriteString(ts.Text)
		}
	}
	first, ok := s.full[0].(*widget.TextSegment)
	if !ok {
		return s.full
	}
	head, rest := "", prefix.String()
	if i := strings.Index(rest, ": "); i >= 0 && i < 20 {
		head, rest = rest[:i+2], rest[i+2:]
	}
	// Keep as much of the words before the mark as leaves the mark and a
	// third of the line after it.
	room := avail*2/3 - width(s.full[k])
	r := []rune(rest)
	fits := func(from int) bool {
		return fyne.MeasureText(head+"…"+string(r[from:]), size, first.Style.TextStyle).Width <= room
	}
	lo, hi := 0, len(r) // the first rune kept: the least from that fits
	for lo < hi {
		if mid := (lo + hi) / 2; fits(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo == 0 || lo == len(r) && !fits(lo) {
		return s.full
	}
	// Start at a word where there are words (not in CJK, which has no spaces).
	for i := lo; i < len(r) && i < lo+20; i++ {
		if r[i] == ' ' {
			lo = i + 1
			break
		}
	}
	out := []widget.RichTextSegment{&widget.TextSegment{Text: head + "…" + strings.TrimLeft(string(r[lo:]), " "), Style: first.Style}}
	return append(out, s.full[k:]...)
}

// plumbingKind is the kind of a turn's preview that is plumbing through
// and through, else plumbing.Said. A preview does not say which block it
// came from: it is read as a tool's result (Ireneo's answers are known by
// their content), then as a message (harness wrappers).
func plumbingKind(role, text string) plumbing.Kind {
	for _, bt := range []string{funes.BlockToolResult, funes.BlockText} {
		if k := wholeKind(plumbing.Classify(role, bt, "", text), text); k != plumbing.Said {
			return k
		}
	}
	return plumbing.Said
}

// wholeKind is the kind of spans that hold no words of anyone's own.
func wholeKind(spans []plumbing.Span, text string) plumbing.Kind {
	if len(spans) == 0 {
		return plumbing.Said
	}
	for _, sp := range spans {
		if sp.Kind == plumbing.Said && strings.TrimSpace(text[sp.Start:sp.End]) != "" {
			return plumbing.Said
		}
	}
	return spans[0].Kind
}
