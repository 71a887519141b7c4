package gui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/memory"
)

// The conversations screen: every conversation, filtered and sorted, and
// the selected one's transcript with its actions (star, tag, untag, rename
// a project, forget).

const untaggedOption = "Untagged"

// Sort orders, as offered and as memory.SessionQuery spells them.
var sortOrders = []struct {
	name, key string
	asc       bool
}{
	{"Newest first", "updated", false},
	{"Oldest first", "started", true},
	{"Title A–Z", "title", true},
	{"Most turns", "turns", false},
	{"By source", "source", true},
}

// convPage is how many conversations the list loads at a time.
const convPage = 500

type conversationsScreen struct {
	u *ui

	query    *widget.Entry
	project  *widget.Select
	source   *widget.Select
	when     *widget.Select
	starred  *widget.Check
	order    *widget.Select
	count    *widget.Label
	list     *widget.List
	showMore *widget.Button
	rename   *widget.Button

	star, tag, untag, forget *widget.Button
	tv                       *transcriptView

	items    []memory.SessionInfo
	total    int
	limit    int
	untagged int
	current  *memory.SessionInfo // the conversation in the transcript view
	seq      int
}

func newConversationsScreen(u *ui) *conversationsScreen {
	c := &conversationsScreen{u: u, limit: convPage}
	c.query = widget.NewEntry()
	c.query.SetPlaceHolder("Filter by words")
	c.query.OnSubmitted = func(string) { c.refresh() }
	c.project = newSelect([]string{anyProject}, anyProject, func(string) { c.filterChanged() })
	c.source = newSelect(sourceOptions(), anySource, func(string) { c.filterChanged() })
	c.when = newSelect(dateOptions, anyTime, func(string) { c.filterChanged() })
	c.starred = widget.NewCheck("Starred", func(bool) { c.filterChanged() })
	var names []string
	for _, o := range sortOrders {
		names = append(names, o.name)
	}
	c.order = newSelect(names, sortOrders[0].name, func(string) { c.filterChanged() })
	c.count = widget.NewLabel("")
	c.rename = widget.NewButtonWithIcon("Rename project…", theme.DocumentCreateIcon(), c.renameProject)
	c.rename.Disable()
	c.showMore = widget.NewButton("Show more", func() { c.limit += convPage; c.refresh() })
	c.showMore.Hide()

	c.list = widget.NewList(func() int { return len(c.items) }, c.createRow, c.updateRow)
	c.list.OnSelected = func(id widget.ListItemID) {
		if id >= 0 && id < len(c.items) {
			c.open(c.items[id].Source+":"+c.items[id].SessionID, "")
		}
	}

	c.tv = newTranscriptView(u)
	c.star = widget.NewButtonWithIcon("Star", starIcon, c.toggleStar)
	c.tag = widget.NewButtonWithIcon("Tag…", theme.ContentAddIcon(), c.tagDialog)
	c.untag = widget.NewButtonWithIcon("Untag…", theme.ContentRemoveIcon(), c.untagDialog)
	c.forget = widget.NewButtonWithIcon("Forget…", theme.DeleteIcon(), c.forgetCurrent)
	c.forget.Importance = widget.DangerImportance
	c.setActions()
	return c
}

func (c *conversationsScreen) content() fyne.CanvasObject {
	filters := container.NewVBox(
		container.NewBorder(nil, nil, nil, widget.NewButtonWithIcon("", theme.SearchIcon(), c.refresh), c.query),
		container.NewGridWithColumns(2, c.project, c.source, c.when, c.order),
		container.NewBorder(nil, nil, c.starred, c.rename, c.count),
	)
	left := container.NewBorder(filters, c.showMore, nil, nil, c.list)
	actions := container.NewHBox(c.star, c.tag, c.untag, c.forget)
	right := container.NewBorder(actions, nil, nil, nil, c.tv.content())
	split := container.NewHSplit(left, right)
	split.Offset = 0.38
	return split
}

func (c *conversationsScreen) filterChanged() {
	c.limit = convPage
	c.rename.Disable()
	if p := projectOf(c.project.Selected); p != "" && p != untaggedOption {
		c.rename.Enable()
	}
	c.refresh()
}

