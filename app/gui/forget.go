package gui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/memory"
)

// The forget screen: pick conversations (by words, project, source or
// dates, or from the Conversations screen), review them, confirm that it
// cannot be undone, and see what was erased.

// forgetFindLimit caps one search for conversations to forget.
const forgetFindLimit = 5000

type forgetScreen struct {
	u *ui

	query        *widget.Entry
	project      *widget.Select
	source       *widget.Select
	from         *widget.DateEntry
	until        *widget.DateEntry
	list         *widget.List
	review       *widget.Label
	selectAll    *widget.Button
	selectNone   *widget.Button
	forgetButton *widget.Button
	job          *job
	report       *widget.Label

	found   []answer.Conversation
	checked map[string]bool // by key()
}

func key(s answer.Conversation) string { return s.Source + ":" + s.SessionID }

func newForgetScreen(u *ui) *forgetScreen {
	f := &forgetScreen{u: u, checked: map[string]bool{}}
	f.query = widget.NewEntry()
	f.query.SetPlaceHolder("Words in the conversations to forget")
	f.query.OnSubmitted = func(string) { f.find() }
	f.project = widget.NewSelect([]string{anyProject}, nil)
	f.project.SetSelected(anyProject)
	f.source = widget.NewSelect(sourceOptions(), nil)
	f.source.SetSelected(anySource)
	f.from = widget.NewDateEntry()
	f.from.SetPlaceHolder("From date")
	f.until = widget.NewDateEntry()
	f.until.SetPlaceHolder("Until date")
	f.list = widget.NewList(func() int { return len(f.found) }, f.createRow, f.updateRow)
	f.list.OnSelected = func(id widget.ListItemID) {
		// A tap toggles the row's check, so the keyboard (Space) works too.
		if id < len(f.found) {
			k := key(f.found[id])
			f.checked[k] = !f.checked[k]
			f.list.RefreshItem(id)
			f.updateReview()
		}
		f.list.Unselect(id)
	}
	f.review = widget.NewLabel("")
	f.review.Wrapping = fyne.TextWrapWord
	f.selectAll = widget.NewButton("Select all", func() { f.setAll(true) })
	f.selectNone = widget.NewButton("Select none", func() { f.setAll(false) })
	f.forgetButton = widget.NewButtonWithIcon("Forget…", theme.DeleteIcon(), f.confirm)
	f.forgetButton.Importance = widget.DangerImportance
	f.job = newJob(u)
	f.report = widget.NewLabel("")
	f.report.Wrapping = fyne.TextWrapWord
	f.report.Selectable = true
	f.updateReview()
	return f
}

func (f *forgetScreen) content() fyne.CanvasObject {
	intro := widget.NewLabel("Forgetting erases a conversation from this computer for good: its file is overwritten, " +
		"its index rows deleted, the freed database pages zeroed, and Ireneo's answers quoting it in agents' transcripts erased. " +
		"Importing the same export again will not bring it back.")
	intro.Wrapping = fyne.TextWrapWord
	findBtn := widget.NewButtonWithIcon("Find", theme.SearchIcon(), f.find)
	criteria := container.NewVBox(
		container.NewBorder(nil, nil, nil, findBtn, f.query),
		container.NewGridWithColumns(4, f.project, f.source, f.from, f.until),
	)
	bottom := container.NewVBox(
		container.NewHBox(f.selectAll, f.selectNone, layout.NewSpacer(), f.forgetButton),
		f.review, f.job.box, f.report,
	)
	return container.NewBorder(container.NewVBox(intro, criteria, widget.NewSeparator()), bottom, nil, nil, f.list)
}

func (f *forgetScreen) createRow() fyne.CanvasObject {
	check := widget.NewCheck("", nil)
	title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Truncation = fyne.TextTruncateEllipsis
	meta := newMuted("")
	return container.NewBorder(nil, nil, check, meta, title)
}

func (f *forgetScreen) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id >= len(f.found) {
		return
	}
	s := f.found[id]
	b := o.(*fyne.Container)
	title, check, meta := b.Objects[0].(*widget.Label), b.Objects[1].(*widget.Check), b.Objects[2].(*widget.RichText)
	k := key(s)
	check.OnChanged = nil
	check.SetChecked(f.checked[k])
	check.OnChanged = func(on bool) {
		f.checked[k] = on
		f.updateReview()
	}
	setBoldText(title, f.u.secrets.mask(titleOf(s)))
	setMuted(meta, fmt.Sprintf("%s · %s · %s", day(s.Updated), sourceName(s.Source), plural(s.Turns, "turn", "turns")))
}

// list shows these conversations, ticked when checked says so.
func (f *forgetScreen) show(ss []answer.Conversation, checked bool) {
	f.found = append([]answer.Conversation(nil), ss...)
	f.checked = map[string]bool{}
	for _, s := range ss {
		f.checked[key(s)] = checked
	}
	f.report.SetText("")
	f.list.Refresh()
	f.updateReview()
}

