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

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
)

// The transcript view shows one conversation verbatim: each turn with its
// role and time, text as Markdown, thinking, tool calls and plumbing
// folded, and a run of turns that only call tools folded as one line. It
// reads with the keyboard (Page Up/Down, Home/End, the arrows), finds
// words in the conversation (Ctrl+F), copies a message, and opens at a
// mark: the turn and passage Search found, with the query's words lit.
//
// Opening is quick whatever the length: the first screenful is laid out
// at once, the rest of the window of turns in batches after it, with a
// line saying how far it is; keys pressed meanwhile scroll what is there.
// Secrets are masked (secrets_shown.go).

// transcriptPage is how many turns are laid out at once. Coding sessions
// run to thousands of turns; laying them all out would stall the window.
const transcriptPage = 150

// firstScreenTurns is how many rows (turns, or closed runs of tool calls)
// the first pass lays out: a screenful at either window size, and more.
const firstScreenTurns = 12

// layoutBatch is how many rows each later pass lays out, between which
// the UI goroutine handles input and draws.
const layoutBatch = 15

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

// turnItem is a laid-out turn and its block views, for scrolling to one;
// obj is nil while the turn is not laid out (or hides in a closed run).
type turnItem struct {
	obj    fyne.CanvasObject
	box    *fyne.Container
	blocks []fyne.CanvasObject
	unit   int // index into units
}

// unit is one row of the transcript: a turn, or a run of turns that only
// call tools and carry their results, folded as one line.
type unit struct {
	first, last int // turns [first, last] (indexes into tr.Turns)
	obj         fyne.CanvasObject
	run         *fold
	inner       *fyne.Container // a run's turns, once it is open
}

type transcriptView struct {
	u      *ui
	title  *widget.Label
	meta   *widget.RichText
	turns  *fyne.Container
	scroll *container.Scroll
	keys   *transcriptKeys

	head      *fyne.Container // title, meta, notice, find bar: laid out again when they change
	body      *fyne.Container // the head above the turns
	findBar   *fyne.Container
	findEntry *findEntry
	findCount *widget.Label
	notice    *fyne.Container // says secrets are masked
	noticeMsg *widget.Label
	progress  *widget.Label // "Laying out…" while batches remain

	tr         *conversations.Transcript
	mark       transcriptMark
	focus      int // index into tr.Turns of the turn opened, or -1
	focusBlock int // the block of the passage in it, or -1
	lo, hi     int // the window of turns laid out: [lo, hi)
	items      []turnItem
	units      []unit
	// target is the turn and block to scroll to once laid out (-1: none).
	targetTurn, targetBlock int
	// gen counts layouts; a batch of an older one is dropped.
	gen int
	// loading says a conversation is on its way or batches remain; keys
	// pressed before the first screen wait in pending.
	loading bool
	pending []fyne.KeyName
	// moved says the person scrolled since the layout began: batches no
	// longer scroll to the target, they keep what is in view in place.
	moved bool
	// openSeq drops a conversation that arrives after a newer was asked for.
	openSeq int
	// revealed are the secrets the person chose to see; secretsSeen
	// counts the distinct ones in the turns laid out.
	revealed    map[string]bool
	secretsSeen map[string]bool
	// firstShown is called once the first screen is laid out (tests and
	// the benchmark wait for it).
	firstShown func()

	find    string // lower case; "" when not finding
	matches []findMatch
	cur     int // index into matches, -1 for none
}