func (c *conversationsScreen) sessionQuery() memory.SessionQuery {
	q := memory.SessionQuery{Query: c.query.Text, Source: sourceID(c.source.Selected), Starred: c.starred.Checked, Limit: c.limit}
	switch p := projectOf(c.project.Selected); {
	case strings.HasPrefix(c.project.Selected, untaggedOption+" ("):
		q.Untagged = true
	case p != "":
		q.Project = p
	}
	q.Since = since(c.when.Selected, timeNow())
	for _, o := range sortOrders {
		if o.name == c.order.Selected {
			q.Sort, q.Asc = o.key, o.asc
		}
	}
	return q
}

type convPageResult struct {
	items    []memory.SessionInfo
	total    int
	projects []memory.ProjectCount
	untagged int
}

// refresh reloads the list and the project filter off the UI goroutine.
func (c *conversationsScreen) refresh() {
	q := c.sessionQuery()
	c.seq++
	seq := c.seq
	load(c.u, "list conversations", func(ctx context.Context) (convPageResult, error) {
		var r convPageResult
		var err error
		if r.items, r.total, err = c.u.mem.Sessions(ctx, q); err != nil {
			return r, err
		}
		r.projects, r.untagged, err = c.u.mem.Projects(ctx, nil)
		return r, err
	}, func(r convPageResult) {
		if seq != c.seq {
			return
		}
		c.items, c.total, c.untagged = r.items, r.total, r.untagged
		c.setProjects(r.projects)
		c.list.UnselectAll()
		c.list.Refresh()
		shown := len(c.items)
		if shown < c.total {
			c.count.SetText(fmt.Sprintf("%d of %d conversations", shown, c.total))
			c.showMore.Show()
		} else {
			c.count.SetText(plural(c.total, "conversation", "conversations"))
			c.showMore.Hide()
		}
		// Keep the open conversation's details current (a tag, a star).
		if c.current != nil {
			for _, it := range c.items {
				if it.Source == c.current.Source && it.SessionID == c.current.SessionID {
					cur := it
					c.current = &cur
				}
			}
			c.setActions()
		}
	})
}

// setProjects refreshes the project filter: every project with its count,
// and the untagged conversations.
func (c *conversationsScreen) setProjects(ps []memory.ProjectCount) {
	opts := []string{anyProject, fmt.Sprintf("%s (%d)", untaggedOption, c.untagged)}
	sel := c.project.Selected
	keep := sel == anyProject
	for _, p := range ps {
		o := projectOption(p)
		opts = append(opts, o)
		if projectOf(o) == projectOf(sel) {
			sel, keep = o, true
		}
	}
	if strings.HasPrefix(sel, untaggedOption+" (") {
		sel, keep = opts[1], true
	}
	if !keep {
		sel = anyProject
	}
	c.project.Options = opts
	c.project.Selected = sel
	c.project.Refresh()
}

// projects lists the project names in the filter, for the tag dialogs.
func (c *conversationsScreen) projects() []string {
	var out []string
	for _, o := range c.project.Options[min(2, len(c.project.Options)):] {
		out = append(out, projectOf(o))
	}
	return out
}

func (c *conversationsScreen) createRow() fyne.CanvasObject {
	icon := widget.NewIcon(nil)
	title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Truncation = fyne.TextTruncateEllipsis
	meta := newMuted("")
	meta.Truncation = fyne.TextTruncateEllipsis
	return container.NewBorder(nil, nil, icon, nil, container.NewVBox(title, meta))
}

func (c *conversationsScreen) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id >= len(c.items) {
		return
	}
	it := c.items[id]
	b := o.(*fyne.Container)
	text := b.Objects[0].(*fyne.Container)
	var icon *widget.Icon
	for _, obj := range b.Objects {
		if i, ok := obj.(*widget.Icon); ok {
			icon = i
		}
	}
	if it.Starred {
		icon.SetResource(starredIcon)
	} else {
		icon.SetResource(nil)
	}
	text.Objects[0].(*widget.Label).SetText(titleOf(it))
	setMuted(text.Objects[1].(*widget.RichText), fmt.Sprintf("%s · %s · %s · %s", memory.Day(it.Updated), sourceName(it.Source),
		projectsText(it.Projects), plural(it.Turns, "turn", "turns")))
}

// open shows a conversation ("harness:id") scrolled to a turn ("" for the
// start).
func (c *conversationsScreen) open(id, turnUUID string) {
	load(c.u, "open the conversation", func(ctx context.Context) (*memory.Transcript, error) {
		return c.u.mem.Get(ctx, memory.GetOptions{SessionID: id})
	}, func(tr *memory.Transcript) {
		info := tr.Session
		c.current = &info
		c.setActions()
		c.tv.show(tr, turnUUID)
	})
}

