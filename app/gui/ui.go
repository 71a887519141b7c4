package gui

import (
	"context"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/settings"
)

// Deps is what the window drives besides the memory. Main fills it with the
// real server and settings file; tests with temp dirs and a test keyring.
type Deps struct {
	// Server is the MCP server; nil leaves the Connect screen explaining
	// there is none.
	Server *mcpserver.Server
	// Calls delivers the server's OnCall events to the window (which exists
	// only after the server is made).
	Calls *CallHook
	// Settings are the person's preferences as loaded.
	Settings settings.Settings
	// SaveSettings writes them; nil means settings.Save.
	SaveSettings func(settings.Settings) error
	// Autostart is where the start-at-login entry goes.
	Autostart Autostart
	// Home is the folder the importers' default locations are under; ""
	// means the person's home.
	Home string
	// ToolHomes are where Codex and Claude Code keep their files when told
	// to ($CODEX_HOME, $CLAUDE_CONFIG_DIR): for import and connect.
	ToolHomes importers.Homes
	// Version is shown in About and given to clients.
	Version string
	// TokenFile is where the file token store keeps secrets, for a person
	// who chooses it when the keyring cannot be used.
	TokenFile string
}

// CallHook forwards the MCP server's OnCall to the window.
type CallHook struct {
	fn atomic.Pointer[func(auditlog.Entry)]
}

// Call is the mcpserver.Options.OnCall function. It never blocks.
func (h *CallHook) Call(e auditlog.Entry) {
	if f := h.fn.Load(); f != nil {
		(*f)(e)
	}
}

func (h *CallHook) set(f func(auditlog.Entry)) { h.fn.Store(&f) }

// Screens, in tab order; Ctrl+1…9 selects them.
const (
	screenSearch = iota
	screenConversations
	screenImport
	screenScrub
	screenForget
	screenConnect
	screenActivity
	screenSettings
	screenInsights
)

// ui is the tray app's one window and everything on it. Every field is
// touched on the UI goroutine only; background work reports back through
// fyne.Do.
type ui struct {
	app  fyne.App
	win  fyne.Window
	mem  *memory.Memory
	deps Deps
	set  settings.Settings

	tabs *container.AppTabs
	// tray is the tray menu; trayState and trayToggle are its server items.
	tray                  *fyne.Menu
	trayState, trayToggle *fyne.MenuItem
	trayTooltip           string // what the icon says under the pointer

	search   *searchScreen
	convs    *conversationsScreen
	imp      *importScreen
	scrub    *scrubScreen
	forget   *forgetScreen
	connect  *connectScreen
	activity *activityScreen
	prefs    *settingsScreen
	insights *insightsScreen
	backup   *backupPanel

	// ctx ends when the app quits, cancelling whatever still runs.
	ctx    context.Context
	cancel context.CancelFunc
	// busy counts background goroutines, so tests can wait for them.
	busy atomic.Int64

	// stopWatch stops the folder watcher, if one runs.
	stopWatch        context.CancelFunc
	watchDone        chan struct{} // closed when the last watcher has stopped
	lastWatchRefresh time.Time

	// secrets finds the secrets in what the window shows, to mask them.
	secrets *shownSecrets
	// turnCache holds the conversations Search's detail pane read last.
	turnCache turnCache

	// noTray is set when no tray shows the icon: closing the window quits.
	noTray bool

	// lastError and lastInfo are the last error and message shown, for tests.
	lastError string
	lastInfo  string
}

// newUI builds the window and its screens over memory m. It does not show
// the window, start the server or touch the tray; Main does that.
func newUI(a fyne.App, m *memory.Memory, d Deps) *ui {
	if d.SaveSettings == nil {
		d.SaveSettings = settings.Save
	}
	u := &ui{app: a, mem: m, deps: d, set: d.Settings, secrets: newShownSecrets()}
	u.ctx, u.cancel = context.WithCancel(context.Background())
	u.setSecretPatterns(u.set.UserPatterns)
	a.Settings().SetTheme(appTheme{a.Settings().Theme()})
	u.goBackground(func(context.Context) {
		if loadCJKBold(); cjkBoldFont() == nil {
			return
		}
		fyneDo(func() {
			if c := u.win.Content(); c != nil {
				c.Refresh() // titles drawn before the face was there
			}
		})
	})
	u.win = a.NewWindow("Ireneo")
	u.win.SetIcon(appIcon)

	u.search = newSearchScreen(u)
	u.convs = newConversationsScreen(u)
	u.imp = newImportScreen(u)
	u.scrub = newScrubScreen(u)
	u.forget = newForgetScreen(u)
	u.connect = newConnectScreen(u)
	u.activity = newActivityScreen(u)
	u.backup = newBackupPanel(u)
	u.prefs = newSettingsScreen(u)
	u.insights = newInsightsScreen(u)

	u.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Search", theme.SearchIcon(), u.search.content()),
		container.NewTabItemWithIcon("Conversations", theme.ListIcon(), u.convs.content()),
		container.NewTabItemWithIcon("Import", theme.DownloadIcon(), u.imp.content()),
		container.NewTabItemWithIcon("Scrub", theme.VisibilityOffIcon(), u.scrub.content()),
		container.NewTabItemWithIcon("Forget", theme.DeleteIcon(), u.forget.content()),
		container.NewTabItemWithIcon("Connect", theme.ComputerIcon(), u.connect.content()),
		container.NewTabItemWithIcon("Activity", theme.HistoryIcon(), u.activity.content()),
		container.NewTabItemWithIcon("Settings", theme.SettingsIcon(), u.prefs.content()),
		container.NewTabItemWithIcon("Insights", theme.GridIcon(), u.insights.content()),
	)
	u.tabs.SetTabLocation(container.TabLocationLeading)
	u.tabs.OnSelected = func(*container.TabItem) { u.screenShown(u.tabs.SelectedIndex()) }
	u.win.SetContent(container.New(&tabsFit{u: u, icons: true}, u.tabs))
	u.win.SetMainMenu(u.mainMenu())
	u.win.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) { u.dropped(uris) })
	// Closing the window keeps the app in the tray.
	u.win.SetCloseIntercept(u.hide)
	w, h := u.set.WindowWidth, u.set.WindowHeight
	if w < 640 || h < 420 {
		w, h = settings.Default().WindowWidth, settings.Default().WindowHeight
	}
	u.win.Resize(fyne.NewSize(w, h))

	if d.Calls != nil {
		d.Calls.set(u.onMCPCall)
	}
	u.tray = u.trayMenu()
	u.refreshAll()
	return u
}

