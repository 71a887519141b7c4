package gui

import (
	"context"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/memory"
)

func TestForgetRemovesConversation(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	f := u.forget
	if hits := grepDir(t, m.Dir(), phraseForget); len(hits) == 0 {
		t.Fatal("the fixture should be on disk before the forget")
	}

	// Select by search.
	u.showScreen(screenForget)
	test.Type(f.query, phraseForget)
	test.Tap(findButton(t, u, "Find"))
	waitIdle(t, u)
	if len(f.found) != 1 || f.found[0].SessionID != "conv-forget" {
		t.Fatalf("find listed %d conversations, want conv-forget", len(f.found))
	}
	// Find ticks nothing: the person picks.
	if len(f.selected()) != 0 || !f.forgetButton.Disabled() || !strings.Contains(f.review.Text, "tick the ones to forget") {
		t.Fatalf("find ticked %d conversations; review says %q", len(f.selected()), f.review.Text)
	}
	f.list.Select(0) // a tap or Space on the row ticks it
	if !strings.Contains(f.review.Text, "1 conversation selected: 2 turns") {
		t.Fatalf("review says %q", f.review.Text)
	}

	capture(t, u, "forget-review")
	// Confirm: the dialog says it cannot be undone.
	test.Tap(f.forgetButton)
	capture(t, u, "forget-confirm")
	if !strings.Contains(overlayText(u), "cannot be undone") {
		t.Fatalf("confirmation should say it cannot be undone: %q", overlayText(u))
	}
	tapDialogButton(t, u, "Forget for good")
	waitIdle(t, u)

	if !strings.Contains(f.report.Text, "Erased 1 conversation (2 turns") || !strings.Contains(f.report.Text, "Something to forget") {
		t.Fatalf("report says %q", f.report.Text)
	}
	if !strings.Contains(f.report.Text, "No other conversation kept a quote of them in Ireneo's answers.") {
		t.Fatalf("report says %q, want the line on quotes", f.report.Text)
	}
	capture(t, u, "forget-report")
	if hits := grepDir(t, m.Dir(), phraseForget); len(hits) > 0 {
		t.Fatalf("%q is still in %v after the forget", phraseForget, hits)
	}
	if _, err := conversations.Get(context.Background(), m, conversations.GetOptions{SessionID: "conv-forget"}); err == nil {
		t.Fatal("the conversation can still be opened")
	}
	// The other screens no longer list it.
	for _, it := range u.convs.items {
		if it.SessionID == "conv-forget" {
			t.Fatal("the Conversations screen still lists it")
		}
	}
	if u.convs.count.Text != "4 conversations" {
		t.Fatalf("conversations count %q", u.convs.count.Text)
	}
}

func TestForgetFromConversationsScreen(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	// An earlier find on the Forget screen, with its word and many rows.
	u.forget.query.SetText("the")
	u.forget.find()
	waitIdle(t, u)
	if len(u.forget.found) < 2 {
		t.Fatalf("the earlier find listed %d", len(u.forget.found))
	}
	u.convs.open("codex:sess-code", "")
	waitIdle(t, u)
	test.Tap(u.convs.forget)
	if u.tabs.SelectedIndex() != screenForget {
		t.Fatal("Forget… should switch to the Forget screen")
	}
	// That conversation alone, ticked; the old find is gone.
	sel := u.forget.selected()
	if len(sel) != 1 || sel[0].SessionID != "sess-code" || len(u.forget.found) != 1 || u.forget.query.Text != "" {
		t.Fatalf("selected %v of %d listed, query %q", sel, len(u.forget.found), u.forget.query.Text)
	}
	// Cancelling changes nothing.
	test.Tap(u.forget.forgetButton)
	tapDialogButton(t, u, "Cancel")
	waitIdle(t, u)
	if _, err := conversations.Get(context.Background(), m, conversations.GetOptions{SessionID: "sess-code"}); err != nil {
		t.Fatalf("cancel forgot it anyway: %v", err)
	}
	test.Tap(u.forget.forgetButton)
	tapDialogButton(t, u, "Forget for good")
	waitIdle(t, u)
	if hits := grepDir(t, m.Dir(), "race was in the WAL checkpoint"); len(hits) > 0 {
		t.Fatalf("still on disk: %v", hits)
	}
	if u.convs.current != nil {
		t.Fatal("the transcript of a forgotten conversation is still open")
	}
	// No criteria is refused rather than selecting everything.
	u.forget.query.SetText("")
	u.forget.find()
	if !strings.Contains(u.lastError, "no criteria") {
		t.Fatalf("want a no-criteria error, got %q", u.lastError)
	}
}

// TestForgetProjectFilter: Forget's project filter says what it picks, a
// project's own conversations only or the untagged ones, and picks that.
func TestForgetProjectFilter(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	f := u.forget
	u.showScreen(screenForget)
	waitIdle(t, u)
	want := []string{anyProject, "Untagged (3)", "only ireneo (1)", "only long (1)"}
	if strings.Join(f.project.Options, "|") != strings.Join(want, "|") {
		t.Fatalf("project options %q, want %q", f.project.Options, want)
	}
	for _, c := range []struct {
		option string
		ids    []string
	}{{"only ireneo (1)", []string{"sess-code"}}, {"Untagged (3)", []string{"conv-budget", "conv-db", "conv-forget"}}} {
		f.project.SetSelected(c.option)
		f.find()
		waitIdle(t, u)
		var got []string
		for _, s := range f.found {
			got = append(got, s.SessionID)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.ids) {
			t.Errorf("%s finds %q, want %q", c.option, got, c.ids)
		}
	}
	// A refresh keeps the choice.
	f.refreshFilters()
	waitIdle(t, u)
	if f.project.Selected != "Untagged (3)" {
		t.Errorf("after a refresh the filter is %q", f.project.Selected)
	}
}

func TestForgetReportSaysQuotesErased(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	u.forget.showReport(memory.ForgetReport{
		Sessions: []memory.ForgottenSession{{SessionID: "conv-x", Title: "Seal order", Source: "funes", Turns: 2, Bytes: 300}},
		Files:    1, Quotes: 3, Quoting: 2,
	}, nil)
	want := "Also erased 3 quotes of them from Ireneo's answers kept in 2 other conversations (agents' transcripts)."
	if !strings.Contains(u.forget.report.Text, want) {
		t.Fatalf("report says %q, want %q", u.forget.report.Text, want)
	}
	u.showScreen(screenForget)
	capture(t, u, "forget-report-quotes")
}