// setActions enables the actions that apply to the open conversation.
func (c *conversationsScreen) setActions() {
	btns := []*widget.Button{c.star, c.tag, c.untag, c.forget}
	if c.current == nil {
		for _, b := range btns {
			b.Disable()
		}
		return
	}
	for _, b := range btns {
		b.Enable()
	}
	if c.current.Starred {
		c.star.SetText("Unstar")
	} else {
		c.star.SetText("Star")
	}
	if len(c.current.Projects) == 0 {
		c.untag.Disable()
	}
}

func (c *conversationsScreen) currentID() string {
	return c.current.Source + ":" + c.current.SessionID
}

// afterEdit reloads what an edit to the open conversation changed.
func (c *conversationsScreen) afterEdit() {
	c.refresh()
	c.u.search.refreshFilters()
	c.u.forget.refreshFilters()
	if c.current != nil {
		id, turn := c.currentID(), ""
		if c.tv.focus >= 0 && c.tv.tr != nil {
			turn = c.tv.tr.Turns[c.tv.focus].TurnUUID
		}
		c.open(id, turn)
	}
}

func (c *conversationsScreen) toggleStar() {
	if c.current == nil {
		return
	}
	id, on := c.currentID(), !c.current.Starred
	load(c.u, "star the conversation", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.u.mem.Star(ctx, id, on)
	}, func(struct{}) { c.afterEdit() })
}

// tagDialog asks for a project to tag the open conversation with.
func (c *conversationsScreen) tagDialog() {
	if c.current == nil {
		return
	}
	c.u.askText("Tag “"+clip(titleOf(*c.current), 40)+"”", "Project", "Tag", "", c.projects(), c.tagWith)
}

// tagWith tags the open conversation with a project.
func (c *conversationsScreen) tagWith(project string) {
	if c.current == nil || strings.TrimSpace(project) == "" {
		return
	}
	id := c.currentID()
	load(c.u, "tag the conversation", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.u.mem.Tag(ctx, id, project)
	}, func(struct{}) { c.afterEdit() })
}

// untagDialog asks which of its projects to take off the open conversation.
func (c *conversationsScreen) untagDialog() {
	if c.current == nil || len(c.current.Projects) == 0 {
		return
	}
	sel := widget.NewSelect(c.current.Projects, nil)
	sel.SetSelectedIndex(0)
	items := []*widget.FormItem{widget.NewFormItem("Project", sel)}
	dialog.ShowForm("Untag “"+clip(titleOf(*c.current), 40)+"”", "Untag", "Cancel", items, func(ok bool) {
		if ok {
			c.untagFrom(sel.Selected)
		}
	}, c.u.win)
}

func (c *conversationsScreen) untagFrom(project string) {
	if c.current == nil || project == "" {
		return
	}
	id := c.currentID()
	load(c.u, "untag the conversation", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.u.mem.Untag(ctx, id, project)
	}, func(struct{}) { c.afterEdit() })
}

// renameProject renames the project chosen in the filter.
func (c *conversationsScreen) renameProject() {
	from := projectOf(c.project.Selected)
	if from == "" || strings.HasPrefix(c.project.Selected, untaggedOption+" (") {
		return
	}
	c.u.askText("Rename project “"+from+"”", "New name", "Rename", from, nil, func(to string) { c.renameTo(from, to) })
}

func (c *conversationsScreen) renameTo(from, to string) {
	load(c.u, "rename the project", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.u.mem.RenameProject(ctx, from, to)
	}, func(struct{}) {
		c.project.Selected = strings.TrimSpace(to) + " (0)"
		c.afterEdit()
	})
}

// forgetCurrent hands the open conversation to the Forget screen.
func (c *conversationsScreen) forgetCurrent() {
	if c.current == nil {
		return
	}
	c.u.forget.selectOnly([]memory.SessionInfo{*c.current})
	c.u.showScreen(screenForget)
}

// openConversation switches to the Conversations screen and opens a
// conversation at a turn.
func (u *ui) openConversation(id, turnUUID string) {
	u.tabs.SelectIndex(screenConversations)
	u.convs.open(id, turnUUID)
}
