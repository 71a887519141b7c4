package gui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/memscrub"
)

// typeKey sends a key to whatever has the keyboard focus, or to the
// window when nothing has, as the driver does.
func typeKey(t *testing.T, u *ui, k fyne.KeyName) {
	t.Helper()
	c := u.win.Canvas()
	if f := c.Focused(); f != nil {
		f.TypedKey(&fyne.KeyEvent{Name: k})
		return
	}
	if h := c.OnTypedKey(); h != nil {
		h(&fyne.KeyEvent{Name: k})
		return
	}
	t.Fatalf("nothing takes the %s key", k)
}

// TestDialogsFromTheKeyboard: an error's OK takes Enter, with or without
// the focus; Escape cancels the Redact and Forget confirmations, whose
// Cancel has the focus; Tab then Enter confirms.
func TestDialogsFromTheKeyboard(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)

	u.showError("do a thing", errors.New("it broke"))
	if _, ok := u.win.Canvas().Focused().(*keyButton); !ok {
		t.Fatalf("the error's OK has no focus; %T has", u.win.Canvas().Focused())
	}
	typeKey(t, u, fyne.KeyReturn)
	if u.win.Canvas().Overlays().Top() != nil {
		t.Fatalf("Enter left the error open: %q", overlayText(u))
	}
	u.showError("do a thing", errors.New("it broke"))
	u.win.Canvas().Unfocus()
	typeKey(t, u, fyne.KeyEscape)
	if u.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Escape with nothing focused left the error open")
	}

	// Forget: Cancel has the focus, Escape cancels, Tab and Enter forget.
	f := u.forget
	f.query.SetText(phraseForget)
	f.find()
	waitIdle(t, u)
	test.Tap(f.selectAll)
	test.Tap(f.forgetButton)
	if b, ok := u.win.Canvas().Focused().(*keyButton); !ok || b.Text != "Cancel" {
		t.Fatalf("the Forget confirmation should open with Cancel focused, not %v", u.win.Canvas().Focused())
	}
	if b := dialogButton(u, "Forget for good").(*keyButton); b.Importance != widget.DangerImportance {
		t.Errorf("Forget for good has importance %v, want danger", b.Importance)
	}
	typeKey(t, u, fyne.KeyEscape)
	waitIdle(t, u)
	if u.win.Canvas().Overlays().Top() != nil || len(grepDir(t, m.Dir(), phraseForget)) == 0 {
		t.Fatal("Escape should cancel the Forget confirmation and forget nothing")
	}
	test.Tap(f.forgetButton)
	u.win.Canvas().FocusNext()
	if b, ok := u.win.Canvas().Focused().(*keyButton); !ok || b.Text != "Forget for good" {
		t.Fatalf("Tab should move to Forget for good, not %v", u.win.Canvas().Focused())
	}
	typeKey(t, u, fyne.KeyReturn)
	waitIdle(t, u)
	if hits := grepDir(t, m.Dir(), phraseForget); len(hits) > 0 {
		t.Fatalf("Enter on Forget for good forgot nothing: %v", hits)
	}
}

// TestOneConfirmationStyle: what cannot be undone is confirmed the same
// way everywhere: a red button naming the act, beside a focused Cancel.
func TestOneConfirmationStyle(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	for _, c := range []struct {
		open func()
		verb string
		icon fyne.Resource // what the act does: only Forget deletes
	}{
		{func() { u.connect.confirmRevoke("claude-code") }, "Revoke", theme.CancelIcon()},
		{func() { u.scrub.confirmRedact([]memscrub.Finding{{ID: "x", Source: "chatgpt", SessionID: "c"}}) }, "Redact", theme.VisibilityOffIcon()},
		{func() { u.forget.found = fixtureInfos(t, u); u.forget.setAll(true); u.forget.confirm() }, "Forget for good", theme.DeleteIcon()},
	} {
		c.open()
		b, ok := dialogButton(u, c.verb).(*keyButton)
		if !ok || b.Importance != widget.DangerImportance {
			t.Errorf("%s: no red %q button (%q)", c.verb, c.verb, overlayText(u))
		}
		if ok && (b.Icon == nil || b.Icon.Name() != c.icon.Name()) {
			t.Errorf("%s: its button has the icon %v, want %s", c.verb, b.Icon, c.icon.Name())
		}
		if f, ok := u.win.Canvas().Focused().(*keyButton); !ok || f.Text != "Cancel" {
			t.Errorf("%s: Cancel should have the focus", c.verb)
		}
		typeKey(t, u, fyne.KeyEscape)
		if u.win.Canvas().Overlays().Top() != nil {
			t.Errorf("%s: Escape left the confirmation open", c.verb)
		}
	}
}