// iconTabHeight is a leading tab's height with its icon above its name in
// Fyne 2.7's default theme; a name alone takes well under half.
const iconTabHeight = 84

// tabsFit drops the tabs' icons when the window is too short for all nine
// tabs with them, so no screen hides behind the tab bar's overflow menu
// (at the default 720 and at 600 points high it would).
type tabsFit struct {
	u     *ui
	icons bool
}

func (l *tabsFit) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if want := size.Height >= iconTabHeight*float32(len(l.u.tabs.Items)); want != l.icons {
		l.icons = want
		for i, item := range l.u.tabs.Items {
			item.Icon = nil
			if want {
				item.Icon = tabIcons()[i]
			}
		}
		l.u.tabs.Refresh()
	}
	objs[0].Resize(size)
	objs[0].Move(fyne.NewPos(0, 0))
}

func (l *tabsFit) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

// tabIcons are the screens' icons, in tab order. A function, not a
// variable: the theme's icons need a running app, and the CLI, which links
// this package, starts none (its stderr stays clean).
func tabIcons() []fyne.Resource {
	return []fyne.Resource{theme.SearchIcon(), theme.ListIcon(), theme.DownloadIcon(), theme.VisibilityOffIcon(), theme.DeleteIcon(),
		theme.ComputerIcon(), theme.HistoryIcon(), theme.SettingsIcon(), theme.GridIcon()}
}

// mainMenu holds the keyboard shortcuts. Menu shortcuts fire even while a
// text field has the focus, which canvas shortcuts do not.
func (u *ui) mainMenu() *fyne.MainMenu {
	names := []string{"Search", "Conversations", "Import", "Scrub", "Forget", "Connect", "Activity", "Settings", "Insights"}
	keys := []fyne.KeyName{fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4, fyne.Key5, fyne.Key6, fyne.Key7, fyne.Key8, fyne.Key9}
	var goItems []*fyne.MenuItem
	for i, name := range names {
		item := fyne.NewMenuItem(name, func() { u.showScreen(i) })
		item.Shortcut = &desktop.CustomShortcut{KeyName: keys[i], Modifier: fyne.KeyModifierShortcutDefault}
		goItems = append(goItems, item)
	}
	find := fyne.NewMenuItem("Find…", u.find)
	find.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault}
	importItem := fyne.NewMenuItem("Import chat export…", u.imp.pickFile)
	importItem.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierShortcutDefault}
	closeItem := fyne.NewMenuItem("Close window", u.hide)
	closeItem.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierShortcutDefault}
	quit := fyne.NewMenuItem("Quit", u.quit)
	quit.IsQuit = true
	quit.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault}
	return fyne.NewMainMenu(
		fyne.NewMenu("File", importItem, fyne.NewMenuItem("Back up…", u.backup.pickBackup), fyne.NewMenuItem("Restore backup…", u.backup.pickRestore),
			fyne.NewMenuItemSeparator(), closeItem, quit),
		fyne.NewMenu("Go", append([]*fyne.MenuItem{find, fyne.NewMenuItemSeparator()}, goItems...)...),
		fyne.NewMenu("Help", fyne.NewMenuItem("About Ireneo", u.about)),
	)
}

// find is Ctrl+F: find in the open conversation on the Conversations
// screen; elsewhere the Search screen with its query selected, so what is
// typed next replaces the old query rather than adding to it.
func (u *ui) find() {
	if u.tabs.SelectedIndex() == screenConversations && u.convs.tv.tr != nil {
		u.convs.tv.openFind()
		return
	}
	u.showScreen(screenSearch)
	u.search.focus()
	if e, ok := u.win.Canvas().Focused().(fyne.Shortcutable); ok {
		e.TypedShortcut(&fyne.ShortcutSelectAll{})
	}
}