func newTranscriptView(u *ui) *transcriptView {
	t := &transcriptView{u: u, focus: -1, focusBlock: -1, targetTurn: -1, cur: -1, revealed: map[string]bool{}, secretsSeen: map[string]bool{}}
	t.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	t.title.Wrapping = fyne.TextWrapWord
	t.meta = newMuted("")
	t.meta.Wrapping = fyne.TextWrapWord
	t.turns = container.NewVBox()
	t.scroll = container.NewVScroll(container.NewPadded(t.turns))
	t.keys = newTranscriptKeys(t)
	t.progress = widget.NewLabelWithStyle("", fyne.TextAlignCenter, fyne.TextStyle{Italic: true})

	t.noticeMsg = widget.NewLabel("")
	t.noticeMsg.Wrapping = fyne.TextWrapWord
	goScrub := widget.NewButtonWithIcon("Scrub…", theme.VisibilityOffIcon(), func() { u.showScreen(screenScrub) })
	t.notice = container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), goScrub, t.noticeMsg)
	t.notice.Hide()

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
	t.head = container.NewVBox(t.title, t.meta, t.notice, t.findBar, widget.NewSeparator())
	t.body = container.NewBorder(t.head, nil, nil, nil, t.keys)
	return t.body
}

// clear empties the view and shows a message in its place; "" is a first
// run, and the view says what to do first.
func (t *transcriptView) clear(msg string) {
	t.tr, t.focus, t.focusBlock, t.items, t.units = nil, -1, -1, nil, nil
	t.gen++
	t.loading, t.pending = false, nil
	t.mark = transcriptMark{}
	t.closeFind()
	t.title.SetText("")
	setMuted(t.meta, "")
	t.setNotice(0)
	if msg == "" {
		t.turns.Objects = firstRunHelp(t.u, "Nothing to read.")
	} else {
		hint := widget.NewLabel(msg)
		hint.Wrapping = fyne.TextWrapWord
		t.turns.Objects = []fyne.CanvasObject{hint}
	}
	t.turns.Refresh()
}

// opening empties the view for a conversation on its way: its title, if
// known, and a line saying it is opening. Keys pressed now wait for it.
func (t *transcriptView) opening(title string) {
	t.closeFind()
	t.tr, t.items, t.units = nil, nil, nil
	t.gen++
	t.loading, t.pending, t.moved = true, nil, false
	t.title.SetText(t.u.secrets.mask(title))
	setMuted(t.meta, "Opening…")
	t.setNotice(0)
	t.progress.SetText("Opening the conversation…")
	t.turns.Objects = []fyne.CanvasObject{t.progress}
	t.turns.Refresh()
	t.scroll.ScrollToTop()
}

// show lays out a transcript at a mark. Its first screen's secrets must
// be found already (warmTranscript), off the UI goroutine.
func (t *transcriptView) show(tr *conversations.Transcript, m transcriptMark) {
	same := t.tr != nil && t.tr.Session.Source == tr.Session.Source && t.tr.Session.SessionID == tr.Session.SessionID
	if !same {
		// Before t.tr changes: closing re-lays out the old turns it marked.
		t.closeFind()
		t.revealed, t.secretsSeen = map[string]bool{}, map[string]bool{}
		t.setNotice(0)
	}
	t.tr, t.mark, t.focus, t.focusBlock = tr, m, -1, -1
	for i, turn := range tr.Turns {
		if m.turnUUID != "" && turn.TurnUUID == m.turnUUID {
			t.focus = i
			t.focusBlock = passageBlock(turn, m.passage)
		}
	}
	t.setHead(tr.Session)
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
	t.moved = false
	t.layout()
	if t.focus < 0 {
		t.scroll.ScrollToTop()
	}
}

// setHead shows a conversation's title and details.
func (t *transcriptView) setHead(info answer.Conversation) {
	setBoldText(t.title, t.u.secrets.mask(titleOf(info)))
	star := ""
	if info.Starred {
		star = " · ★ starred"
	}
	setMuted(t.meta, fmt.Sprintf("%s · %s · %s · %s → %s%s", sourceName(info.Source), t.u.secrets.mask(projectsText(info.Projects)),
		plural(info.Turns, "turn", "turns"), stamp(info.Started), stamp(info.Updated), star))
}

