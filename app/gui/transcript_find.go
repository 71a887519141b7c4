package gui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
)

// Find in the open conversation (Ctrl+F): every occurrence marked, the
// current one in another colour and scrolled to, Enter or Down for the
// next, Up for the one before, Escape to close. It looks in every turn,
// laid out or not, and in folded blocks, which open to show it.

// openFind shows the find bar with the keyboard in it, its old text
// selected so typing replaces it.
func (t *transcriptView) openFind() {
	if t.tr == nil {
		return
	}
	t.findBar.Show()
	t.relayoutHead()
	t.u.win.Canvas().Focus(t.findEntry)
	t.findEntry.TypedShortcut(&fyne.ShortcutSelectAll{})
	if t.findEntry.Text != "" && t.find == "" {
		t.setFind(t.findEntry.Text)
	}
}

// closeFind hides the find bar and its marks.
func (t *transcriptView) closeFind() {
	if t.findBar == nil {
		return
	}
	if !t.findBar.Hidden {
		t.findBar.Hide()
		t.relayoutHead()
	}
	if t.find == "" {
		return
	}
	old := t.matchTurns()
	t.find, t.matches, t.cur = "", nil, -1
	t.findCount.SetText("")
	for _, i := range old {
		t.rerender(i)
	}
}

// findDelay is how long typing pauses before the marks follow it: marking
// re-lays out every turn with an occurrence, too much for every key.
var findDelay = 150 * time.Millisecond

// typed finds as the text is typed, once typing pauses; one character
// waits for Enter (it is in nearly every turn).
func (t *transcriptView) typed(text string) {
	if len([]rune(strings.TrimSpace(text))) < 2 {
		if t.find != "" {
			t.setFind("")
		}
		return
	}
	t.u.goBackground(func(ctx context.Context) {
		select {
		case <-time.After(findDelay):
		case <-ctx.Done():
			return
		}
		fyneDo(func() {
			if t.findEntry.Text == text && strings.ToLower(strings.TrimSpace(text)) != t.find {
				t.setFind(text)
			}
		})
	})
}

// submitted is Enter in the find field: find what is typed if the marks do
// not show it yet, else go to the next occurrence.
func (t *transcriptView) submitted(text string) {
	if strings.ToLower(strings.TrimSpace(text)) != t.find {
		t.setFind(text)
		return
	}
	t.step(1)
}

// setFind marks the occurrences of text and goes to the first at or
// after the turn in view.
func (t *transcriptView) setFind(text string) {
	if t.tr == nil {
		return
	}
	old := t.matchTurns()
	t.find = strings.ToLower(strings.TrimSpace(text))
	t.matches = t.findAll(t.find)
	t.cur = -1
	if len(t.matches) > 0 {
		from := t.turnInView()
		t.cur = 0
		for i, m := range t.matches {
			if m.turn >= from {
				t.cur = i
				break
			}
		}
	}
	seen := map[int]bool{}
	for _, i := range append(old, t.matchTurns()...) {
		if !seen[i] {
			seen[i] = true
			t.rerender(i)
		}
	}
	t.goToMatch()
}

// step goes to the next (1) or previous (-1) occurrence, round the ends.
func (t *transcriptView) step(d int) {
	if len(t.matches) == 0 {
		return
	}
	prev := t.matches[max(t.cur, 0)].turn
	t.cur = ((t.cur+d)%len(t.matches) + len(t.matches)) % len(t.matches)
	t.rerender(prev)
	t.rerender(t.matches[t.cur].turn)
	t.goToMatch()
}

// goToMatch lays out the current occurrence's turn if need be, scrolls to
// its block and says where it is in the count.
func (t *transcriptView) goToMatch() {
	switch {
	case t.find == "":
		t.findCount.SetText("")
		return
	case len(t.matches) == 0:
		t.findCount.SetText("No matches")
		return
	}
	t.findCount.SetText(fmt.Sprintf("%d of %d", t.cur+1, len(t.matches)))
	m := t.matches[t.cur]
	t.targetTurn, t.targetBlock = m.turn, m.block
	if m.turn < t.lo || m.turn >= t.hi {
		t.lo = max(0, m.turn-transcriptPage/3)
		t.hi = min(len(t.tr.Turns), t.lo+transcriptPage)
		t.layout()
		return
	}
	// The turns shown are laid out already: scroll at once, with no
	// second pass from the background (which in tests raced the typing
	// that started the find).
	t.scrollNow()
}

// findAll lists every occurrence of find in the transcript, in order.
func (t *transcriptView) findAll(find string) []findMatch {
	if find == "" || t.tr == nil {
		return nil
	}
	var out []findMatch
	for i, turn := range t.tr.Turns {
		for bi, b := range turn.Blocks {
			for n := range countFind(b.Text, find) {
				out = append(out, findMatch{i, bi, n})
			}
		}
	}
	return out
}

// matchTurns are the turns holding an occurrence, each once.
func (t *transcriptView) matchTurns() []int {
	var out []int
	for _, m := range t.matches {
		if len(out) == 0 || out[len(out)-1] != m.turn {
			out = append(out, m.turn)
		}
	}
	return out
}

// turnInView is the first laid-out turn whose top is in view.
func (t *transcriptView) turnInView() int {
	y := t.scroll.Offset.Y
	for k, it := range t.items {
		if t.turns.Position().Y+it.obj.Position().Y+it.obj.Size().Height > y {
			return t.lo + k
		}
	}
	return t.lo
}

// relayoutHead lays out the header and the view below it again: showing
// or hiding the find bar or the secrets' notice changes their heights,
// which Show and Hide alone do not pass up to the containers. It lays out
// without refreshing: a refresh would redraw every turn, or (of the
// window) every screen.
func (t *transcriptView) relayoutHead() {
	if t.head == nil || t.body == nil {
		return
	}
	t.head.Layout.Layout(t.head.Objects, t.head.Size())
	t.body.Layout.Layout(t.body.Objects, t.body.Size())
	t.head.Layout.Layout(t.head.Objects, t.head.Size())
}
