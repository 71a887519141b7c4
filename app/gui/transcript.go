package gui

import (
	"context"
	"fmt"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// The transcript view shows one conversation verbatim: each turn with its
// role and time, text as Markdown, thinking, tool calls and plumbing
// folded. It reads with the keyboard (Page Up/Down, Home/End, the arrows),
// finds words in the conversation (Ctrl+F), copies a message, and opens at
// a mark: the turn and passage Search found, with the query's words lit.

// transcriptPage is how many turns are laid out at once. Coding sessions
// run to thousands of turns; laying them all out would stall the window.
const transcriptPage = 150

// maxBlockRunes is how much of one block is shown before a "Show all"
// button, so one pasted log does not stall the layout.
const maxBlockRunes = 20000

// lineStep is how far the arrow keys scroll.
const lineStep = 48

// transcriptMark is where a conversation opens and what it lights up.
type transcriptMark struct {
	turnUUID string   // the turn to scroll to; "" for the start
	passage  string   // the passage found in it, to find its block
	terms    []string // query words to mark
}

// findMatch is one occurrence of the find text: the turn, the block, and
// which occurrence in that block.
type findMatch struct{ turn, block, nth int }

// turnItem is a laid-out turn and its block views, for scrolling to one.
type turnItem struct {
	obj    fyne.CanvasObject
	box    *fyne.Container
	blocks []fyne.CanvasObject
}

type transcriptView struct {
	u      *ui
	title  *widget.Label
	meta   *widget.RichText
	turns  *fyne.Container
	scroll *container.Scroll
	keys   *transcriptKeys

	head      *fyne.Container // title, meta, find bar: laid out again when the bar shows
	findBar   *fyne.Container
	findEntry *findEntry
	findCount *widget.Label

	tr         *memory.Transcript
	mark       transcriptMark
	focus      int // index into tr.Turns of the turn opened, or -1
	focusBlock int // the block of the passage in it, or -1
	lo, hi     int // the window of turns laid out: [lo, hi)
	items      []turnItem
	// target is the turn and block to scroll to once laid out (-1: none).
	targetTurn, targetBlock int

	find    string // lower case; "" when not finding
	matches []findMatch
	cur     int // index into matches, -1 for none
}

func newTranscriptView(u *ui) *transcriptView {
	t := &transcriptView{u: u, focus: -1, focusBlock: -1, targetTurn: -1, cur: -1}
	t.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	t.title.Wrapping = fyne.TextWrapWord
	t.meta = newMuted("")
	t.meta.Wrapping = fyne.TextWrapWord
	t.turns = container.NewVBox()
	t.scroll = container.NewVScroll(container.NewPadded(t.turns))
	t.keys = newTranscriptKeys(t)

	t.findEntry = newFindEntry(t)
	t.findEntry.SetPlaceHolder("Find in this conversation")
	t.findCount = widget.NewLabel("")
	prev := widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { t.step(-1) })
	next := widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { t.step(1) })
	done := widget.NewButtonWithIcon("", theme.CancelIcon(), t.closeFind)
	t.findBar = container.NewBorder(nil, nil, nil, container.NewHBox(t.findCount, prev, next, done), t.findEntry)
	t.findBar.Hide()
	t.clear("Pick a conversation on the left to read it here.")
	return t
}

func (t *transcriptView) content() fyne.CanvasObject {
	t.head = container.NewVBox(t.title, t.meta, t.findBar, widget.NewSeparator())
	return container.NewBorder(t.head, nil, nil, nil, t.keys)
}

// clear empties the view and shows a message in its place; "" is a first
// run, and the view says what to do first.
func (t *transcriptView) clear(msg string) {
	t.tr, t.focus, t.focusBlock, t.items = nil, -1, -1, nil
	t.mark = transcriptMark{}
	t.closeFind()
	t.title.SetText("")
	setMuted(t.meta, "")
	if msg == "" {
		t.turns.Objects = firstRunHelp(t.u, "Nothing to read.")
	} else {
		hint := widget.NewLabel(msg)
		hint.Wrapping = fyne.TextWrapWord
		t.turns.Objects = []fyne.CanvasObject{hint}
	}
	t.turns.Refresh()
}

