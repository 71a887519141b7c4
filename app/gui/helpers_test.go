package gui

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/settings"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// Phrases planted in the fixture conversations, for searching and grepping.
const (
	phraseBudget   = "MT-4471"
	phraseFalcon   = "Falcon"
	phraseDatabase = "catalogue database"
	phraseLongTurn = "zanzibar" // only in turn 30 of the long conversation
	phraseForget   = "quetzalcoatl"
)

// fixtureSessions are a few conversations from each source.
func fixtureSessions() []*funes.Session {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	turn := func(id string, seq int, role string, blocks ...funes.Block) funes.Turn {
		return funes.Turn{TurnUUID: fmt.Sprintf("%s-%d", id, seq), Seq: seq, TS: t0.Add(time.Duration(seq) * time.Minute), Role: role, Blocks: blocks}
	}
	text := func(s string) funes.Block { return funes.Block{Type: funes.BlockText, Text: s} }
	budget := &funes.Session{ID: "conv-budget", Harness: funes.HarnessChatGPT, Title: "Budget for Project Falcon", Turns: []funes.Turn{
		turn("conv-budget", 0, funes.RoleUser, text("What budget did we agree for "+phraseBudget+"?")),
		turn("conv-budget", 1, funes.RoleAssistant, text("For "+phraseBudget+" we agreed 12,500 euros, split across two quarters.")),
		turn("conv-budget", 2, funes.RoleUser, text("And the Falcon launch date?")),
		turn("conv-budget", 3, funes.RoleAssistant, text("The "+phraseFalcon+" launch is planned for June.")),
	}}
	db := &funes.Session{ID: "conv-db", Harness: funes.HarnessClaude, Title: "Which database for the catalogue", Turns: []funes.Turn{
		turn("conv-db", 0, funes.RoleUser, text("Which "+phraseDatabase+" should we use?")),
		turn("conv-db", 1, funes.RoleAssistant,
			funes.Block{Type: funes.BlockThinking, Text: "They need FTS and a single file."},
			text("SQLite in WAL mode suits the "+phraseDatabase+".")),
	}}
	forget := &funes.Session{ID: "conv-forget", Harness: funes.HarnessClaude, Title: "Something to forget", Turns: []funes.Turn{
		turn("conv-forget", 0, funes.RoleUser, text("Tell me about "+phraseForget+" the feathered serpent.")),
		turn("conv-forget", 1, funes.RoleAssistant, text("Quetzalcoatl is a Mesoamerican deity: "+phraseForget+".")),
	}}
	code := &funes.Session{ID: "sess-code", Harness: funes.HarnessCodex, Title: "Fix the flaky store test", Workdir: "/src/ireneo", Project: "ireneo", Turns: []funes.Turn{
		turn("sess-code", 0, funes.RoleUser, text("The store test is flaky on CI.")),
		turn("sess-code", 1, funes.RoleAssistant,
			funes.Block{Type: funes.BlockToolUse, ToolName: "shell", Text: "go test ./memory -run TestStore -count 20"},
			funes.Block{Type: funes.BlockToolResult, ToolName: "shell", Text: "ok  memory 3.2s"},
			text("It passes 20 times now; the race was in the WAL checkpoint.")),
	}}
	long := &funes.Session{ID: "sess-long", Harness: funes.HarnessClaudeCode, Title: "A long session", Workdir: "/src/long", Project: "long"}
	for i := 0; i < 60; i++ {
		role := funes.RoleUser
		if i%2 == 1 {
			role = funes.RoleAssistant
		}
		body := fmt.Sprintf("Step %d of the refactor: move the parser into its own package and keep the tests green. %s",
			i, strings.Repeat("More detail about this step. ", 6))
		if i == 30 {
			body = "The " + phraseLongTurn + " migration finished at step 30."
		}
		long.Turns = append(long.Turns, turn("sess-long", i, role, text(body)))
	}
	return []*funes.Session{budget, db, forget, code, long}
}

// uiMu stands in for the UI goroutine: Fyne's test driver runs fyne.Do at
// once on the calling goroutine, so background reports take turns here,
// as they do on the real driver's event loop.
var uiMu sync.Mutex

func init() {
	fyneDo = onUI
	memoryPollEvery = 0 // tests change the memory behind the window; TestListsFollowTheMemory turns it on
}