// showScreen brings the window up on one screen.
func (u *ui) showScreen(i int) {
	u.tabs.SelectIndex(i)
	u.show()
}

func (u *ui) show() {
	u.win.Show()
	u.win.RequestFocus()
	if u.tabs.SelectedIndex() == screenSearch {
		u.search.focus()
	}
}

// hide remembers the window's size and hides it; the app stays in the tray.
// With no tray to come back from, it quits instead.
func (u *ui) hide() {
	if u.noTray {
		u.quit()
		return
	}
	u.rememberSize()
	u.win.Hide()
}

func (u *ui) rememberSize() {
	s := u.win.Canvas().Size()
	if s.Width < 100 || s.Height < 100 || (s.Width == u.set.WindowWidth && s.Height == u.set.WindowHeight) {
		return
	}
	u.set.WindowWidth, u.set.WindowHeight = s.Width, s.Height
	// A failed save only loses the size; not worth a dialog.
	if err := u.deps.SaveSettings(u.set); err != nil {
		fyne.LogError("save window size", err)
	}
}

// quit stops the server and the background work, then the app.
func (u *ui) quit() {
	u.rememberSize()
	u.cancel()
	u.app.Quit()
}

// shutdown runs after the app stopped: it cancels background work and
// closes the server, so its audit log is written out.
func (u *ui) shutdown() {
	u.cancel()
	if u.deps.Server != nil {
		u.deps.Server.Close()
	}
}

// screenShown refreshes the data a screen shows when it comes up.
func (u *ui) screenShown(i int) {
	switch i {
	case screenSearch:
		u.search.refreshFilters()
		u.search.focus()
	case screenConversations:
		u.convs.refresh()
	case screenImport:
		u.imp.refresh()
	case screenForget:
		u.forget.refreshFilters()
	case screenConnect:
		u.connect.refresh()
	case screenScrub:
		u.scrub.refresh()
	case screenActivity:
		u.activity.refresh()
	case screenSettings:
		u.prefs.refreshMemory()
	case screenInsights:
		u.insights.refresh()
	}
}

// refreshAll reloads every screen's data, after something changed the
// memory (an import, a forget, a scrub).
func (u *ui) refreshAll() {
	u.search.refreshFilters()
	u.convs.refresh()
	u.forget.refreshFilters()
	u.connect.refresh()
	u.activity.refresh()
	u.scrub.refresh()
	u.prefs.refreshMemory()
	if u.tabs.SelectedIndex() == screenInsights {
		u.insights.refresh()
	}
}

// memoryChanged is called after an import, forget or scrub.
func (u *ui) memoryChanged() {
	u.turnCache.clear()
	u.search.turns = nil
	u.refreshAll()
	u.search.rerun()
}

// fyneDo is fyne.Do, for every report from background work. Tests swap it
// for a locked call: Fyne's test driver runs fyne.Do on the caller's
// goroutine, so two reports there could touch the widgets at once.
var fyneDo = fyne.Do

// goBackground runs work off the UI goroutine. The work reports back with
// fyne.Do; tests wait until no work is left.
func (u *ui) goBackground(work func(ctx context.Context)) {
	u.busy.Add(1)
	go func() {
		defer u.busy.Add(-1)
		work(u.ctx)
	}()
}

// load runs query off the UI goroutine and hands its result to apply on
// the UI goroutine; an error becomes a dialog saying what failed.
func load[T any](u *ui, what string, query func(ctx context.Context) (T, error), apply func(T)) {
	u.goBackground(func(ctx context.Context) {
		v, err := query(ctx)
		fyneDo(func() {
			if err != nil {
				u.showError(what, err)
				return
			}
			apply(v)
		})
	})
}

// dropped imports files and folders dropped on the window.
func (u *ui) dropped(uris []fyne.URI) {
	var paths []string
	for _, uri := range uris {
		if uri.Scheme() == "file" {
			paths = append(paths, uri.Path())
		}
	}
	if len(paths) == 0 {
		return
	}
	u.tabs.SelectIndex(screenImport)
	u.imp.importPaths(paths)
}

// start starts the server (unless the settings say no) and the folder
// watcher, and shows the window unless hidden. On the first run, with an
// empty memory, the window opens on the Import screen whatever hidden says.
// The window is set up before the server starts, so the server's report
// (through fyne.Do) never runs while start still touches the window.
func (u *ui) start(hidden bool) {
	u.refreshTray()
	// One count query, before the event loop runs: it cannot stall it.
	if st, err := u.mem.Status(u.ctx); err == nil && st.Conversations == 0 {
		u.tabs.SelectIndex(screenImport)
		hidden = false
	}
	if !hidden {
		u.show()
	}
	u.restartWatch()
	u.followMemory()
	if u.set.ServerAutostart {
		u.startServer()
	}
}