// forgetOnly puts one conversation up for forgetting, ticked, from the
// Conversations screen: the words and filters of an earlier find go, so
// nothing but it is on the screen.
func (f *forgetScreen) forgetOnly(s answer.Conversation) {
	f.query.SetText("")
	f.project.SetSelected(anyProject)
	f.source.SetSelected(anySource)
	f.from.SetDate(nil)
	f.until.SetDate(nil)
	f.show([]answer.Conversation{s}, true)
}

// find lists the conversations matching the criteria, none ticked: a
// word like "test" matches dozens, and the person picks.
func (f *forgetScreen) find() {
	q := conversations.Query{Query: f.query.Text, Source: sourceID(f.source.Selected), Limit: forgetFindLimit}
	switch p := f.projectChosen(); {
	case p == forgetUntagged:
		q.Untagged = true
	case p != "":
		q.Project = p
	}
	if f.from.Date != nil {
		q.Since = *f.from.Date
	}
	if f.until.Date != nil {
		q.Until = f.until.Date.AddDate(0, 0, 1) // through the end of that day
	}
	if q.Query == "" && q.Source == "" && q.Project == "" && !q.Untagged && q.Since.IsZero() && q.Until.IsZero() {
		f.u.showError("find conversations to forget", inputErrorf("no criteria given: that would select every conversation"))
		return
	}
	load(f.u, "find conversations to forget", func(ctx context.Context) ([]answer.Conversation, error) {
		ss, _, err := conversations.List(ctx, f.u.mem, q)
		for _, s := range ss {
			f.u.secrets.warm(ctx, titleOf(s))
		}
		if err != nil || q.Project == "" {
			return ss, err
		}
		// The project filter also lets untagged conversations through
		// (they are "global" for recall); forgetting by project means
		// only that project's own.
		var own []answer.Conversation
		for _, s := range ss {
			for _, p := range s.Projects {
				if p == q.Project {
					own = append(own, s)
					break
				}
			}
		}
		return own, nil
	}, func(ss []answer.Conversation) {
		f.show(ss, false)
		if len(ss) == 0 {
			f.review.SetText("No conversation matches. Change the words, project, source or dates and press Find.")
		}
	})
}

func (f *forgetScreen) setAll(on bool) {
	for _, s := range f.found {
		f.checked[key(s)] = on
	}
	f.list.Refresh()
	f.updateReview()
}

// selected are the checked conversations, in list order.
func (f *forgetScreen) selected() []answer.Conversation {
	var out []answer.Conversation
	for _, s := range f.found {
		if f.checked[key(s)] {
			out = append(out, s)
		}
	}
	return out
}

// updateReview sums up what is selected: counts, turns, size and dates.
func (f *forgetScreen) updateReview() {
	sel := f.selected()
	// Buttons that could do nothing are off.
	enable(f.selectAll, len(sel) < len(f.found))
	enable(f.selectNone, len(sel) > 0)
	if len(sel) == 0 {
		f.forgetButton.Disable()
		f.forgetButton.SetText("Forget…")
		if len(f.found) == 0 {
			f.review.SetText("Find conversations above, or press Forget… on a conversation in the Conversations screen.")
		} else {
			f.review.SetText(plural(len(f.found), "conversation", "conversations") + " found, none selected: tick the ones to forget, or press Select all.")
		}
		return
	}
	turns, size := 0, int64(0)
	var first, last time.Time
	for _, s := range sel {
		turns += s.Turns
		size += s.Bytes
		if first.IsZero() || (!s.Started.IsZero() && s.Started.Before(first)) {
			first = s.Started
		}
		if s.Updated.After(last) {
			last = s.Updated
		}
	}
	f.review.SetText(fmt.Sprintf("%s selected: %s, %s, from %s to %s.",
		plural(len(sel), "conversation", "conversations"), plural(turns, "turn", "turns"), bytesize(size), day(first), day(last)))
	f.forgetButton.SetText("Forget " + plural(len(sel), "conversation", "conversations") + "…")
	if !f.job.running() {
		f.forgetButton.Enable()
	}
}

// confirm asks, saying it cannot be undone, then forgets.
func (f *forgetScreen) confirm() {
	sel := f.selected()
	if len(sel) == 0 {
		return
	}
	var titles []string
	for i, s := range sel {
		if i == 8 {
			titles = append(titles, fmt.Sprintf("…and %d more", len(sel)-i))
			break
		}
		titles = append(titles, "• "+clip(f.u.secrets.mask(titleOf(s)), 60)+" ("+day(s.Updated)+")")
	}
	after := "Their text is erased from this computer, and importing them again will not bring them back."
	if len(sel) == 1 {
		after = "Its text is erased from this computer, and importing it again will not bring it back."
	}
	msg := wrapped(fmt.Sprintf("Forget %s?\n\n%s\n\nThis cannot be undone. %s", plural(len(sel), "conversation", "conversations"), strings.Join(titles, "\n"), after))
	f.u.confirm("Forget for good?", msg, "Forget for good", true, 520, func() { f.run(sel) })
}

