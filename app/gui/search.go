package gui

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/memory"
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

	query   *searchEntry
	project *widget.Select
	source  *widget.Select
	when    *widget.Select
	summary *widget.Label
	list    *widget.List
	detail  *fyne.Container
	open    *widget.Button

	res      *recall.Result
	terms    []string
	selected int
	// searched is the query of the results shown; navigated says the
	// arrow keys moved since, so Enter opens rather than searches again.
	searched  string
	navigated bool
	seq       int // drops results of searches overtaken by newer ones
}

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
	s := &searchScreen{u: u, selected: -1}
	s.query = newSearchEntry()
	s.query.SetPlaceHolder("Search your conversations: an identifier like MT-4471, or a few key words")
	s.query.OnSubmitted = func(string) { s.submit() }
	s.query.OnChanged = func(string) { s.navigated = false }
	s.query.onMove = s.move
	s.project = newSelect([]string{anyProject}, anyProject, func(string) { s.rerun() })
	s.source = newSelect(sourceOptions(), anySource, func(string) { s.rerun() })
	s.when = newSelect(dateOptions, anyTime, func(string) { s.rerun() })
	s.summary = widget.NewLabel("")
	s.open = widget.NewButtonWithIcon("Open conversation", theme.DocumentIcon(), s.openSelected)
	s.open.Importance = widget.HighImportance
	s.open.Disable()

	s.list = widget.NewList(s.length, s.createRow, s.updateRow)
	s.list.OnSelected = func(id widget.ListItemID) {
		s.selected = id
		s.showDetail()
	}
	s.detail = container.NewVBox()
	s.showHint()
	return s
}

func (s *searchScreen) content() fyne.CanvasObject {
	searchBtn := widget.NewButtonWithIcon("Search", theme.SearchIcon(), s.submit)
	top := container.NewBorder(nil, nil, nil, searchBtn, s.query)
	filters := container.NewHBox(s.project, s.source, s.when, layout.NewSpacer(), s.summary)
	right := container.NewBorder(nil, container.NewHBox(layout.NewSpacer(), s.open), nil, nil,
		container.NewVScroll(container.NewPadded(s.detail)))
	split := container.NewHSplit(s.list, right)
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
	if p := s.project.Selected; p != anyProject && p != "" {
		o.Project = projectOf(p)
	}
	o.Since = since(s.when.Selected, time.Now())
	return o
}

// run searches off the UI goroutine.
func (s *searchScreen) run() {
	o := s.options()
	if len(queryTerms(o.Query)) == 0 && len([]rune(o.Query)) < 2 {
		s.res, s.searched = nil, ""
		s.list.Refresh()
		s.showHint()
		s.summary.SetText("")
		return
	}
	s.seq++
	seq := s.seq
	s.summary.SetText("Searching…")
	load(s.u, "search", func(ctx context.Context) (*recall.Result, error) {
		return recall.Recall(ctx, s.u.mem, o)
	}, func(res *recall.Result) {
		if seq != s.seq {
			return
		}
		s.show(o.Query, res)
	})
}

// show puts a result on screen and selects its first hit.
func (s *searchScreen) show(query string, res *recall.Result) {
	s.res, s.searched, s.navigated = res, query, false
	s.terms = queryTerms(query)
	s.selected = -1
	s.list.UnselectAll()
	s.list.Refresh()
	s.list.ScrollToTop()
	switch n := len(res.Hits); n {
	case 0:
		s.summary.SetText("No results")
		s.showEmpty(query)
	default:
		s.summary.SetText(plural(n, "passage", "passages"))
		s.list.Select(0)
	}
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

func (s *searchScreen) length() int {
	if s.res == nil {
		return 0
	}
	return len(s.res.Hits)
}

func (s *searchScreen) hit(i int) (recall.Hit, bool) {
	if s.res == nil || i < 0 || i >= len(s.res.Hits) {
		return recall.Hit{}, false
	}
	return s.res.Hits[i], true
}

func (s *searchScreen) createRow() fyne.CanvasObject {
	head := widget.NewRichText()
	head.Truncation = fyne.TextTruncateEllipsis
	body := widget.NewRichText()
	body.Truncation = fyne.TextTruncateEllipsis
	return container.NewVBox(head, body)
}

func (s *searchScreen) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	h, ok := s.hit(id)
	if !ok {
		return
	}
	box := o.(*fyne.Container)
	head, body := box.Objects[0].(*widget.RichText), box.Objects[1].(*widget.RichText)
	title := widget.RichTextStyleStrong
	title.Inline = true
	meta := inlineStyle()
	meta.ColorName = theme.ColorNamePlaceHolder
	head.Segments = []widget.RichTextSegment{
		&widget.TextSegment{Text: hitTitle(h), Style: title},
		&widget.TextSegment{Text: "   " + memory.Day(h.TS) + " · " + sourceName(h.Source) + " · " + projectsText(h.Projects), Style: meta},
	}
	head.Refresh()
	body.Segments = highlight(clip(oneLine(h.Text), 300), s.terms, inlineStyle())
	body.Refresh()
}