// show lays out a transcript at a mark.
func (t *transcriptView) show(tr *memory.Transcript, m transcriptMark) {
	same := t.tr != nil && t.tr.Session.Source == tr.Session.Source && t.tr.Session.SessionID == tr.Session.SessionID
	if !same {
		// Before t.tr changes: closing re-lays out the old turns it marked.
		t.closeFind()
	}
	t.tr, t.mark, t.focus, t.focusBlock = tr, m, -1, -1
	for i, turn := range tr.Turns {
		if m.turnUUID != "" && turn.TurnUUID == m.turnUUID {
			t.focus = i
			t.focusBlock = passageBlock(turn, m.passage)
		}
	}
	info := tr.Session
	t.title.SetText(titleOf(info))
	star := ""
	if info.Starred {
		star = " · ★ starred"
	}
	setMuted(t.meta, fmt.Sprintf("%s · %s · %s · %s → %s%s", sourceName(info.Source), projectsText(info.Projects),
		plural(info.Turns, "turn", "turns"), stamp(info.Started), stamp(info.Updated), star))
	if same && t.find != "" {
		t.matches = t.findAll(t.find)
		t.cur = min(t.cur, len(t.matches)-1)
	}
	if t.focus >= 0 {
		t.lo = max(0, t.focus-transcriptPage/3)
	} else {
		t.lo = 0
	}
	t.hi = min(len(tr.Turns), t.lo+transcriptPage)
	t.targetTurn, t.targetBlock = t.focus, t.focusBlock
	t.layout()
	if t.focus < 0 {
		t.scroll.ScrollToTop()
	}
}

// passageBlock is the block of a turn that holds a passage (a chunk of
// the turn's text), or -1 when none does (the first block is scrolled to).
func passageBlock(turn funes.Turn, passage string) int {
	probe := strings.TrimSpace(passage)
	if r := []rune(probe); len(r) > 60 {
		probe = string(r[:60])
	}
	if probe == "" {
		return -1
	}
	for i, b := range turn.Blocks {
		if strings.Contains(b.Text, probe) {
			return i
		}
	}
	return -1
}

// layout builds the widgets for turns [lo, hi).
func (t *transcriptView) layout() {
	var objs []fyne.CanvasObject
	if t.lo > 0 {
		objs = append(objs, widget.NewButtonWithIcon(fmt.Sprintf("Show %s before", plural(min(t.lo, transcriptPage), "earlier turn", "earlier turns")),
			theme.MoveUpIcon(), func() {
				t.lo = max(0, t.lo-transcriptPage)
				t.targetTurn = -1
				t.layout()
			}))
	}
	t.items = t.items[:0]
	for i := t.lo; i < t.hi; i++ {
		it := t.turnItem(i)
		t.items = append(t.items, it)
		objs = append(objs, it.obj)
	}
	if t.hi < len(t.tr.Turns) {
		objs = append(objs, widget.NewButtonWithIcon(fmt.Sprintf("Show %s after", plural(min(len(t.tr.Turns)-t.hi, transcriptPage), "later turn", "later turns")),
			theme.MoveDownIcon(), func() {
				t.hi = min(len(t.tr.Turns), t.hi+transcriptPage)
				t.targetTurn = -1
				t.layout()
			}))
	}
	if len(t.tr.Turns) == 0 {
		objs = append(objs, widget.NewLabel("This conversation has no turns."))
	}
	t.turns.Objects = objs
	t.turns.Refresh()
	t.scroll.Refresh()
	t.scrollToTarget()
}

// rerender lays out turn i again (its marks changed), in place.
func (t *transcriptView) rerender(i int) {
	if t.tr == nil || i < t.lo || i >= t.hi {
		return
	}
	k := i - t.lo
	it := t.turnItem(i)
	t.items[k] = it
	if t.lo > 0 {
		k++ // the "earlier turns" button
	}
	t.turns.Objects[k] = it.obj
	t.turns.Refresh()
}

// scrollToTarget scrolls so the target block is near the top. Wrapped
// text settles its height once the view has its width, so it scrolls
// again after that layout pass.
func (t *transcriptView) scrollToTarget() {
	if t.targetTurn < 0 {
		return
	}
	t.scrollNow()
	t.u.goBackground(func(context.Context) { fyneDo(t.scrollNow) })
}

