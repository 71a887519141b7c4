package gui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestUntagFromTheKeyboard: Untag… opens with Untag focused; Escape
// cancels, Enter untags.
func TestUntagFromTheKeyboard(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	openTranscript(t, u, "codex:sess-code")
	c := u.convs
	c.untagDialog()
	if b, ok := u.win.Canvas().Focused().(*keyButton); !ok || b.Text != "Untag" {
		t.Fatalf("Untag… should open with Untag focused, not %v", u.win.Canvas().Focused())
	}
	typeKey(t, u, fyne.KeyEscape)
	waitIdle(t, u)
	if u.win.Canvas().Overlays().Top() != nil || len(c.current.Projects) != 1 {
		t.Fatal("Escape should cancel Untag")
	}
	c.untagDialog()
	typeKey(t, u, fyne.KeyReturn)
	waitIdle(t, u)
	if u.win.Canvas().Overlays().Top() != nil || len(c.current.Projects) != 0 {
		t.Fatalf("Enter should untag: projects %v", c.current.Projects)
	}
}

// TestPathDialogTakesATypedPath: the file dialogs take a typed path (~
// for home), say what is wrong with one that does not exist, import on
// Enter, and cancel on Escape.
func TestPathDialogTakesATypedPath(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	home := filepath.Join(u.deps.Home, "Downloads")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	export := chatGPTExport(t, home, map[string][2]string{"typed-1": {"Typed path import", "Imported from a path typed in the dialog."}})
	u.imp.pickFile()
	e, ok := u.win.Canvas().Focused().(*pathEntry)
	if !ok {
		t.Fatalf("the file dialog should open with its path field focused, not %T", u.win.Canvas().Focused())
	}
	if !strings.HasSuffix(e.Text, "Downloads"+string(filepath.Separator)) {
		t.Errorf("the path field starts at %q, want the Downloads folder", e.Text)
	}
	capture(t, u, "dialog-import-path")
	e.SetText(filepath.Join(home, "no-such-export.zip"))
	typeKey(t, u, fyne.KeyReturn)
	if u.win.Canvas().Overlays().Top() == nil || !strings.Contains(overlayText(u), "does not exist") {
		t.Fatalf("a missing file should be named in the dialog, which stays: %q", overlayText(u))
	}
	typeKey(t, u, fyne.KeyEscape)
	if u.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Escape should close the file dialog")
	}
	u.imp.pickFile()
	e = u.win.Canvas().Focused().(*pathEntry)
	e.SetText(export)
	typeKey(t, u, fyne.KeyReturn)
	waitIdle(t, u)
	if u.lastError != "" || !strings.Contains(strings.Join(renderedTexts(u), "\n"), "1 new") {
		t.Fatalf("Enter on a typed path should import it: error %q", u.lastError)
	}
	var browse bool
	u.imp.pickFile()
	walk(u.win.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if b, ok := o.(*keyButton); ok && b.Text == "Browse…" {
			browse = true
		}
	})
	if !browse {
		t.Error("the file dialog has no Browse… button")
	}
	typeKey(t, u, fyne.KeyEscape)
}