// run forgets the conversations with progress, then reports.
func (f *forgetScreen) run(sel []answer.Conversation) {
	ids := make([]string, len(sel))
	for i, s := range sel {
		ids[i] = key(s)
	}
	var rep memory.ForgetReport
	f.forgetButton.Disable()
	f.report.SetText("")
	f.job.start("Forgetting "+plural(len(ids), "conversation", "conversations"), func(ctx context.Context, report progress) error {
		var err error
		rep, err = f.u.mem.Forget(ctx, ids, func(done, total int) {
			report(done, total, fmt.Sprintf("Erased %d of %d", done, total))
		})
		return err
	}, func(err error) {
		f.showReport(rep, err)
		f.found, f.checked = nil, map[string]bool{}
		f.list.Refresh()
		f.updateReview()
		f.u.memoryChanged()
		if f.u.convs.current != nil {
			for _, s := range rep.Sessions {
				if s.Source == f.u.convs.current.Source && s.SessionID == f.u.convs.current.SessionID {
					f.u.convs.current = nil
					f.u.convs.setActions()
					f.u.convs.tv.clear("That conversation was forgotten.")
				}
			}
		}
		if err != nil {
			f.u.showError("forget every conversation selected", err)
		}
	})
}

func (f *forgetScreen) showReport(rep memory.ForgetReport, err error) {
	if len(rep.Sessions) == 0 && err != nil {
		f.report.SetText("Nothing was forgotten.")
		return
	}
	turns, size := 0, int64(0)
	var lines []string
	for i, s := range rep.Sessions {
		turns += s.Turns
		size += s.Bytes
		if i == 50 {
			lines = append(lines, fmt.Sprintf("…and %d more", len(rep.Sessions)-i))
		}
		if i >= 50 {
			continue
		}
		lines = append(lines, fmt.Sprintf("• %s (%s, %s)", clip(f.u.secrets.mask(titleOf(answer.Conversation{Title: s.Title})), 70), sourceName(s.Source), plural(s.Turns, "turn", "turns")))
	}
	head := fmt.Sprintf("Erased %s (%s, %s of text); %s overwritten and removed; index rows deleted, freed pages zeroed, write-ahead log truncated",
		plural(len(rep.Sessions), "conversation", "conversations"), plural(turns, "turn", "turns"), bytesize(size), plural(rep.Files, "file", "files"))
	if rep.Vacuumed {
		head += ", database vacuumed"
	}
	head += "."
	if rep.Quotes > 0 {
		head += fmt.Sprintf("\nAlso erased %s of them from Ireneo's answers kept in %s (agents' transcripts).",
			plural(rep.Quotes, "quote", "quotes"), plural(rep.Quoting, "other conversation", "other conversations"))
	} else {
		head += "\nNo other conversation kept a quote of them in Ireneo's answers."
	}
	if err != nil {
		head = "Stopped part way. " + head
	}
	f.report.SetText(head + "\n" + strings.Join(lines, "\n"))
}

// forgetUntagged stands for the untagged conversations in projectChosen.
const forgetUntagged = "\x00untagged"

// Forget's project filter picks a project's own conversations only, or
// the untagged ones; unlike recall's, a project never brings the untagged
// along, and the options say so, in the words Search and Conversations use
// for the same choice ("only falcon (3)").
const (
	forgetOnlyPrefix = "only "
	forgetUntaggedOp = "Untagged"
)

// forgetProjectOption is a project as a Forget filter option.
func forgetProjectOption(name string, n int) string {
	return fmt.Sprintf("%s%s (%d)", forgetOnlyPrefix, name, n)
}

// projectChosen is the project the filter picks: "" for all,
// forgetUntagged for the untagged conversations.
func (f *forgetScreen) projectChosen() string { return forgetChoice(f.project.Selected) }

// forgetChoice is the project a Forget filter option picks.
func forgetChoice(sel string) string {
	if sel == anyProject || sel == "" {
		return ""
	}
	if strings.HasPrefix(sel, forgetUntaggedOp+" (") {
		return forgetUntagged
	}
	if i := strings.LastIndex(sel, " ("); i >= 0 && strings.HasPrefix(sel, forgetOnlyPrefix) {
		return sel[len(forgetOnlyPrefix):i]
	}
	return sel
}

// refreshFilters reloads the project list: each project's own count, and
// the untagged conversations.
func (f *forgetScreen) refreshFilters() {
	load(f.u, "list projects", func(ctx context.Context) ([]string, error) {
		ps, untagged, err := conversations.Projects(ctx, f.u.mem, nil)
		if err != nil {
			return nil, err
		}
		opts := []string{anyProject}
		if untagged > 0 {
			opts = append(opts, fmt.Sprintf("%s (%d)", forgetUntaggedOp, untagged))
		}
		for _, p := range ps {
			opts = append(opts, forgetProjectOption(p.Name, p.Count))
		}
		return opts, nil
	}, func(opts []string) {
		// Keep the choice across a refresh, with its new count.
		was := f.projectChosen()
		f.project.Options = opts
		f.project.Selected = anyProject
		for _, o := range opts {
			if forgetChoice(o) == was {
				f.project.Selected = o
			}
		}
		f.project.Refresh()
	})
}
