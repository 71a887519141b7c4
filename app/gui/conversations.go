package gui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/conversations"
)

// The conversations screen: every conversation, filtered and sorted, and
// the selected one's transcript with its actions (star, tag, untag, rename
// a project, forget).

const untaggedOption = "Untagged"

// Sort orders, as offered and as conversations.Query spells them.
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
	project  *projectFilter
	source   *widget.Select
	when     *widget.Select
	starred  *widget.Check
	order    *widget.Select
	count    *widget.Label
	list     *keyList
	showMore *widget.Button
	rename   *widget.Button

	star, tag, untag, forget *widget.Button
	tv                       *transcriptView

	items    []answer.Conversation
	total    int
	limit    int
	untagged int
	// conversations is how many the memory holds, filters aside: 0 is a
	// first run, and the transcript pane says what to do first.
	conversations int
	current       *answer.Conversation // the conversation in the transcript view
	seq           int
	// listing is the conversation to select in the list once it is
	// loaded (opened from Search); selecting marks a Select that opens
	// nothing, since the conversation is open already.
	listing   string
	selecting bool
}

// keyList is a list that says whether the keyboard (Space) or the mouse
// chose the row: a click gives the transcript the keyboard, Space keeps
// it in the list so the arrows go on moving.
type keyList struct {
	widget.List
	keyed bool
}

func newKeyList(length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject)) *keyList {
	l := &keyList{}
	l.Length, l.CreateItem, l.UpdateItem = length, create, update
	l.ExtendBaseWidget(l)
	return l
}

// TypedKey notes a selection by the keyboard.
func (l *keyList) TypedKey(e *fyne.KeyEvent) {
	if e.Name == fyne.KeySpace {
		l.keyed = true
		defer func() { l.keyed = false }()
	}
	l.List.TypedKey(e)
}

