package gui

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/clients"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/settings"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// findButtons returns the buttons with text in the window (dialogs left
// out), in order.
func findButtons(u *ui, text string) []*widget.Button {
	var out []*widget.Button
	walk(u.win.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == text {
			out = append(out, b)
		}
	})
	return out
}

// TestConnectLockedKeyring: a locked store is said once, in one dialog
// with buttons; the server starts and serves anyway; a token's Copy and
// Reveal are off while its secret cannot be read; keeping secrets in a
// file makes tokens again and is remembered in the settings.
func TestConnectLockedKeyring(t *testing.T) {
	m := newTestMemory(t)
	store := tokenstore.NewMemoryTokenStore()
	u := newTestUIWithStore(t, m, store)
	c := u.connect
	toks, _ := c.tokensAPI()
	if _, _, err := toks.Create(context.Background(), "claude-code", nil); err != nil {
		t.Fatal(err)
	}
	store.Err = &tokenstore.KeyringUnavailableError{Kind: tokenstore.KeyringLocked, Reason: "the keyring is locked", Fix: "pass --token-store file", Err: errors.New("IsLocked")}
	onUI(func() {
		u.showScreen(screenConnect)
		c.checkKeyring()
	})
	waitIdle(t, u)
	if got := overlayText(u); !strings.Contains(got, "the keyring is locked") || !strings.Contains(got, "does not need the keyring") ||
		strings.Contains(got, "--token-store") || strings.Contains(got, "IsLocked") {
		t.Fatalf("the keyring dialog says %q", got)
	}
	capture(t, u, "connect-keyring-locked-dialog")
	// A second reason to show it (Create) does not stack a second dialog.
	onUI(func() { c.createToken("other", "") })
	waitIdle(t, u)
	if n := len(u.win.Canvas().Overlays().List()); n != 1 {
		t.Fatalf("%d dialogs open", n)
	}
	// Escape is Not now.
	focused := u.win.Canvas().Focused()
	if focused == nil {
		t.Fatal("nothing in the dialog has the keyboard")
	}
	onUI(func() { focused.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape}) })
	waitIdle(t, u)
	if u.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Not now left the dialog open")
	}

	// The server runs on the locked store.
	onUI(u.startServer)
	waitIdle(t, u)
	if !u.deps.Server.Running() {
		t.Fatalf("the server did not start on a locked keyring: %s", u.lastError)
	}
	onUI(c.refresh)
	waitIdle(t, u)
	if b := findButtons(u, "Reveal"); len(b) != 1 || !b[0].Disabled() {
		t.Fatalf("Reveal for a locked secret: %v", b)
	}
	if !c.writeBtn[clients.ClientClaudeCode].Disabled() || !c.copyBtn[clients.ClientClaudeCode].Disabled() {
		t.Fatal("Copy or Write is on for a client whose secret is locked")
	}
	if !c.keyringBanner.Visible() {
		t.Fatal("no banner about the locked keyring")
	}
	capture(t, u, "connect-keyring-locked")

	// Keep secrets in a file: a new token works, the old one is marked.
	onUI(c.offerStoreChoice)
	tapDialogButton(t, u, "Keep secrets in a file…")
	tapDialogButton(t, u, "Keep secrets in a file")
	waitIdle(t, u)
	if u.set.TokenStore != settings.TokenStoreFile {
		t.Fatalf("the choice was not remembered: %+v", u.set)
	}
	onUI(func() { c.createToken("cursor", "") })
	waitIdle(t, u)
	secret := secretInDialog(t, u)
	tapDialogButton(t, u, "Close")
	st, err := os.Stat(u.deps.TokenFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", st, err)
	}
	if _, err := toks.Authenticate(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, u)
	if !strings.Contains(c.secretProblem("claude-code"), "not found in the file") {
		t.Fatalf("the keyring token after the switch: %q", c.secretProblem("claude-code"))
	}
}

// TestConnectSaysWhyStopped: a server that could not start says why on the
// Connect screen, next to Start server; a client with no token cannot be
// copied or written.
func TestConnectSaysWhyStopped(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	m := newTestMemory(t)
	u := newTestUI(t, m)
	u.set.ServerAddr = ln.Addr().String()
	onUI(func() {
		u.showScreen(screenConnect)
		u.startServer()
	})
	waitIdle(t, u)
	// One plain sentence, no command-line flag, and a way to the field.
	if got := overlayText(u); !strings.Contains(got, "is using port") || strings.Contains(got, "--addr") {
		t.Errorf("the port dialog says %q", got)
	}
	capture(t, u, "port-in-use")
	tapDialogButton(t, u, "Change the port…")
	if u.tabs.SelectedIndex() != screenSettings || u.win.Canvas().Focused() != u.prefs.port {
		t.Fatalf("Change the port… should open Settings with the port field focused (screen %d, %T focused)", u.tabs.SelectedIndex(), u.win.Canvas().Focused())
	}
	u.showScreen(screenConnect)
	waitIdle(t, u)
	if got := u.connect.status.Text; !strings.Contains(got, "Stopped: it could not start") || !strings.Contains(got, "already in use") || strings.Contains(got, "--addr") {
		t.Fatalf("Connect says %q", got)
	}
	if u.connect.toggle.Text != "Start server" || u.connect.toggle.Disabled() {
		t.Fatal("no Start server to try again")
	}
	for _, client := range []string{clients.ClientClaudeCode, clients.ClientCursor} {
		if !u.connect.copyBtn[client].Disabled() || !u.connect.writeBtn[client].Disabled() {
			t.Fatalf("%s with no token has Copy or Write on", client)
		}
	}
	if !u.connect.hooks[clients.ClientClaudeCode].Checked {
		t.Fatal("the capture hooks box is not ticked by default")
	}
	capture(t, u, "connect-server-stopped")
}

// newTestUIWithStore is newTestUI with a token store of the test's own and
// a token file in the test's folder.
func newTestUIWithStore(t *testing.T, m *memory.Memory, store tokenstore.TokenStore) *ui {
	t.Helper()
	root := testEnv(t)
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme())
	notifyAfter, toastFor = 0, 0
	srv := mcpserver.New(m, store, mcpserver.Options{Version: "test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	set := settings.Default()
	set.ServerAddr = "127.0.0.1:0"
	var u *ui
	onUI(func() {
		u = newUI(a, m, Deps{Server: srv, Settings: set, SaveSettings: func(settings.Settings) error { return nil },
			Autostart: Autostart{Dir: filepath.Join(root, "autostart"), Exec: "/opt/ireneo/ireneo", GOOS: "linux"},
			Home:      filepath.Join(root, "home"), TokenFile: filepath.Join(root, "config", "token-secrets.json")})
		u.win.Resize(fyne.NewSize(1100, 720))
		u.win.Show()
	})
	t.Cleanup(func() {
		u.cancel()
		srv.Close()
		waitIdle(t, u)
	})
	waitIdle(t, u)
	return u
}
