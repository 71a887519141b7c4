package gui

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/ireneo-app/ireneo/memory"
)

// reviewDir is where the review's screenshots go: $IRENEO_REVIEW_DIR, else
// test-artifacts/screens.
func reviewDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("IRENEO_REVIEW_DIR")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "test-artifacts", "screens")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReviewDialogShots photographs every dialog, drawn by Fyne's
// software painter under the test driver at 1280×800 and 900×600, into
// reviewDir as dialog-*.png, for a person to look at beside
// TestRealWindowReview's shots of the screens. It runs only when
// IRENEO_REVIEW=1 and checks no more than that each dialog opened.
func TestReviewDialogShots(t *testing.T) {
	if os.Getenv("IRENEO_REVIEW") != "1" {
		t.Skip("IRENEO_REVIEW=1 takes the review screenshots")
	}
	dir := reviewDir(t)
	m := shownSecretsMemory(t)
	if _, err := m.Ingest(context.Background(), reviewSessions(), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	u := newTestUI(t, m)
	shoot := func(name string, size fyne.Size) {
		t.Helper()
		waitIdle(t, u)
		if u.win.Canvas().Overlays().Top() == nil {
			t.Errorf("%s: no dialog open", name)
		}
		relayout(u.win.Content())
		for _, o := range u.win.Canvas().Overlays().List() {
			relayout(o)
		}
		u.win.Resize(size.AddWidthHeight(1, 1))
		u.win.Resize(size)
		f, err := os.Create(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, u.win.Canvas().Capture()); err != nil {
			t.Fatal(err)
		}
	}
	closeAll := func() {
		for u.win.Canvas().Overlays().Top() != nil {
			u.win.Canvas().Overlays().Top().Hide()
			u.win.Canvas().Overlays().Remove(u.win.Canvas().Overlays().Top())
		}
		waitIdle(t, u)
	}
	for _, size := range []fyne.Size{fyne.NewSize(1280, 800), fyne.NewSize(900, 600)} {
		tag := map[float32]string{1280: "1280x800", 900: "900x600"}[size.Width]
		u.win.Resize(size)
		dialogs := []struct {
			name string
			open func()
		}{
			{"untag", func() { openTranscript(t, u, "codex:sess-code"); u.convs.untagDialog() }},
			{"tag", func() { openTranscript(t, u, "codex:sess-code"); u.convs.tagDialog() }},
			{"rename-project", func() {
				u.showScreen(screenConversations)
				waitIdle(t, u)
				for _, o := range u.convs.project.sel.Options {
					if strings.HasPrefix(o, "only ") {
						u.convs.project.sel.SetSelected(o)
						break
					}
				}
				waitIdle(t, u)
				if !u.convs.rename.Disabled() {
					test.Tap(u.convs.rename)
				}
			}},
			{"forget-confirm", func() {
				openTranscript(t, u, "claude_code:cc-deploy")
				test.Tap(u.convs.forget)
				waitIdle(t, u)
				test.Tap(u.forget.forgetButton)
			}},
			{"redact-confirm", func() {
				u.showScreen(screenScrub)
				test.Tap(u.scrub.scan)
				waitIdle(t, u)
				u.scrub.confirmRedact(u.scrub.findings)
			}},
			{"token-create", func() { u.showScreen(screenConnect); u.connect.createToken("review-"+tag, "") }},
			{"token-reveal", func() { u.showScreen(screenConnect); u.connect.revealToken("review-" + tag) }},
			{"token-revoke", func() { u.showScreen(screenConnect); u.connect.confirmRevoke("review-" + tag) }},
			{"import-path", func() { u.showScreen(screenImport); u.imp.pickFile() }},
			{"port-in-use", func() { u.showPortInUse() }},
			{"error", func() { u.showError("import ~/Downloads/export.zip", os.ErrPermission) }},
		}
		for _, d := range dialogs {
			d.open()
			shoot("dialog-"+d.name+"-"+tag, size)
			closeAll()
		}
	}
}