func newConversationsScreen(u *ui) *conversationsScreen {
	c := &conversationsScreen{u: u, limit: convPage}
	c.query = widget.NewEntry()
	c.query.SetPlaceHolder("Filter by words")
	c.query.OnSubmitted = func(string) { c.refresh() }
	c.project = newProjectFilter(c.filterChanged)
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

	c.list = newKeyList(func() int { return len(c.items) }, c.createRow, c.updateRow)
	c.list.OnSelected = func(id widget.ListItemID) {
		if c.selecting || id < 0 || id >= len(c.items) {
			return
		}
		it := c.items[id]
		c.openAt(it.Source+":"+it.SessionID, transcriptMark{}, !c.list.keyed, it.Title)
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
	// The count has a line of its own: beside Starred and Rename project…
	// it cut the button short at 900 points wide.
	filters := container.NewVBox(
		container.NewBorder(nil, nil, nil, widget.NewButtonWithIcon("", theme.SearchIcon(), c.refresh), c.query),
		container.NewGridWithColumns(2, c.project.sel, c.source, c.when, c.order),
		container.NewBorder(nil, nil, c.starred, c.rename),
		c.count,
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
	c.setRename()
	c.refresh()
}

// setRename enables "Rename project…" only when the filter names one.
func (c *conversationsScreen) setRename() {
	if c.project.cur.project != "" {
		c.rename.Enable()
	} else {
		c.rename.Disable()
	}
}

func (c *conversationsScreen) sessionQuery() conversations.Query {
	q := conversations.Query{Query: c.query.Text, Source: sourceID(c.source.Selected), Starred: c.starred.Checked, Limit: c.limit}
	pc := c.project.cur
	q.Project, q.ProjectOnly, q.Untagged = pc.project, pc.only, pc.untagged
	q.Since = since(c.when.Selected, timeNow())
	for _, o := range sortOrders {
		if o.name == c.order.Selected {
			q.Sort, q.Asc = o.key, o.asc
		}
	}
	return q
}

type convPageResult struct {
	items    []answer.Conversation
	total    int
	projects []answer.ProjectCount
	untagged int
	all      int
}

// refresh reloads the list and the project filter off the UI goroutine.
func (c *conversationsScreen) refresh() {
	q := c.sessionQuery()
	c.seq++
	seq := c.seq
	load(c.u, "list conversations", func(ctx context.Context) (convPageResult, error) {
		var r convPageResult
		var err error
		if r.items, r.total, err = conversations.List(ctx, c.u.mem, q); err != nil {
			return r, err
		}
		for _, it := range r.items {
			c.u.secrets.warm(ctx, titleOf(it), projectsText(it.Projects))
		}
		if r.projects, r.untagged, err = conversations.Projects(ctx, c.u.mem, nil); err != nil {
			return r, err
		}
		st, err := c.u.mem.Status(ctx)
		r.all = st.Conversations
		return r, err
	}, func(r convPageResult) {
		if seq != c.seq {
			return
		}
		c.items, c.total, c.untagged, c.conversations = r.items, r.total, r.untagged, r.all
		c.project.set(r.projects, r.untagged)
		c.setRename()
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
		if c.current == nil && !c.tv.loading {
			c.tv.clear(c.idleMessage())
		}
		// The open conversation stays selected in the list, if listed.
		switch {
		case c.listing != "":
			c.selectListed(c.listing)
		case c.current != nil:
			c.selectListed(c.currentID())
		}
	})
}

// selectListed selects a conversation's row without opening it again.
func (c *conversationsScreen) selectListed(id string) {
	c.listing = ""
	for i, it := range c.items {
		if it.Source+":"+it.SessionID == id {
			c.selecting = true
			c.list.Select(i)
			c.list.ScrollTo(i)
			c.selecting = false
			return
		}
	}
}

// showInList makes the list show a conversation opened from elsewhere:
// selected if the filters let it through, else with the filters cleared.
func (c *conversationsScreen) showInList(id string) {
	for _, it := range c.items {
		if it.Source+":"+it.SessionID == id {
			c.selectListed(id)
			return
		}
	}
	c.listing = id
	c.clearFilters()
}

// clearFilters shows every conversation, newest first.
func (c *conversationsScreen) clearFilters() {
	c.query.SetText("")
	c.project.reset()
	for _, sel := range []*widget.Select{c.source, c.when} {
		on := sel.OnChanged
		sel.OnChanged = nil
		sel.SetSelectedIndex(0)
		sel.OnChanged = on
	}
	on := c.starred.OnChanged
	c.starred.OnChanged = nil
	c.starred.SetChecked(false)
	c.starred.OnChanged = on
	c.filterChanged()
}

// idleMessage is what the transcript pane says with no conversation open.
func (c *conversationsScreen) idleMessage() string {
	switch {
	case c.conversations == 0:
		return ""
	case len(c.items) == 0:
		return "No conversation matches these filters. Clear the words or pick All projects, All sources and Any time to see them all."
	}
	return "Pick a conversation on the left to read it here."
}

// projects lists the memory's project names, for the tag dialogs.
func (c *conversationsScreen) projects() []string {
	return append([]string(nil), c.project.names...)
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
	setBoldText(text.Objects[0].(*widget.Label), c.u.secrets.mask(titleOf(it)))
	setMuted(text.Objects[1].(*widget.RichText), fmt.Sprintf("%s · %s · %s · %s", day(it.Updated), sourceName(it.Source),
		c.u.secrets.mask(projectsText(it.Projects)), plural(it.Turns, "turn", "turns")))
}

// open shows a conversation ("harness:id") scrolled to a turn ("" for the
// start).
func (c *conversationsScreen) open(id, turnUUID string) {
	c.openAt(id, transcriptMark{turnUUID: turnUUID}, false, "")
}

// openAt shows a conversation at a mark; focus gives the transcript the
// keyboard at once, so keys pressed while it opens scroll it (not when the
// list's keys opened it: they keep moving). title, if known, shows while
// it opens. The conversation is read and its first screen's secrets found
// off the UI goroutine; a newer open drops an older one still loading.
func (c *conversationsScreen) openAt(id string, m transcriptMark, focus bool, title string) {
	c.tv.openSeq++
	seq := c.tv.openSeq
	c.tv.opening(title)
	if focus {
		c.tv.focusKeys()
	}
	secrets := c.u.secrets
	load(c.u, "open the conversation", func(ctx context.Context) (*conversations.Transcript, error) {
		tr, err := conversations.Get(ctx, c.u.mem, conversations.GetOptions{SessionID: id})
		if err == nil {
			warmFirstScreen(ctx, secrets, tr, m)
		}
		return tr, err
	}, func(tr *conversations.Transcript) {
		if seq != c.tv.openSeq {
			return
		}
		info := tr.Session
		c.current = &info
		c.setActions()
		c.tv.show(tr, m)
		if c.list.keyed || c.selecting {
			return
		}
		c.selectListed(id) // a list reload may have come between
	})
}

// warmFirstScreen finds the secrets of the turns a transcript opened at m
// shows first: from the marked turn (or the start) a screenful and more.
func warmFirstScreen(ctx context.Context, s *shownSecrets, tr *conversations.Transcript, m transcriptMark) {
	s.warm(ctx, tr.Session.Title, projectsText(tr.Session.Projects))
	at := 0
	for i, turn := range tr.Turns {
		if m.turnUUID != "" && turn.TurnUUID == m.turnUUID {
			at = i
		}
	}
	warmTurns(ctx, s, tr.Turns[at:min(len(tr.Turns), at+4*firstScreenTurns)])
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
		c.reloadCurrent()
	}
}

// reloadCurrent reads the open conversation again after an edit (a tag,
// a star), keeping the view where it is.
func (c *conversationsScreen) reloadCurrent() {
	id, m := c.currentID(), c.tv.mark
	secrets := c.u.secrets
	seq := c.tv.openSeq
	load(c.u, "open the conversation", func(ctx context.Context) (*conversations.Transcript, error) {
		tr, err := conversations.Get(ctx, c.u.mem, conversations.GetOptions{SessionID: id})
		if err == nil {
			warmFirstScreen(ctx, secrets, tr, m)
		}
		return tr, err
	}, func(tr *conversations.Transcript) {
		if seq != c.tv.openSeq {
			return
		}
		info := tr.Session
		c.current = &info
		c.setActions()
		c.tv.update(tr)
	})
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
	c.u.askText("Tag “"+clip(c.u.secrets.mask(titleOf(*c.current)), 40)+"”", "Project", "Tag", "", c.projects(), c.tagWith)
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
	// The keyboard style of every dialog: Untag has the focus, Enter
	// untags, Escape cancels; the arrows choose another project.
	sel := widget.NewSelect(c.current.Projects, nil)
	sel.SetSelectedIndex(0)
	var d *keyDialog
	cancel := func() { d.d.Hide() }
	cancelBtn := newKeyButton("Cancel", theme.CancelIcon(), widget.MediumImportance, cancel, cancel)
	untag := newKeyButton("Untag", theme.ContentRemoveIcon(), widget.HighImportance, func() {
		d.d.Hide()
		c.untagFrom(sel.Selected)
	}, cancel)
	d = c.u.showKeyDialog("Untag “"+clip(c.u.secrets.mask(titleOf(*c.current)), 40)+"”",
		widget.NewForm(widget.NewFormItem("Project", sel)), 420, []*keyButton{cancelBtn, untag}, 1, cancel)
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
	from := c.project.cur.project
	if from == "" {
		return
	}
	c.u.askText("Rename project “"+from+"”", "New name", "Rename", from, nil, func(to string) { c.renameTo(from, to) })
}

func (c *conversationsScreen) renameTo(from, to string) {
	load(c.u, "rename the project", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.u.mem.RenameProject(ctx, from, to)
	}, func(struct{}) {
		c.project.follow(from, strings.TrimSpace(to))
		c.afterEdit()
	})
}

// forgetCurrent hands the open conversation to the Forget screen.
func (c *conversationsScreen) forgetCurrent() {
	if c.current == nil {
		return
	}
	c.u.forget.forgetOnly(*c.current)
	c.u.showScreen(screenForget)
}

// openConversationAt switches to the Conversations screen and opens a
// conversation at a mark (a turn, a passage in it, words to light up),
// with the keyboard in the transcript so Page Down reads on; the list
// shows it selected.
func (u *ui) openConversationAt(id string, m transcriptMark, title string) {
	u.tabs.SelectIndex(screenConversations)
	u.convs.openAt(id, m, true, title)
	u.convs.showInList(id)
}
