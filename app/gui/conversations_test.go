package gui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

func TestConversationsListAndTranscript(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	c := u.convs
	u.showScreen(screenConversations)
	waitIdle(t, u)
	if len(c.items) != 5 || c.count.Text != "5 conversations" {
		t.Fatalf("want 5 conversations, got %d (%q)", len(c.items), c.count.Text)
	}
	// Filter by source.
	c.source.SetSelected("Claude")
	waitIdle(t, u)
	for _, it := range c.items {
		if it.Source != "claude" {
			t.Fatalf("source filter let %s through", it.Source)
		}
	}
	c.source.SetSelected(anySource)
	// Sort by title.
	c.order.SetSelected("Title A–Z")
	waitIdle(t, u)
	var titles []string
	for _, it := range c.items {
		titles = append(titles, strings.ToLower(it.Title))
	}
	if !slices.IsSorted(titles) {
		t.Fatalf("not sorted by title: %q", titles)
	}

	// Opening one shows its turns, with thinking folded.
	c.open("claude:conv-db", "")
	waitIdle(t, u)
	if c.tv.tr == nil || c.tv.tr.Session.SessionID != "conv-db" {
		t.Fatal("transcript not shown")
	}
	capture(t, u, "conversation-blocks")
	var folded, text bool
	walk(c.tv.turns, func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Accordion:
			if len(v.Items) == 1 && strings.HasPrefix(v.Items[0].Title, "Thinking") && !v.Items[0].Open {
				folded = true
			}
		case *widget.Label:
			if strings.Contains(v.Text, "SQLite in WAL mode") {
				text = true
			}
		}
	})
	if !folded || !text {
		t.Fatalf("want the text shown (%v) and the thinking block folded (%v)", text, folded)
	}
}

func TestTaggingChangesProjectList(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	c := u.convs
	u.showScreen(screenConversations)
	waitIdle(t, u)
	if slices.Contains(c.project.Options, "falcon (1)") {
		t.Fatal("falcon should not exist yet")
	}
	c.open("chatgpt:conv-budget", "")
	waitIdle(t, u)

	// Tag through the dialog, as a person would: the field has the
	// focus, Enter submits.
	test.Tap(c.tag)
	entry, ok := u.win.Canvas().Focused().(*dialogEntry)
	if !ok {
		t.Fatalf("the tag dialog's project field has no focus (%T has)", u.win.Canvas().Focused())
	}
	test.Type(entry, "falcon")
	typeKey(t, u, fyne.KeyReturn)
	waitIdle(t, u)
	if !slices.Contains(c.project.Options, "falcon (1)") {
		t.Fatalf("tagging should add falcon to the project list: %q", c.project.Options)
	}
	if !slices.Contains(u.search.project.Options, "falcon (1)") || !slices.Contains(u.forget.project.Options, "falcon only (1)") {
		t.Fatalf("the search and forget project filters should list falcon too: %q", u.search.project.Options)
	}
	if !slices.Contains(c.current.Projects, "falcon") || c.untag.Disabled() {
		t.Fatalf("the open conversation should now carry falcon: %q", c.current.Projects)
	}
	// The untagged count went down by one.
	if c.project.Options[1] != "Untagged (2)" {
		t.Fatalf("untagged option %q, want Untagged (2)", c.project.Options[1])
	}

	// Filtering by the project lists it.
	c.project.SetSelected("falcon (1)")
	waitIdle(t, u)
	found := false
	for _, it := range c.items {
		found = found || it.SessionID == "conv-budget"
	}
	if !found || c.rename.Disabled() {
		t.Fatalf("filter by falcon should list conv-budget and allow a rename")
	}

	// Rename it: the field has the focus with the old name selected, so
	// typing replaces it; Enter submits.
	test.Tap(c.rename)
	entry, ok = u.win.Canvas().Focused().(*dialogEntry)
	if !ok || entry.Text != "falcon" {
		t.Fatalf("the rename field has no focus (%T has)", u.win.Canvas().Focused())
	}
	test.Type(entry, "project-falcon")
	typeKey(t, u, fyne.KeyReturn)
	waitIdle(t, u)
	if slices.Contains(c.project.Options, "falcon (1)") || !slices.Contains(c.project.Options, "project-falcon (1)") {
		t.Fatalf("rename not reflected: %q", c.project.Options)
	}
	if c.project.Selected != "project-falcon (1)" {
		t.Fatalf("the filter should follow the rename, is %q", c.project.Selected)
	}

	// Untag removes it from the list.
	c.untagFrom("project-falcon")
	waitIdle(t, u)
	if slices.Contains(c.project.Options, "project-falcon (1)") {
		t.Fatalf("untag should remove the project: %q", c.project.Options)
	}

	// Star shows in the starred filter.
	test.Tap(c.star)
	waitIdle(t, u)
	if !c.current.Starred || c.star.Text != "Unstar" {
		t.Fatal("star did not stick")
	}
	c.starred.SetChecked(true)
	waitIdle(t, u)
	if len(c.items) != 1 || c.items[0].SessionID != "conv-budget" {
		t.Fatalf("starred filter lists %d", len(c.items))
	}
}
