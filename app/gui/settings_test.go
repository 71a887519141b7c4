package gui

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/cli"
	"github.com/ireneo-app/ireneo/clients"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/settings"
	"github.com/ireneo-app/ireneo/tokenstore"
)

func TestSettingsSaveAndStartAtLogin(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	s := u.prefs
	u.showScreen(screenSettings)
	// Save does nothing until a field says something new.
	if !s.save.Disabled() {
		t.Fatal("Save is on with nothing changed")
	}
	s.topK.SetText(s.topK.Text + "0")
	s.topK.SetText(strings.TrimSuffix(s.topK.Text, "0"))
	if !s.save.Disabled() {
		t.Fatal("Save is on after a change that was undone")
	}
	s.port.SetText("47200")
	if s.save.Disabled() {
		t.Fatal("Save is off after a change")
	}
	s.topK.SetText("12")
	s.budget.SetText("3000")
	s.scrub.SetChecked(false)
	s.patterns.SetText("customer-id = CUST-[0-9]{6}\n")
	s.login.SetChecked(true)
	test.Tap(s.save)
	waitIdle(t, u)
	if !s.save.Disabled() {
		t.Error("Save is still on once saved")
	}
	got, err := settings.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got.ServerAddr != "127.0.0.1:47200" || got.DefaultK != 12 || got.DefaultBudget != 3000 || got.ScrubOnImport ||
		len(got.UserPatterns) != 1 || got.UserPatterns[0].Name != "customer-id" || !got.StartAtLogin {
		t.Fatalf("saved settings %+v (error %q)", got, u.lastError)
	}
	entry, err := os.ReadFile(u.deps.Autostart.Path())
	if err != nil {
		t.Fatalf("no autostart entry: %v", err)
	}
	if !strings.Contains(string(entry), "Exec=env "+EnvStartHidden+"=1 /opt/ireneo/ireneo\n") || !strings.Contains(string(entry), "[Desktop Entry]") {
		t.Fatalf("autostart entry:\n%s", entry)
	}
	if u.imp.redact.Checked {
		t.Fatal("the Import screen should follow the scrub setting")
	}
	if k, budget := u.deps.Server.RecallDefaults(); k != 12 || budget != 3000 {
		t.Errorf("the MCP server's recall defaults are %d and %d, want the saved 12 and 3000", k, budget)
	}

	// Off again removes the entry.
	s.login.SetChecked(false)
	test.Tap(s.save)
	waitIdle(t, u)
	if _, err := os.Stat(u.deps.Autostart.Path()); !os.IsNotExist(err) {
		t.Fatal("the autostart entry is still there")
	}

	// Bad input is refused with a dialog, and nothing is saved.
	for _, bad := range []struct{ field, value, want string }{
		{"port", "99999", "server port"},
		{"patterns", "broken = ([", "broken"},
		{"patterns", "no equals sign", "line 1"},
	} {
		s.load()
		switch bad.field {
		case "port":
			s.port.SetText(bad.value)
		case "patterns":
			s.patterns.SetText(bad.value)
		}
		u.lastError = ""
		test.Tap(s.save)
		waitIdle(t, u)
		if !strings.Contains(u.lastError, bad.want) {
			t.Fatalf("%s=%q: want an error about %q, got %q", bad.field, bad.value, bad.want, u.lastError)
		}
	}
	if got, _ := settings.Load(); got.ServerAddr != "127.0.0.1:47200" {
		t.Fatalf("a refused save changed the file: %+v", got)
	}
}