func hitTitle(h recall.Hit) string {
	if h.Title != "" {
		return h.Title
	}
	return "Untitled conversation"
}

// showDetail shows the selected passage in full, between its neighbours.
func (s *searchScreen) showDetail() {
	h, ok := s.hit(s.selected)
	if !ok {
		s.open.Disable()
		return
	}
	s.open.Enable()
	title := widget.NewLabelWithStyle(hitTitle(h), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Wrapping = fyne.TextWrapWord
	meta := newMuted(fmt.Sprintf("%s · %s · %s · %s, turn %d", stamp(h.TS), sourceName(h.Source), projectsText(h.Projects), roleName(h.Role), h.Seq+1))
	meta.Wrapping = fyne.TextWrapWord
	objs := []fyne.CanvasObject{title, meta, widget.NewSeparator()}
	for _, n := range h.Neighbors {
		if n.Seq < h.Seq {
			objs = append(objs, neighbourView(n))
		}
	}
	passage := widget.NewRichText(highlight(h.Text, s.terms, widget.RichTextStyleParagraph)...)
	passage.Wrapping = fyne.TextWrapWord
	role := widget.NewLabelWithStyle(roleName(h.Role), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	objs = append(objs, role, passage)
	if h.Truncated {
		objs = append(objs, widget.NewLabel("(passage shortened; open the conversation for all of it)"))
	}
	for _, n := range h.Neighbors {
		if n.Seq > h.Seq {
			objs = append(objs, neighbourView(n))
		}
	}
	s.detail.Objects = objs
	s.detail.Refresh()
}

// neighbourView is a turn before or after a hit, quieter than the hit.
func neighbourView(n recall.Neighbor) fyne.CanvasObject {
	style := widget.RichTextStyleParagraph
	style.TextStyle.Italic = true
	style.ColorName = theme.ColorNamePlaceHolder
	label := widget.RichTextStyleParagraph
	label.TextStyle.Bold = true
	label.ColorName = theme.ColorNamePlaceHolder
	label.Inline = true
	rt := widget.NewRichText(
		&widget.TextSegment{Text: roleName(n.Role) + ", turn " + fmt.Sprint(n.Seq+1) + ": ", Style: label},
		&widget.TextSegment{Text: oneLine(n.Text), Style: style},
	)
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

func roleName(r string) string {
	switch r {
	case memory.RoleUser:
		return "You"
	case memory.RoleAssistant:
		return "Assistant"
	case memory.RoleSystem:
		return "System"
	case memory.RoleTool:
		return "Tool"
	}
	return r
}

func (s *searchScreen) showHint() {
	hint := widget.NewLabel("Search everything you have discussed with ChatGPT, Claude, Codex and Claude Code.\n\n" +
		"Short queries work best: an identifier (MT-4471, P-003), a name, or two or three key nouns. " +
		"Press Enter to search, the arrow keys to move through the results, and Enter again to open one.")
	hint.Wrapping = fyne.TextWrapWord
	s.detail.Objects = []fyne.CanvasObject{hint}
	s.detail.Refresh()
	s.open.Disable()
}

func (s *searchScreen) showEmpty(query string) {
	msg := widget.NewLabel(fmt.Sprintf("Nothing found for “%s”.\n\nTry other words, fewer words, or an identifier; "+
		"check the project, source and date filters; or import more history on the Import screen.", query))
	msg.Wrapping = fyne.TextWrapWord
	s.detail.Objects = []fyne.CanvasObject{msg}
	s.detail.Refresh()
	s.open.Disable()
}

// openSelected shows the selected hit's conversation, scrolled to its turn.
func (s *searchScreen) openSelected() {
	h, ok := s.hit(s.selected)
	if !ok {
		return
	}
	s.u.openConversation(h.Source+":"+h.SessionID, h.TurnUUID)
}

// refreshFilters reloads the project list.
func (s *searchScreen) refreshFilters() {
	loadProjects(s.u, s.project)
}

// loadProjects fills a project filter with the memory's projects and their
// counts, keeping the selection when it still exists.
func loadProjects(u *ui, sel *widget.Select) {
	load(u, "list projects", func(ctx context.Context) ([]memory.ProjectCount, error) {
		ps, _, err := u.mem.Projects(ctx, nil)
		return ps, err
	}, func(ps []memory.ProjectCount) {
		opts := []string{anyProject}
		keep := false
		for _, p := range ps {
			o := projectOption(p)
			opts = append(opts, o)
			if projectOf(o) == projectOf(sel.Selected) {
				keep = true
				sel.Selected = o
			}
		}
		sel.Options = opts
		if !keep {
			sel.Selected = anyProject
		}
		sel.Refresh()
	})
}

// projectOption is a project as a filter option: its name and count.
func projectOption(p memory.ProjectCount) string {
	return fmt.Sprintf("%s (%d)", p.Name, p.Count)
}

// projectOf takes the count off a project option.
func projectOf(option string) string {
	if option == anyProject {
		return ""
	}
	for i := len(option) - 1; i > 0; i-- {
		if option[i] == '(' && i > 0 && option[i-1] == ' ' {
			return option[:i-1]
		}
	}
	return option
}