// onUI runs fn as on the UI goroutine: no background report runs meanwhile.
// Tests use it for calls that start background work and go on touching
// the widgets (building the window, start).
func onUI(fn func()) {
	uiMu.Lock()
	defer uiMu.Unlock()
	fn()
}

// testEnv points HOME and the XDG folders at a temp dir, so nothing touches
// the person's own settings, keyring files or autostart entries.
func testEnv(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"} {
		d := filepath.Join(root, strings.ToLower(k))
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Setenv(k, d)
	}
	t.Setenv("IRENEO_CONFIG", filepath.Join(root, "config"))
	t.Setenv("CODEX_HOME", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	return root
}

// newTestMemory opens a memory in a temp dir with the fixture conversations.
func newTestMemory(t *testing.T) *memory.Memory {
	t.Helper()
	m, err := memory.Open(filepath.Join(t.TempDir(), "memory"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if _, err := m.Ingest(context.Background(), fixtureSessions(), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return m
}

// tokenStore is the real OS keyring under `make test` (which sets
// IRENEO_TEST_KEYRING and starts gnome-keyring), under a service name of
// this test's own; elsewhere an in-process store.
func tokenStore(t testing.TB) tokenstore.TokenStore {
	t.Helper()
	if os.Getenv("IRENEO_TEST_KEYRING") == "" {
		return tokenstore.NewMemoryTokenStore()
	}
	b := make([]byte, 6)
	rand.Read(b)
	ks := &tokenstore.KeyringStore{Service: "ireneo-gui-test-" + hex.EncodeToString(b)}
	if err := ks.Check(context.Background()); err != nil {
		t.Fatalf("IRENEO_TEST_KEYRING is set but the keyring does not work: %v", err)
	}
	return ks
}

// newTestUI builds the window over m with a real server (not started), a
// settings file and an autostart folder in temp dirs.
func newTestUI(t testing.TB, m *memory.Memory) *ui {
	t.Helper()
	root := testEnv(t)
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme()) // so captures look like the app
	notifyAfter, toastFor = 0, 0
	hook := &CallHook{}
	srv := mcpserver.New(m, tokenStore(t), mcpserver.Options{
		Version: "test", OnCall: hook.Call,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	set := settings.Default()
	set.ServerAddr = "127.0.0.1:0"
	var u *ui
	onUI(func() {
		u = newUI(a, m, Deps{
			Server: srv, Calls: hook, Settings: set,
			Autostart: Autostart{Dir: filepath.Join(root, "autostart"), Exec: "/opt/ireneo/ireneo", GOOS: "linux"},
			Home:      filepath.Join(root, "home"),
		})
		u.win.Resize(fyne.NewSize(1100, 720))
		u.win.Show()
	})
	t.Cleanup(func() {
		u.cancel()
		srv.Close()
		waitIdle(t, u)
		if u.watchDone != nil {
			<-u.watchDone
		}
	})
	waitIdle(t, u)
	return u
}

// waitIdle waits until no background work is left (and stays so briefly,
// since finished work may start more).
func waitIdle(t testing.TB, u *ui) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	quiet := 0
	for quiet < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("background work still running after 60s (%d jobs)", u.busy.Load())
		}
		if u.busy.Load() == 0 {
			quiet++
		} else {
			quiet = 0
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// grepDir reports every file under dir that contains needle.
func grepDir(t *testing.T, dir, needle string) []string {
	t.Helper()
	var hits []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil && bytes.Contains(bytes.ToLower(data), bytes.ToLower([]byte(needle))) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

// pressKey sends a key to a focusable widget, as the keyboard would.
func pressKey(w fyne.Focusable, k fyne.KeyName) {
	w.TypedKey(&fyne.KeyEvent{Name: k})
}

// tapDialogButton taps the button with the given text in the window's top
// overlay (an open dialog), failing if there is none.
func tapDialogButton(t *testing.T, u *ui, text string) {
	t.Helper()
	top := u.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatalf("no dialog open; wanted a %q button", text)
	}
	found := dialogButton(u, text)
	if found == nil {
		t.Fatalf("the dialog has no %q button; it says %q", text, overlayText(u))
	}
	test.Tap(found)
}

// dialogButton is the button with the given text in the topmost overlay
// that has one (a toast may lie over a dialog): a Fyne button or one of
// the app's own keyButtons; nil if there is none.
func dialogButton(u *ui, text string) fyne.Tappable {
	overlays := u.win.Canvas().Overlays().List()
	for i := len(overlays) - 1; i >= 0; i-- {
		var found fyne.Tappable
		walk(overlays[i], func(o fyne.CanvasObject) {
			switch b := o.(type) {
			case *widget.Button:
				if b.Text == text {
					found = b
				}
			case *keyButton:
				if b.Text == text {
					found = b
				}
			}
		})
		if found != nil {
			return found
		}
	}
	return nil
}

// overlayText is the text of the top overlay, for messages.
func overlayText(u *ui) string {
	top := u.win.Canvas().Overlays().Top()
	if top == nil {
		return ""
	}
	var parts []string
	walk(top, func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Label:
			parts = append(parts, v.Text)
		case *widget.RichText:
			parts = append(parts, v.String())
		}
	})
	return strings.Join(parts, " | ")
}

// walk visits o and everything inside it, rendered or not.
func walk(o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	fn(o)
	switch v := o.(type) {
	case *fyne.Container:
		for _, c := range v.Objects {
			walk(c, fn)
		}
	case fyne.Widget:
		r := test.WidgetRenderer(v)
		if r == nil {
			return
		}
		for _, c := range r.Objects() {
			walk(c, fn)
		}
	}
}

// findButton finds a button by its text on the current screen.
func findButton(t *testing.T, u *ui, text string) *widget.Button {
	t.Helper()
	var found *widget.Button
	walk(u.tabs.Selected().Content, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == text && found == nil {
			found = b
		}
	})
	if found == nil {
		t.Fatalf("no %q button on this screen", text)
	}
	return found
}

// capture saves what the window shows as
// test-artifacts/screens/widget-NAME.png, for people to look at.
func capture(t *testing.T, u *ui, name string) {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "test-artifacts", "screens")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "widget-"+name+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The real driver re-lays out parents whose children changed size on
	// every frame; the test canvas does not, so do it before the picture.
	relayout(u.win.Content())
	sz := u.win.Canvas().Size()
	u.win.Resize(sz.AddWidthHeight(1, 1))
	u.win.Resize(sz)
	if err := png.Encode(f, u.win.Canvas().Capture()); err != nil {
		t.Fatal(err)
	}
}