func TestAutostartEntries(t *testing.T) {
	dir := t.TempDir()
	mac := Autostart{Dir: dir, Exec: "/Applications/Ireneo.app/Contents/MacOS/ireneo", GOOS: "darwin"}
	if err := mac.Set(true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(mac.Path())
	if filepath.Ext(mac.Path()) != ".plist" || !strings.Contains(string(data), "<string>/Applications/Ireneo.app/Contents/MacOS/ireneo</string>") {
		t.Fatalf("launch agent %s:\n%s", mac.Path(), data)
	}
	if !mac.Enabled() {
		t.Fatal("enabled should see the plist")
	}
	if err := (Autostart{GOOS: "windows"}).Set(true); err == nil || !strings.Contains(err.Error(), "shell:startup") {
		t.Fatalf("windows should explain the Startup folder: %v", err)
	}
	if got := desktopExec(`/home/a b/ire"neo`); got != `"/home/a b/ire\\"neo"` {
		t.Fatalf("quoted exec %s", got)
	}
}

func TestTrayMenuAndWindow(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	var labels []string
	for _, it := range u.tray.Items {
		if !it.IsSeparator {
			labels = append(labels, it.Label)
		}
	}
	want := []string{traySearch, trayImport, trayStopped, trayStart, trayCopy, trayScrub, trayOpen, trayQuit}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Fatalf("tray menu %q, want %q", labels, want)
	}
	// One item per client Ireneo connects, each named (the clients issue 31
	// added included).
	var names, wantNames []string
	for _, it := range u.tray.Items[5].ChildMenu.Items {
		names = append(names, it.Label)
	}
	for _, c := range clients.Clients {
		wantNames = append(wantNames, clientNames[c])
	}
	if strings.Join(names, ",") != strings.Join(wantNames, ",") || !strings.HasPrefix(strings.Join(names, ","), "Claude Desktop,Claude Code,Codex,Cursor,VS Code,") {
		t.Fatalf("copy connection for %q, want %q", names, wantNames)
	}
	for _, n := range names {
		if n == "" {
			t.Fatalf("a client with no name in copy connection: %q", names)
		}
	}
	// Copy connection makes a token named after the client and copies a
	// config that carries it.
	u.copyConnection("cursor")
	waitIdle(t, u)
	info, err := tokenstore.FindAccessToken(context.Background(), u.mem, "cursor")
	if err != nil || !info.Active() {
		t.Fatalf("no cursor token: %v (error %q)", err, u.lastError)
	}
	if clip := u.app.Clipboard().Content(); !strings.Contains(clip, "Bearer ireneo_") {
		t.Fatalf("clipboard %q", clip)
	}
	// Tray items open the right screens. Each screen starts its loads in
	// the background, and under the test driver fyne.Do runs their UI
	// updates on that goroutine, not on one UI thread: wait for them
	// before the next switch, or the two refresh the same widgets at once.
	u.tray.Items[7].Action() // Scrub secrets…
	waitIdle(t, u)
	if u.tabs.SelectedIndex() != screenScrub {
		t.Fatal("Scrub secrets… should open the Scrub screen")
	}
	u.tray.Items[0].Action() // Search…
	waitIdle(t, u)
	if u.tabs.SelectedIndex() != screenSearch || u.win.Canvas().Focused() != u.search.query {
		t.Fatal("Search… should open Search with the cursor in the query")
	}
	// Keyboard shortcuts switch screens.
	for i, item := range u.win.MainMenu().Items[1].Items[2:] {
		item.Action()
		waitIdle(t, u)
		if u.tabs.SelectedIndex() != i {
			t.Fatalf("%s selected screen %d", item.Label, u.tabs.SelectedIndex())
		}
	}
	// Hiding remembers the window size.
	u.win.Resize(fyne.NewSize(900, 600))
	u.hide()
	waitIdle(t, u)
	got, _ := settings.Load()
	if got.WindowWidth != 900 || got.WindowHeight != 600 {
		t.Fatalf("window size saved as %vx%v", got.WindowWidth, got.WindowHeight)
	}
}

