package gui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// search runs a query as a person would: type it, press Enter.
func search(t *testing.T, u *ui, q string) {
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
	for _, o := range s.detail.Objects {
		rt, ok := o.(*widget.RichText)
		if !ok {
			continue
		}
		for _, seg := range rt.Segments {
			if ts, ok := seg.(*widget.TextSegment); ok {
				if strings.EqualFold(ts.Text, phraseBudget) && ts.Style.TextStyle.Bold {
					emphasised = true
				}
				if strings.Contains(ts.Text, "turn ") {
					neighbour = true
				}
			}
		}
	}
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
	// The source filter narrows the same query.
	search(t, u, "database")
	all := s.length()
	if all == 0 {
		t.Fatal("database should match")
	}
	s.source.SetSelected("Codex")
	waitIdle(t, u)
	for i := 0; i < s.length(); i++ {
		if h, _ := s.hit(i); h.Source != "codex" {
			t.Fatalf("source filter let %s through", h.Source)
		}
	}
}

func TestHighlight(t *testing.T) {
	segs := highlight("Budget for MT-4471: the mt-4471 line, not xmt-4471", queryTerms("mt-4471 budget"), widget.RichTextStyleInline)
	var hot []string
	for _, s := range segs {
		ts := s.(*widget.TextSegment)
		if ts.Style.TextStyle.Bold {
			hot = append(hot, ts.Text)
		}
	}
	if strings.Join(hot, ",") != "Budget,MT-4471,mt-4471" {
		t.Fatalf("highlighted %q", hot)
	}
}