// relayout refreshes everything under o, children before parents, so each
// container lays out with its children's current sizes.
func relayout(o fyne.CanvasObject) {
	switch v := o.(type) {
	case *fyne.Container:
		for _, c := range v.Objects {
			relayout(c)
		}
		v.Refresh()
	case fyne.Widget:
		if r := test.WidgetRenderer(v); r != nil {
			for _, c := range r.Objects() {
				relayout(c)
			}
			r.Layout(v.Size())
		}
		v.Refresh()
	}
}

// renderedTexts is every text the window renders now: its content and
// every overlay (dialogs, pop-ups), table cells and list rows in view
// included. A label's whole text counts, even where it is cut short on
// screen.
func renderedTexts(u *ui) []string {
	out := textsUnder(u.win.Canvas().Content())
	for _, o := range u.win.Canvas().Overlays().List() {
		out = append(out, textsUnder(o)...)
	}
	return out
}

// textsUnder is every text rendered under o, as renderedTexts counts them.
func textsUnder(root fyne.CanvasObject) []string {
	var out []string
	collect := func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Label:
			out = append(out, v.Text)
		case *widget.RichText:
			out = append(out, v.String())
		case *widget.Entry:
			out = append(out, v.Text, v.PlaceHolder)
		case *widget.Button:
			out = append(out, v.Text)
		case *keyButton:
			out = append(out, v.Text)
		case *widget.Select:
			out = append(out, v.Selected)
		case *widget.Check:
			out = append(out, v.Text)
		case *widget.Hyperlink:
			out = append(out, v.Text)
		case *canvas.Text:
			out = append(out, v.Text)
		}
	}
	walk(root, collect)
	return out
}

// leaks says which secrets any rendered text holds more of than a masked
// preview does: any run of five of their characters.
func leaks(texts []string, secrets ...string) []string {
	var out []string
	for _, s := range secrets {
		for i := 0; i+5 <= len(s); i++ {
			found := false
			for _, t := range texts {
				if strings.Contains(t, s[i:i+5]) {
					out = append(out, fmt.Sprintf("%q shows %q of %q", clip(t, 120), s[i:i+5], s))
					found = true
					break
				}
			}
			if found {
				break
			}
		}
	}
	return out
}