func TestFirstRunOpensImport(t *testing.T) {
	testEnv(t)
	m, err := memory.Open(filepath.Join(t.TempDir(), "empty"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	u := newTestUI(t, m)
	u.win.Hide()
	onUI(func() { u.start(true) })
	waitIdle(t, u)
	if u.tabs.SelectedIndex() != screenImport {
		t.Fatalf("an empty memory should open the Import screen, opened %d", u.tabs.SelectedIndex())
	}
	if !u.win.Content().Visible() {
		t.Fatal("the window should open even when starting hidden")
	}

	// With conversations, a hidden start stays hidden and on Search.
	u2 := newTestUI(t, newTestMemory(t))
	u2.set.ServerAutostart = false
	onUI(func() { u2.start(true) })
	waitIdle(t, u2)
	if u2.tabs.SelectedIndex() != screenSearch {
		t.Fatal("a memory with conversations starts on Search")
	}
}

// TestSettingsMemoryRefreshes: Settings › Memory follows an import and a
// forget, and says what `ireneo status --json` and Insights say: one
// size, one last import, one forgotten count.
func TestSettingsMemoryRefreshes(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	s := u.prefs
	u.showScreen(screenSettings)
	waitIdle(t, u)
	if !strings.Contains(s.memInfo.Text, "5 conversations") || !strings.Contains(s.memInfo.Text, "0 conversations forgotten") {
		t.Fatalf("memory info %q", s.memInfo.Text)
	}
	ctx := context.Background()
	more := fixtureSessions()[0]
	more.ID, more.Title = "conv-more", "One more"
	if _, err := m.Ingest(ctx, []*funes.Session{more}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Forget(ctx, []string{"conv-forget"}, nil); err != nil {
		t.Fatal(err)
	}
	u.memoryChanged()
	waitIdle(t, u)
	var out, errb bytes.Buffer
	if code := cli.Run(ctx, []string{"--memory", m.Dir(), "status", "--json"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("ireneo status: exit %d: %s", code, errb.String())
	}
	var st memory.Status
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	// The CLI run folded the write-ahead log in; read the screen again.
	u.showScreen(screenSearch)
	u.showScreen(screenSettings)
	waitIdle(t, u)
	if got, want := s.memInfo.Text, memoryInfo(st); got != want {
		t.Errorf("Settings › Memory says\n%s\nireneo status says\n%s", got, want)
	}
	if !strings.Contains(s.memInfo.Text, "5 conversations") || !strings.Contains(s.memInfo.Text, "1 conversation forgotten") {
		t.Errorf("memory info after an import and a forget: %q", s.memInfo.Text)
	}
	u.showScreen(screenInsights)
	waitIdle(t, u)
	if size := u.insights.cards[5].value.Text; !strings.Contains(s.memInfo.Text, ", "+size+" on disk") {
		t.Errorf("Insights shows %s on disk; Settings says %q", size, s.memInfo.Text)
	}
}

// TestEveryTabFits: at 1280×800 the tabs have their icons; at the default
// 1100×720 and at 900×600 they drop them, so no screen hides in the tab
// bar's overflow menu.
func TestEveryTabFits(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	for _, c := range []struct {
		size  fyne.Size
		icons bool
	}{{fyne.NewSize(1280, 800), true}, {fyne.NewSize(1100, 720), false}, {fyne.NewSize(900, 600), false}, {fyne.NewSize(1280, 800), true}} {
		u.win.Resize(c.size)
		relayout(u.win.Content())
		for _, item := range u.tabs.Items {
			if (item.Icon != nil) != c.icons {
				t.Errorf("at %v tab %s has icon %v, want %v", c.size, item.Text, item.Icon != nil, c.icons)
			}
		}
		if !c.icons && float32(len(u.tabs.Items))*iconTabHeight/2 > c.size.Height {
			t.Errorf("at %v the names alone would not fit", c.size)
		}
	}
}

// TestNoButtonCutShort: at 900×600 and 1280×800 no screen draws a
// button narrower than its label ("Rename project…" was cut short at 900).
func TestNoButtonCutShort(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	for _, size := range []fyne.Size{fyne.NewSize(900, 600), fyne.NewSize(1280, 800)} {
		u.win.Resize(size)
		for i, name := range screenNames {
			u.showScreen(i)
			waitIdle(t, u)
			relayout(u.win.Content())
			// Each button is as wide as its label and inside its pane (a
			// split's side clips what runs past it).
			d := fyne.CurrentApp().Driver()
			check := func(pane fyne.CanvasObject) {
				right := d.AbsolutePositionForObject(pane).X + pane.Size().Width
				walk(pane, func(o fyne.CanvasObject) {
					b, ok := o.(*widget.Button)
					if !ok || !b.Visible() || b.Text == "" || b.Size().Width == 0 {
						return
					}
					if b.Size().Width+1 < b.MinSize().Width {
						t.Errorf("%s at %v: %q is %.0f wide, its label needs %.0f", name, size, b.Text, b.Size().Width, b.MinSize().Width)
					}
					if end := d.AbsolutePositionForObject(b).X + b.Size().Width; end > right+1 {
						t.Errorf("%s at %v: %q runs %.0f past its pane", name, size, b.Text, end-right)
					}
				})
			}
			check(u.tabs.Selected().Content)
			walk(u.tabs.Selected().Content, func(o fyne.CanvasObject) {
				if sp, ok := o.(*container.Split); ok {
					check(sp.Leading)
					check(sp.Trailing)
				}
			})
		}
	}
}