// update takes the open conversation as it is after an edit (a tag, a
// star) or an import that added turns (a hook after an agent's reply):
// the view stays on the turn it shows, and new turns at the end of the
// window are laid out.
func (t *transcriptView) update(tr *conversations.Transcript) {
	if t.tr == nil || t.tr.Session.Source != tr.Session.Source || t.tr.Session.SessionID != tr.Session.SessionID {
		return
	}
	if len(tr.Turns) == len(t.tr.Turns) {
		t.tr.Session = tr.Session
		t.setHead(tr.Session)
		return
	}
	old := len(t.tr.Turns)
	at, _ := t.anchor()
	t.tr = tr
	t.setHead(tr.Session)
	if at >= 0 {
		t.targetTurn, t.targetBlock = at, -1
	}
	if t.hi == old {
		t.hi = min(len(tr.Turns), t.lo+transcriptPage)
	}
	t.lo, t.hi = min(t.lo, len(tr.Turns)), min(t.hi, len(tr.Turns))
	t.focus = min(t.focus, len(tr.Turns)-1)
	t.moved = false
	t.layout()
}

// passageBlock is the block of a turn that holds a passage (a chunk of
// the turn's text), or -1 when none does (the first block is scrolled to).
func passageBlock(turn funes.Turn, passage string) int {
	probe := strings.Trim(passage, "… \n") // recall marks a window's cut ends with "…"
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

// toolOnly reports a turn that only calls tools or carries their results.
func toolOnly(turn funes.Turn) bool {
	if len(turn.Blocks) == 0 {
		return false
	}
	for _, b := range turn.Blocks {
		switch b.Type {
		case funes.BlockToolUse, funes.BlockToolResult:
		default:
			if strings.TrimSpace(b.Text) != "" {
				return false
			}
		}
	}
	return true
}

// buildUnits cuts turns [lo, hi) into rows: runs of two or more tool-only
// turns become one, every other turn its own.
func (t *transcriptView) buildUnits() {
	t.units = t.units[:0]
	t.items = make([]turnItem, t.hi-t.lo)
	for i := t.lo; i < t.hi; {
		j := i
		for j < t.hi && toolOnly(t.tr.Turns[j]) {
			j++
		}
		if j-i < 2 {
			j = i + 1
		}
		for k := i; k < j; k++ {
			t.items[k-t.lo].unit = len(t.units)
		}
		t.units = append(t.units, unit{first: i, last: j - 1})
		i = j
	}
}

// layout lays out turns [lo, hi): the first screen now, around the target
// (or from the top), the rest in batches from the background.
func (t *transcriptView) layout() {
	t.gen++
	gen := t.gen
	t.buildUnits()
	if len(t.units) == 0 {
		t.loading = false
		t.turns.Objects = []fyne.CanvasObject{widget.NewLabel("This conversation has no turns.")}
		t.turns.Refresh()
		t.flushPending()
		return
	}
	// The first screen: from the unit holding the target (or the window's
	// start), firstScreenTurns turns on.
	start := 0
	if t.targetTurn >= t.lo && t.targetTurn < t.hi {
		start = t.items[t.targetTurn-t.lo].unit
	}
	end := min(len(t.units), start+firstScreenTurns) // a closed run is one line
	for k := start; k < end; k++ {
		t.buildUnit(k)
	}
	// Later batches: the units after the first screen, then those before.
	var order []int
	for k := end; k < len(t.units); k++ {
		order = append(order, k)
	}
	for k := start - 1; k >= 0; k-- {
		order = append(order, k)
	}
	t.loading = len(order) > 0
	t.sayProgress()
	t.place()
	t.scrollToTarget()
	t.flushPending()
	if t.firstShown != nil {
		t.firstShown()
	}
	if len(order) > 0 {
		t.layoutRest(gen, order)
	}
}

// layoutRest lays out the given units in batches, finding their secrets
// off the UI goroutine first.
func (t *transcriptView) layoutRest(gen int, order []int) {
	tr := t.tr
	var batches [][]int
	for len(order) > 0 {
		k := min(len(order), layoutBatch)
		batches = append(batches, order[:k])
		order = order[k:]
	}
	ranges := make([][2]int, len(batches))
	for i, b := range batches {
		lo, hi := t.units[b[0]].first, t.units[b[0]].last
		for _, k := range b {
			lo, hi = min(lo, t.units[k].first), max(hi, t.units[k].last)
		}
		ranges[i] = [2]int{lo, hi}
	}
	t.u.goBackground(func(ctx context.Context) {
		for i, b := range batches {
			warmTurns(ctx, t.u.secrets, tr.Turns[ranges[i][0]:ranges[i][1]+1])
			stop := false
			fyneDo(func() {
				if gen != t.gen || t.tr != tr {
					stop = true
					return
				}
				anchor, dy := t.anchor()
				for _, k := range b {
					t.buildUnit(k)
				}
				t.loading = i < len(batches)-1
				t.sayProgress()
				t.place()
				t.keepInView(anchor, dy)
			})
			if stop || ctx.Err() != nil {
				return
			}
		}
	})
}

// sayProgress says how many of the window's turns are laid out.
func (t *transcriptView) sayProgress() {
	done := 0
	for _, u := range t.units {
		if u.obj != nil {
			done += u.last - u.first + 1
		}
	}
	t.progress.SetText(fmt.Sprintf("Laying out the conversation: %d of %d turns…", done, t.hi-t.lo))
}

// place puts the built units in the scrolled box, in order, with the
// buttons for the turns outside the window and the progress line.
func (t *transcriptView) place() {
	var objs []fyne.CanvasObject
	if t.lo > 0 {
		objs = append(objs, widget.NewButtonWithIcon(fmt.Sprintf("Show %s before", plural(min(t.lo, transcriptPage), "earlier turn", "earlier turns")),
			theme.MoveUpIcon(), func() {
				t.lo = max(0, t.lo-transcriptPage)
				t.targetTurn = -1
				t.layout()
			}))
	}
	for _, u := range t.units {
		if u.obj != nil {
			objs = append(objs, u.obj)
		}
	}
	if t.loading {
		objs = append(objs, t.progress)
	}
	if t.hi < len(t.tr.Turns) {
		objs = append(objs, widget.NewButtonWithIcon(fmt.Sprintf("Show %s after", plural(min(len(t.tr.Turns)-t.hi, transcriptPage), "later turn", "later turns")),
			theme.MoveDownIcon(), func() {
				t.hi = min(len(t.tr.Turns), t.hi+transcriptPage)
				t.targetTurn = -1
				t.layout()
			}))
	}
	t.turns.Objects = objs
	t.relayoutTurns()
}

// relayoutTurns lays the rows out again after some were added or
// swapped, without refreshing every row: Container.Refresh refreshes each
// child, and a long conversation has hundreds of wrapped texts (it made
// each batch cost as much as all before it).
func (t *transcriptView) relayoutTurns() {
	c := t.scroll.Content
	c.Resize(c.MinSize().Max(t.scroll.Size()))
	t.turns.Layout.Layout(t.turns.Objects, t.turns.Size())
	// The scroll's bars follow its content on a refresh of the scroll
	// alone, which moving it makes (Scroll.Refresh would refresh the
	// content too).
	y := t.scroll.Offset
	t.scroll.ScrollToOffset(y.Add(fyne.NewPos(0, 1)))
	t.scroll.ScrollToOffset(y)
}

// buildUnit lays out unit k: its turn, or its run's folded line (and its
// turns, if the run is open or holds the target or the find occurrence).
func (t *transcriptView) buildUnit(k int) {
	u := &t.units[k]
	if u.first == u.last {
		it := t.turnItem(u.first)
		it.unit = k
		t.items[u.first-t.lo] = it
		u.obj = it.obj
		return
	}
	first, last := u.first, u.last
	title := t.runTitle(first, last)
	f := newFold(title, func() fyne.CanvasObject {
		inner := container.NewVBox()
		for i := first; i <= last; i++ {
			it := t.turnItem(i)
			it.unit = k
			t.items[i-t.lo] = it
			inner.Add(it.obj)
		}
		t.units[k].inner = inner
		return inner
	})
	u.run, u.obj = f, f
	if t.runWanted(first, last) {
		f.setOpen(true)
	}
}

// runWanted says a run must show its turns: it holds the turn opened or
// the current find occurrence.
func (t *transcriptView) runWanted(first, last int) bool {
	if t.targetTurn >= first && t.targetTurn <= last || t.focus >= first && t.focus <= last {
		return true
	}
	if t.cur >= 0 && t.cur < len(t.matches) {
		if m := t.matches[t.cur].turn; m >= first && m <= last {
			return true
		}
	}
	return false
}

// runTitle is a run's folded line: how many calls, the turns, and what
// the calls did.
func (t *transcriptView) runTitle(first, last int) string {
	var what []string
	calls := 0
	seen := map[string]bool{}
	for i := first; i <= last; i++ {
		for _, b := range t.tr.Turns[i].Blocks {
			if b.Type != funes.BlockToolUse {
				continue
			}
			calls++
			s := toolTitle(b.ToolName, maskValues(b.Text, t.u.secrets.values(b.Text)), t.tr.Session.Workdir)
			if !seen[s] {
				seen[s] = true
				what = append(what, s)
			}
		}
	}
	head := fmt.Sprintf("%s, turns %d–%d", plural(calls, "tool call", "tool calls"), t.tr.Turns[first].Seq+1, t.tr.Turns[last].Seq+1)
	if calls == 0 {
		head = fmt.Sprintf("%s of tool results", plural(last-first+1, "turn", "turns"))
	}
	if len(what) == 0 {
		return head
	}
	return clip(head+": "+strings.Join(what, " · "), 200)
}

// rerender lays out turn i again (its marks changed), in place.
func (t *transcriptView) rerender(i int) {
	if t.tr == nil || i < t.lo || i >= t.hi || i-t.lo >= len(t.items) {
		return
	}
	k := t.items[i-t.lo].unit
	if k >= len(t.units) {
		return
	}
	u := &t.units[k]
	if u.obj == nil {
		return // not laid out yet: it will be laid out as it is now
	}
	if u.run == nil {
		t.buildUnit(k)
		t.place()
		return
	}
	if t.runWanted(u.first, u.last) && !u.run.open {
		u.run.setOpen(true)
	}
	if u.inner == nil {
		return
	}
	it := t.turnItem(i)
	it.unit = k
	old := t.items[i-t.lo].obj
	t.items[i-t.lo] = it
	for n, o := range u.inner.Objects {
		if o == old {
			u.inner.Objects[n] = it.obj
		}
	}
	u.inner.Refresh()
	u.run.Refresh()
	t.relayoutTurns()
}

// anchor is the first turn in view and how far its top is below the
// view's, to keep it there while turns are laid out above it.
func (t *transcriptView) anchor() (int, float32) {
	if !t.moved && t.targetTurn >= 0 {
		return -1, 0
	}
	for i := t.lo; i < t.hi; i++ {
		if y, ok := t.offsetOf(i, -1); ok && y+1 >= t.scroll.Offset.Y {
			return i, y - t.scroll.Offset.Y
		}
	}
	return -1, 0
}

// keepInView scrolls after a batch: to the target while the person has
// not moved, else so the anchor turn stays where it was.
func (t *transcriptView) keepInView(anchor int, dy float32) {
	if !t.moved && t.targetTurn >= 0 {
		t.scrollNow()
		return
	}
	if anchor < 0 {
		return
	}
	if y, ok := t.offsetOf(anchor, -1); ok && y-dy != t.scroll.Offset.Y {
		t.scrollTo(y - dy)
	}
}

// scrollToTarget scrolls so the target block is near the top. Wrapped
// text settles its height once the view has its width, so it scrolls
// again after that layout pass.
func (t *transcriptView) scrollToTarget() {
	if t.targetTurn < 0 {
		return
	}
	t.scrollNow()
	gen := t.gen
	t.u.goBackground(func(context.Context) {
		fyneDo(func() {
			if gen == t.gen && !t.moved {
				t.scrollNow()
			}
		})
	})
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
// in the scrolled content; a turn in a closed run is at the run's line.
func (t *transcriptView) offsetOf(turn, block int) (float32, bool) {
	if t.tr == nil || turn < t.lo || turn >= t.hi || turn-t.lo >= len(t.items) {
		return 0, false
	}
	it := t.items[turn-t.lo]
	if it.unit >= len(t.units) || t.units[it.unit].obj == nil {
		return 0, false
	}
	u := t.units[it.unit]
	y := t.turns.Position().Y + u.obj.Position().Y
	if u.run != nil {
		if !u.run.open || u.inner == nil || it.obj == nil {
			return y, true
		}
		y += u.run.body.Position().Y + u.inner.Position().Y
	}
	if it.obj == nil {
		return y, true
	}
	if u.run != nil {
		y += it.obj.Position().Y
	}
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

// setNotice says how many secrets the view masks, or hides the line.
func (t *transcriptView) setNotice(n int) {
	if n == 0 {
		if !t.notice.Hidden {
			t.notice.Hide()
			t.relayoutHead()
		}
		return
	}
	t.noticeMsg.SetText(scrubNote(n))
	if t.notice.Hidden {
		t.notice.Show()
		t.relayoutHead()
	}
}

// secretMarksFor are the secrets of a turn's block (its text and, for a
// tool call, its input as shown), with the view's reveal state.
func (t *transcriptView) secretMarksFor(turn int, b funes.Block) *secretMarks {
	vals := t.u.secrets.values(b.Text)
	if b.Type == funes.BlockToolUse {
		if p := prettyInput(b.Text); p != b.Text {
			vals = appendNew(vals, t.u.secrets.values(p))
		}
	}
	if len(vals) == 0 {
		return nil
	}
	grew := false
	for _, v := range vals {
		if !t.secretsSeen[v] {
			t.secretsSeen[v] = true
			grew = true
		}
	}
	if grew {
		t.setNotice(len(t.secretsSeen))
	}
	return &secretMarks{values: vals, revealed: t.revealed, toggle: func(v string) {
		t.revealed[v] = !t.revealed[v]
		t.rerender(turn)
	}}
}

// appendNew adds to a the values of b it lacks, keeping longest first.
func appendNew(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, v := range b {
		dup := false
		for _, w := range out {
			dup = dup || w == v
		}
		if !dup {
			out = append(out, v)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// warmTurns finds the secrets of turns' blocks ahead of laying them out.
func warmTurns(ctx context.Context, s *shownSecrets, turns []funes.Turn) {
	for _, turn := range turns {
		for _, b := range turn.Blocks {
			s.warm(ctx, b.Text)
			if b.Type == funes.BlockToolUse {
				if p := prettyInput(b.Text); p != b.Text {
					s.warm(ctx, p)
				}
			}
		}
	}
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
		mk := &marker{cur: -1, secrets: t.secretMarksFor(i, b)}
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

// flushPending replays the keys pressed before the first screen was there.
func (t *transcriptView) flushPending() {
	keys := t.pending
	t.pending = nil
	for _, k := range keys {
		t.key(k)
	}
}

// key scrolls the transcript: Page Up/Down by a screen, Home/End to the
// ends (laying out the first or last turns if need be), the arrows by a
// line. Before the conversation is there, the keys wait for it.
func (t *transcriptView) key(k fyne.KeyName) bool {
	switch k {
	case fyne.KeyPageDown, fyne.KeySpace, fyne.KeyPageUp, fyne.KeyDown, fyne.KeyUp, fyne.KeyHome, fyne.KeyEnd:
	default:
		return false
	}
	if t.tr == nil {
		if t.loading {
			t.pending = append(t.pending, k)
			return true
		}
		return false
	}
	t.moved = true
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
		// Wrapped text grows once laid out at its width, and batches may
		// still be coming: go to the end again after them.
		gen := t.gen
		t.u.goBackground(func(context.Context) {
			fyneDo(func() {
				if gen == t.gen {
					t.scrollTo(t.scroll.Content.MinSize().Height)
				}
			})
		})
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

func titleOf(info answer.Conversation) string {
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
