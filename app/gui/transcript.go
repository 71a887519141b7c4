package gui

import (
	"context"
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/memory"
)

// The transcript view shows one conversation verbatim: each turn with its
// role and time, text in full, thinking and tool blocks folded.

// transcriptPage is how many turns are laid out at once. Coding sessions
// run to thousands of turns; laying them all out would stall the window.
const transcriptPage = 150

// maxBlockRunes is how much of one block is shown before a "Show all"
// button, so one pasted log does not stall the layout.
const maxBlockRunes = 20000

type transcriptView struct {
	u      *ui
	title  *widget.Label
	meta   *widget.RichText
	turns  *fyne.Container
	scroll *container.Scroll

	tr    *memory.Transcript
	focus int // index into tr.Turns of the turn opened, or -1
	lo    int // the window of turns laid out: [lo, hi)
	hi    int
	// focused is the laid-out turn to scroll to, if any.
	focused fyne.CanvasObject
}

func newTranscriptView(u *ui) *transcriptView {
	t := &transcriptView{u: u, focus: -1}
	t.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	t.title.Wrapping = fyne.TextWrapWord
	t.meta = newMuted("")
	t.meta.Wrapping = fyne.TextWrapWord
	t.turns = container.NewVBox()
	t.scroll = container.NewVScroll(container.NewPadded(t.turns))
	t.clear("Pick a conversation on the left to read it here.")
	return t
}

func (t *transcriptView) content() fyne.CanvasObject {
	return container.NewBorder(container.NewVBox(t.title, t.meta, widget.NewSeparator()), nil, nil, nil, t.scroll)
}

// clear empties the view and shows a message in its place.
func (t *transcriptView) clear(msg string) {
	t.tr, t.focus, t.focused = nil, -1, nil
	t.title.SetText("")
	setMuted(t.meta, "")
	hint := widget.NewLabel(msg)
	hint.Wrapping = fyne.TextWrapWord
	t.turns.Objects = []fyne.CanvasObject{hint}
	t.turns.Refresh()
}

// show lays out a transcript, scrolled to the turn with turnUUID if given.
func (t *transcriptView) show(tr *memory.Transcript, turnUUID string) {
	t.tr, t.focus = tr, -1
	for i, turn := range tr.Turns {
		if turnUUID != "" && turn.TurnUUID == turnUUID {
			t.focus = i
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
	if t.focus >= 0 {
		t.lo = max(0, t.focus-transcriptPage/3)
	} else {
		t.lo = 0
	}
	t.hi = min(len(tr.Turns), t.lo+transcriptPage)
	t.layout()
	if t.focus < 0 {
		t.scroll.ScrollToTop()
	}
}

// layout builds the widgets for turns [lo, hi).
func (t *transcriptView) layout() {
	var objs []fyne.CanvasObject
	if t.lo > 0 {
		objs = append(objs, widget.NewButtonWithIcon(fmt.Sprintf("Show %s before", plural(min(t.lo, transcriptPage), "earlier turn", "earlier turns")),
			theme.MoveUpIcon(), func() {
				t.lo = max(0, t.lo-transcriptPage)
				t.focused = nil
				t.layout()
			}))
	}
	t.focused = nil
	for i := t.lo; i < t.hi; i++ {
		v := turnView(t.tr.Turns[i], i == t.focus)
		if i == t.focus {
			t.focused = v
		}
		objs = append(objs, v)
	}
	if t.hi < len(t.tr.Turns) {
		objs = append(objs, widget.NewButtonWithIcon(fmt.Sprintf("Show %s after", plural(min(len(t.tr.Turns)-t.hi, transcriptPage), "later turn", "later turns")),
			theme.MoveDownIcon(), func() {
				t.hi = min(len(t.tr.Turns), t.hi+transcriptPage)
				t.layout()
			}))
	}
	if len(t.tr.Turns) == 0 {
		objs = append(objs, widget.NewLabel("This conversation has no turns."))
	}
	t.turns.Objects = objs
	t.turns.Refresh()
	t.scroll.Refresh()
	t.scrollToFocus()
	// Wrapped text settles its height once the view has its width; scroll
	// again after that layout pass.
	if t.focused != nil {
		t.u.goBackground(func(context.Context) { fyneDo(t.scrollToFocus) })
	}
}

// scrollToFocus scrolls so the opened turn is near the top.
func (t *transcriptView) scrollToFocus() {
	if t.focused == nil {
		return
	}
	y := t.focused.Position().Y
	t.scroll.ScrollToOffset(fyne.NewPos(0, max(0, y-theme.Padding())))
}

// focusedOffset is the y position of the opened turn, for tests.
func (t *transcriptView) focusedOffset() float32 {
	if t.focused == nil {
		return -1
	}
	return t.focused.Position().Y
}

// turnView is one turn: a header, then its blocks. The opened turn is
// tinted so the eye finds it.
func turnView(turn memory.Turn, focused bool) fyne.CanvasObject {
	head := widget.NewRichText(
		&widget.TextSegment{Text: roleName(turn.Role), Style: strongInline()},
		&widget.TextSegment{Text: "   " + stamp(turn.TS) + fmt.Sprintf("   turn %d", turn.Seq+1), Style: mutedInline()},
	)
	objs := []fyne.CanvasObject{head}
	for _, b := range turn.Blocks {
		objs = append(objs, blockView(b))
	}
	box := container.NewVBox(objs...)
	if !focused {
		return container.NewPadded(box)
	}
	c := theme.Color(theme.ColorNamePrimary)
	r, g, b, _ := c.RGBA()
	bg := canvas.NewRectangle(color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0x30})
	bg.CornerRadius = theme.InputRadiusSize()
	return container.NewStack(bg, container.NewPadded(box))
}

// blockView shows text in full and folds thinking and tool blocks.
func blockView(b memory.Block) fyne.CanvasObject {
	body := blockLabel(b.Text)
	var title string
	switch b.Type {
	case memory.BlockText, "":
		return body
	case memory.BlockThinking:
		title = "Thinking"
	case memory.BlockToolUse:
		title = "Tool call"
	case memory.BlockToolResult:
		title = "Tool result"
	default:
		title = b.Type
	}
	if b.ToolName != "" {
		title += ": " + b.ToolName
	}
	title += fmt.Sprintf(" (%s)", plural(len([]rune(b.Text)), "character", "characters"))
	return widget.NewAccordion(widget.NewAccordionItem(title, body))
}

// blockLabel is a block's text, selectable, shortened past maxBlockRunes
// with a button that shows the rest.
func blockLabel(text string) fyne.CanvasObject {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Selectable = true
	r := []rune(text)
	if len(r) <= maxBlockRunes {
		l.SetText(text)
		return l
	}
	l.SetText(string(r[:maxBlockRunes]) + "…")
	box := container.NewVBox(l)
	more := widget.NewButton(fmt.Sprintf("Show all %s", plural(len(r), "character", "characters")), nil)
	more.OnTapped = func() {
		l.SetText(text)
		box.Remove(more)
	}
	box.Add(more)
	return box
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