func (t *transcriptView) scrollNow() {
	y, ok := t.offsetOf(t.targetTurn, t.targetBlock)
	if !ok {
		return
	}
	// Keep the turn's header in view when the block is near it.
	if top, _ := t.offsetOf(t.targetTurn, -1); y-top < t.scroll.Size().Height/2 {
		y = top
	}
	t.scrollTo(y - theme.Padding())
}

// offsetOf is the y of a laid-out turn's block (or of the turn, block -1)
// in the scrolled content.
func (t *transcriptView) offsetOf(turn, block int) (float32, bool) {
	if t.tr == nil || turn < t.lo || turn >= t.hi || turn-t.lo >= len(t.items) {
		return 0, false
	}
	it := t.items[turn-t.lo]
	y := t.turns.Position().Y + it.obj.Position().Y
	if block >= 0 && block < len(it.blocks) {
		y += it.box.Position().Y + it.blocks[block].Position().Y
	}
	return y, true
}

// scrollTo scrolls to y, kept within the content.
func (t *transcriptView) scrollTo(y float32) {
	maxY := t.scroll.Content.MinSize().Height - t.scroll.Size().Height
	y = max(0, min(y, maxY))
	t.scroll.ScrollToOffset(fyne.NewPos(0, y))
}

// focusedOffset is the y position of the opened turn, for tests.
func (t *transcriptView) focusedOffset() float32 {
	y, ok := t.offsetOf(t.focus, -1)
	if !ok {
		return -1
	}
	return y
}

// turnItem builds turn i: a header with a Copy button, then its blocks.
// The opened turn is tinted so the eye finds it.
func (t *transcriptView) turnItem(i int) turnItem {
	turn := t.tr.Turns[i]
	head := widget.NewRichText(
		&widget.TextSegment{Text: roleName(turn.Role), Style: strongInline()},
		&widget.TextSegment{Text: "   " + stamp(turn.TS) + fmt.Sprintf("   turn %d", turn.Seq+1), Style: mutedInline()},
	)
	copyBtn := widget.NewButtonWithIcon("", theme.ContentCopyIcon(), func() { t.copyTurn(i) })
	copyBtn.Importance = widget.LowImportance
	objs := []fyne.CanvasObject{container.NewBorder(nil, nil, nil, copyBtn, head)}
	var blocks []fyne.CanvasObject
	for bi, b := range turn.Blocks {
		mk := &marker{cur: -1}
		if i == t.focus {
			mk.terms = t.mark.terms
		}
		open := i == t.focus && bi == t.focusBlock
		if t.find != "" {
			mk.find = t.find
			if t.cur >= 0 && t.cur < len(t.matches) {
				if m := t.matches[t.cur]; m.turn == i && m.block == bi {
					mk.cur, open = m.nth, true
				}
			}
		}
		v := blockView(turn.Role, t.tr.Session.Workdir, b, mk, open)
		blocks = append(blocks, v)
		objs = append(objs, v)
	}
	box := container.NewVBox(objs...)
	it := turnItem{box: box, blocks: blocks}
	if i != t.focus {
		it.obj = container.NewPadded(box)
		return it
	}
	c := theme.Color(theme.ColorNamePrimary)
	r, g, b, _ := c.RGBA()
	bg := canvas.NewRectangle(color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0x30})
	bg.CornerRadius = theme.InputRadiusSize()
	it.obj = container.NewStack(bg, container.NewPadded(box))
	return it
}

// copyTurn puts a message on the clipboard.
func (t *transcriptView) copyTurn(i int) {
	if t.tr == nil || i < 0 || i >= len(t.tr.Turns) {
		return
	}
	// The wording of i22-gui-a's copyText, the one copy feedback.
	t.u.app.Clipboard().SetContent(messageText(t.tr.Turns[i]))
	t.u.toast(fmt.Sprintf("Copied turn %d to the clipboard", t.tr.Turns[i].Seq+1))
}

// focusKeys gives the transcript the keyboard.
func (t *transcriptView) focusKeys() {
	if c := t.u.win.Canvas(); c != nil {
		c.Focus(t.keys)
	}
}

