package gui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
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
	for title, f := range folds(c.tv.turns) {
		if strings.HasPrefix(title, "Thinking: They need FTS") && !f.open {
			folded = true
		}
	}
	for _, s := range texts(c.tv.turns) {
		if strings.Contains(s.Text, "SQLite in WAL mode") {
			text = true
		}
	}
	if !folded || !text {
		t.Fatalf("want the text shown (%v) and the thinking block folded (%v)", text, folded)
	}
}

func TestTaggingChangesProjectList(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	c := u.convs
	u.showScreen(screenConversations)
	waitIdle(t, u)
	if slices.Contains(c.project.sel.Options, "only falcon (1)") {
		t.Fatal("falcon should not exist yet")
	}
	c.open("chatgpt:conv-budget", "")
	waitIdle(t, u)

	// Tag through the dialog, as a person would.
	test.Tap(c.tag)
	top := u.win.Canvas().Overlays().Top()
	var entry *dialogEntry
	walk(top, func(o fyne.CanvasObject) {
		if e, ok := o.(*dialogEntry); ok {
			entry = e
		}
	})
	if entry == nil {
		t.Fatal("the tag dialog has no project field")
	}
	test.Type(entry, "falcon")
	tapDialogButton(t, u, "Tag")
	waitIdle(t, u)
	// Each project is offered with the untagged conversations and alone,
	// said in words.
	if !slices.Contains(c.project.sel.Options, "only falcon (1)") || !slices.Contains(c.project.sel.Options, "falcon + untagged (3)") {
		t.Fatalf("tagging should add falcon to the project list: %q", c.project.sel.Options)
	}
	if !slices.Contains(u.search.project.sel.Options, "only falcon (1)") || !slices.Contains(u.forget.project.Options, "only falcon (1)") {
		t.Fatalf("the search and forget project filters should list falcon too: %q", u.search.project.sel.Options)
	}
	if !slices.Contains(c.current.Projects, "falcon") || c.untag.Disabled() {
		t.Fatalf("the open conversation should now carry falcon: %q", c.current.Projects)
	}
	// The untagged count went down by one.
	if c.project.sel.Options[1] != "Untagged (2)" {
		t.Fatalf("untagged option %q, want Untagged (2)", c.project.sel.Options[1])
	}

	// Filtering by the project alone lists it and nothing else.
	c.project.sel.SetSelected("only falcon (1)")
	waitIdle(t, u)
	if len(c.items) != 1 || c.items[0].SessionID != "conv-budget" || c.rename.Disabled() {
		t.Fatalf("only falcon should list conv-budget alone (%d) and allow a rename", len(c.items))
	}
	// With the untagged conversations: three, the untagged marked so.
	c.project.sel.SetSelected("falcon + untagged (3)")
	waitIdle(t, u)
	if len(c.items) != 3 || c.count.Text != "3 conversations" {
		t.Fatalf("falcon + untagged lists %d (%q), want 3", len(c.items), c.count.Text)
	}
	c.project.sel.SetSelected("Untagged (2)")
	waitIdle(t, u)
	for _, it := range c.items {
		if len(it.Projects) != 0 {
			t.Fatalf("Untagged lists %s, tagged %q", it.SessionID, it.Projects)
		}
	}
	if len(c.items) != 2 || !c.rename.Disabled() {
		t.Fatalf("Untagged should list 2 (%d) and offer no rename", len(c.items))
	}
	c.project.sel.SetSelected(anyProject)
	if !c.rename.Disabled() {
		t.Fatal("Rename project… should be disabled on All projects")
	}
	c.project.sel.SetSelected("only falcon (1)")
	waitIdle(t, u)

	// Rename it.
	c.renameTo("falcon", "project-falcon")
	waitIdle(t, u)
	if slices.Contains(c.project.sel.Options, "only falcon (1)") || !slices.Contains(c.project.sel.Options, "only project-falcon (1)") {
		t.Fatalf("rename not reflected: %q", c.project.sel.Options)
	}
	if c.project.sel.Selected != "only project-falcon (1)" {
		t.Fatalf("the filter should follow the rename, is %q", c.project.sel.Selected)
	}

	// Untag removes it from the list.
	c.untagFrom("project-falcon")
	waitIdle(t, u)
	if slices.Contains(c.project.sel.Options, "only project-falcon (1)") {
		t.Fatalf("untag should remove the project: %q", c.project.sel.Options)
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

// Tag and Rename (askText, the one text dialog) submit on Enter; Rename opens with the field focused and
// the old name selected, so typing replaces it.
func TestTagAndRenameFromTheKeyboard(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	c := u.convs
	u.showScreen(screenConversations)
	waitIdle(t, u)
	c.open("chatgpt:conv-budget", "")
	waitIdle(t, u)
	test.Tap(c.tag)
	entry, ok := u.win.Canvas().Focused().(*dialogEntry)
	if !ok {
		t.Fatalf("the tag dialog's field should have the focus, %T has", u.win.Canvas().Focused())
	}
	test.Type(entry, "kestrel")
	pressKey(entry, fyne.KeyReturn)
	waitIdle(t, u)
	if u.win.Canvas().Overlays().Top() != nil || !slices.Contains(c.current.Projects, "kestrel") {
		t.Fatalf("Enter should tag and close the dialog; projects %q", c.current.Projects)
	}

	if !c.project.choose(projectChoice{project: "kestrel", only: true}) {
		t.Fatalf("no only-kestrel option in %q", c.project.sel.Options)
	}
	waitIdle(t, u)
	test.Tap(c.rename)
	e, ok := u.win.Canvas().Focused().(*dialogEntry)
	if !ok {
		t.Fatalf("the rename field should have the focus, %T has", u.win.Canvas().Focused())
	}
	test.Type(e, "osprey")
	if e.Text != "osprey" {
		t.Fatalf("typing should replace the selected old name, field says %q", e.Text)
	}
	pressKey(e, fyne.KeyReturn)
	waitIdle(t, u)
	if u.win.Canvas().Overlays().Top() != nil || c.project.sel.Selected != "only osprey (1)" {
		t.Fatalf("Enter should rename and the filter follow: %q", c.project.sel.Selected)
	}
}