// fixtureInfos lists the memory's conversations.
func fixtureInfos(t *testing.T, u *ui) []answer.Conversation {
	t.Helper()
	ss, _, err := conversations.List(context.Background(), u.mem, conversations.Query{Limit: 10})
	if err != nil || len(ss) == 0 {
		t.Fatalf("sessions: %v (%d)", err, len(ss))
	}
	return ss
}

// TestValidationErrorsSayNoMore: a plain validation error is its own
// advice; an unknown failure still says what to do.
func TestValidationErrorsSayNoMore(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	u.showScreen(screenSettings)
	u.prefs.port.SetText("99999")
	test.Tap(u.prefs.save)
	waitIdle(t, u)
	if got := overlayText(u); !strings.Contains(got, "not a number from 1 to 65535") || strings.Contains(got, "What to do") {
		t.Errorf("a bad port says %q", got)
	}
	typeKey(t, u, fyne.KeyReturn)
	u.showError("do a thing", errors.New("it broke"))
	if got := overlayText(u); !strings.Contains(got, "What to do") || !strings.Contains(got, "Try again") {
		t.Errorf("an unknown failure says %q", got)
	}
}

// TestAskTextKeyboard: the field has the focus with its text selected,
// Enter submits, Escape cancels, an empty name cannot be submitted.
func TestAskTextKeyboard(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	var got []string
	u.askText("Rename project “falcon”", "New name", "Rename", "falcon", nil, func(s string) { got = append(got, s) })
	e, ok := u.win.Canvas().Focused().(*dialogEntry)
	if !ok {
		t.Fatalf("the field has no focus; %T has", u.win.Canvas().Focused())
	}
	test.Type(e, "heron") // replaces the selected old name
	typeKey(t, u, fyne.KeyReturn)
	if len(got) != 1 || got[0] != "heron" || u.win.Canvas().Overlays().Top() != nil {
		t.Fatalf("Enter submitted %q (dialog open: %v)", got, u.win.Canvas().Overlays().Top() != nil)
	}

	u.askText("Tag", "Project", "Tag", "", []string{"falcon", "heron"}, func(s string) { got = append(got, s) })
	if !dialogButton(u, "Tag").(*keyButton).Disabled() {
		t.Error("Tag should be disabled while the name is empty")
	}
	typeKey(t, u, fyne.KeyReturn)
	if len(got) != 1 || u.win.Canvas().Overlays().Top() == nil {
		t.Fatal("Enter on an empty name should do nothing")
	}
	typeKey(t, u, fyne.KeyEscape)
	if len(got) != 1 || u.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Escape should cancel")
	}
}

// TestFindReplacesTheQuery: Ctrl+F selects the old query, so typing
// replaces it.
func TestFindReplacesTheQuery(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	u.showScreen(screenSearch)
	test.Type(u.search.query, "old words")
	u.showScreen(screenScrub)
	u.find()
	if u.tabs.SelectedIndex() != screenSearch {
		t.Fatal("Ctrl+F should show Search")
	}
	f := u.win.Canvas().Focused()
	if f == nil {
		t.Fatal("nothing focused after Ctrl+F")
	}
	for _, r := range "new" {
		f.TypedRune(r)
	}
	if got := u.search.query.Text; got != "new" {
		t.Fatalf("after Ctrl+F and typing, the query is %q", got)
	}
}

// TestSelectTakesArrowKeys: Fyne's Select, once it has the focus (Tab),
// steps through its options with Left and Right, and opens its list with
// Down (Up/Down, then Enter, pick from it).
func TestSelectTakesArrowKeys(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	u.showScreen(screenInsights)
	waitIdle(t, u)
	s := u.insights
	u.win.Canvas().Focus(s.rng)
	before := s.rng.Selected
	typeKey(t, u, fyne.KeyRight)
	waitIdle(t, u)
	if s.rng.Selected == before {
		t.Fatalf("Right left the range at %q", before)
	}
	typeKey(t, u, fyne.KeyDown) // opens the list
	if u.win.Canvas().Overlays().Top() == nil {
		t.Fatal("Down should open the list")
	}
	typeKey(t, u, fyne.KeyDown)
	typeKey(t, u, fyne.KeyReturn)
	waitIdle(t, u)
	if u.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Enter should pick from the list and close it")
	}
}
