package gui

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/ireneo-app/ireneo/funes"
)

// Each setting on the Settings screen, shown to do what it says. (Start at
// login, scrub's checkbox on the Import screen and the recall defaults are in
// TestSettingsSaveAndStartAtLogin, the window size in TestTrayMenuAndWindow,
// watching in TestImportDetectedSourcesAndWatch.)

// TestServerAutostartSetting: "Start the MCP server when Ireneo starts".
func TestServerAutostartSetting(t *testing.T) {
	for _, on := range []bool{true, false} {
		u := newTestUI(t, newTestMemory(t))
		u.set.ServerAutostart = on
		u.start(true)
		waitIdle(t, u)
		if got := u.deps.Server.Running(); got != on {
			t.Errorf("server_autostart %v: running %v (error %q)", on, got, u.lastError)
		}
	}
}

// TestServerPortSetting: saving another port moves the running server there.
func TestServerPortSetting(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	u.start(true)
	waitIdle(t, u)
	if !u.deps.Server.Running() {
		t.Fatalf("server not running: %q", u.lastError)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	u.showScreen(screenSettings)
	u.prefs.port.SetText(port)
	test.Tap(u.prefs.save)
	waitIdle(t, u)
	if got := u.deps.Server.Addr(); !strings.HasSuffix(got, ":"+port) {
		t.Errorf("server on %s after saving port %s (error %q)", got, port, u.lastError)
	}
}

// TestScrubSettingsReachImport: "Redact secrets while importing" and "Your
// secret patterns" decide what an import from the window keeps.
func TestScrubSettingsReachImport(t *testing.T) {
	const secret = "CUST-482913"
	for _, scrub := range []bool{true, false} {
		m := newTestMemory(t)
		u := newTestUI(t, m)
		u.showScreen(screenSettings)
		u.prefs.port.SetText("47201") // the test UI's port 0 is no port to save
		u.prefs.scrub.SetChecked(scrub)
		u.prefs.patterns.SetText("customer-id = CUST-[0-9]{6}")
		test.Tap(u.prefs.save)
		waitIdle(t, u)
		if u.lastError != "" {
			t.Fatalf("save: %s", u.lastError)
		}

		s := &funes.Session{ID: "cust-1", Harness: funes.HarnessClaude, Title: "Customer", Turns: []funes.Turn{{
			TurnUUID: "u0", TS: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC), Role: funes.RoleUser,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: "The customer is " + secret + ", call them."}}}}}
		data, err := funes.MarshalSession(s)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "cust-1.funes.jsonl")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		u.imp.importPaths([]string{file})
		waitIdle(t, u)
		if _, err := m.LoadSession(u.ctx, "cust-1"); err != nil {
			t.Fatalf("scrub %v: not imported: %v (error %q)", scrub, err, u.lastError)
		}
		kept := len(grepDir(t, m.Dir(), secret)) > 0
		if kept == scrub {
			t.Errorf("scrub_on_import %v with the customer-id pattern: secret kept = %v", scrub, kept)
		}
	}
}