// key scrolls the transcript: Page Up/Down by a screen, Home/End to the
// ends (laying out the first or last turns if need be), the arrows by a
// line.
func (t *transcriptView) key(k fyne.KeyName) bool {
	if t.tr == nil {
		return false
	}
	page := max(t.scroll.Size().Height-2*lineStep, lineStep)
	y := t.scroll.Offset.Y
	switch k {
	case fyne.KeyPageDown, fyne.KeySpace:
		t.scrollTo(y + page)
	case fyne.KeyPageUp:
		t.scrollTo(y - page)
	case fyne.KeyDown:
		t.scrollTo(y + lineStep)
	case fyne.KeyUp:
		t.scrollTo(y - lineStep)
	case fyne.KeyHome:
		if t.lo > 0 {
			t.lo, t.hi = 0, min(len(t.tr.Turns), transcriptPage)
			t.targetTurn = -1
			t.layout()
		}
		t.scroll.ScrollToTop()
	case fyne.KeyEnd:
		if t.hi < len(t.tr.Turns) {
			t.hi = len(t.tr.Turns)
			t.lo = max(0, t.hi-transcriptPage)
			t.targetTurn = -1
			t.layout()
		}
		t.scrollTo(t.scroll.Content.MinSize().Height)
		// Wrapped text grows once laid out at its width: go to the end again.
		t.u.goBackground(func(context.Context) {
			fyneDo(func() { t.scrollTo(t.scroll.Content.MinSize().Height) })
		})
	default:
		return false
	}
	return true
}

// transcriptKeys holds the transcript's scroll and takes the keyboard
// when clicked, so Page Down and the rest scroll it.
type transcriptKeys struct {
	widget.BaseWidget
	t       *transcriptView
	focused bool
	border  *canvas.Rectangle
}

func newTranscriptKeys(t *transcriptView) *transcriptKeys {
	k := &transcriptKeys{t: t}
	k.border = canvas.NewRectangle(color.Transparent)
	k.border.StrokeWidth = 1
	k.ExtendBaseWidget(k)
	return k
}

func (k *transcriptKeys) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewStack(k.t.scroll, k.border))
}

// Tapped takes the keyboard.
func (k *transcriptKeys) Tapped(*fyne.PointEvent) {
	if c := fyne.CurrentApp().Driver().CanvasForObject(k); c != nil {
		c.Focus(k)
	}
}

// FocusGained shows a thin outline, so a person sees where keys go.
func (k *transcriptKeys) FocusGained() {
	k.focused = true
	k.border.StrokeColor = theme.Color(theme.ColorNameFocus)
	k.border.Refresh()
}

func (k *transcriptKeys) FocusLost() {
	k.focused = false
	k.border.StrokeColor = color.Transparent
	k.border.Refresh()
}

func (k *transcriptKeys) TypedRune(rune) {}

func (k *transcriptKeys) TypedKey(e *fyne.KeyEvent) { k.t.key(e.Name) }

// findEntry is the find field: Enter and Down go to the next occurrence,
// Up to the one before, Escape closes the find bar.
type findEntry struct {
	widget.Entry
	t *transcriptView
}

func newFindEntry(t *transcriptView) *findEntry {
	e := &findEntry{t: t}
	e.ExtendBaseWidget(e)
	e.OnChanged = t.typed
	e.OnSubmitted = t.submitted
	return e
}

func (e *findEntry) TypedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyEscape:
		e.t.closeFind()
		e.t.focusKeys()
		return
	case fyne.KeyDown:
		e.t.submitted(e.Text)
		return
	case fyne.KeyUp:
		e.t.step(-1)
		return
	}
	e.Entry.TypedKey(k)
}

func titleOf(info memory.SessionInfo) string {
	if info.Title != "" {
		return info.Title
	}
	return "Untitled conversation"
}

func strongInline() widget.RichTextStyle {
	s := widget.RichTextStyleStrong
	s.Inline = true
	return s
}

func mutedInline() widget.RichTextStyle {
	s := widget.RichTextStyleInline
	s.ColorName = theme.ColorNamePlaceHolder
	return s
}
