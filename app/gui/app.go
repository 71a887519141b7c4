// Package gui is Ireneo's tray app: the tray menu and the main window's
// screens. Every action calls the same memory, importers and mcpserver code
// as the CLI; the screens add no logic of their own.
//
// Layout: app.go starts the app; ui.go builds the window and navigation;
// one file per screen (search, conversations with transcript, import,
// scrub, forget, connect, activity, settings); tray.go the tray menu;
// jobs.go long work with progress and cancel.
package gui

import (
	"fmt"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/assets"
	"github.com/ireneo-app/ireneo/config"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/settings"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// AppID is the app's unique id, as in FyneApp.toml.
const AppID = "app.ireneo.Ireneo"

// EnvStartHidden, set to 1 (as the login entry does), starts the app in
// the tray without opening the window.
const EnvStartHidden = config.EnvStartHidden

var (
	appIcon  = fyne.NewStaticResource("icon.png", assets.IconPNG)
	trayIcon = fyne.NewStaticResource("tray.png", assets.TrayPNG)
	starRes  = fyne.NewStaticResource("star.svg", assets.StarSVG)
	// starIcon follows the text colour; starredIcon is the accent colour.
	starIcon    = theme.NewThemedResource(starRes)
	starredIcon = theme.NewPrimaryThemedResource(starRes)
)

// Main starts the tray app configured by cfg and returns the process exit
// code.
func Main(cfg config.Config) int {
	// One instance per memory: a second start raises the first's window.
	inst, running := claimInstance(cfg.MemoryDir)
	if running {
		fmt.Fprintln(os.Stderr, "Ireneo is already running for this memory; its window is raised.")
		return 0
	}
	defer inst.close()
	a := app.NewWithID(AppID)
	a.SetIcon(appIcon)
	dir := cfg.MemoryDir
	m, err := memory.Open(dir)
	if err != nil {
		fatalWindow(a, fmt.Errorf("open the memory in %s: %w", dir, err),
			"Check that the folder exists and that you can write to it, or point IRENEO_HOME at another folder.")
		return 1
	}
	defer m.Close()

	set := cfg.Settings
	hook := &CallHook{}
	opts := mcpserver.Options{Version: cfg.Version, OnCall: hook.Call, DefaultTopK: set.DefaultK, DefaultTokenBudget: set.DefaultBudget}
	if sc, err := scrubber.For(set.UserPatterns); err == nil {
		opts.Secrets = sc // audited queries lose the person's patterns' secrets too
	}
	// The server never needs the store to serve; only making and reading
	// secrets do, and the Connect screen says so when the keyring is locked.
	var store tokenstore.TokenStore = tokenstore.NewKeyringStore()
	if set.TokenStore == settings.TokenStoreFile {
		store = tokenstore.NewFileTokenStore(cfg.TokenFile())
	}
	srv := mcpserver.New(m, store, opts)
	auto := Autostart{}
	if auto.goos() != "darwin" {
		auto.Dir = cfg.AutostartDir
	}
	u := newUI(a, m, Deps{Server: srv, Calls: hook, Settings: set, SaveSettings: cfg.SaveSettings, Autostart: auto, Version: cfg.Version,
		ToolHomes: importers.Homes{Codex: cfg.CodexHome, ClaudeCode: cfg.ClaudeConfigDir}, TokenFile: cfg.TokenFile()})
	u.installTray()
	if !trayAvailable() {
		u.withoutTray()
	}
	if inst != nil {
		go inst.serve(func() { fyne.Do(u.show) })
	}
	a.Lifecycle().SetOnStopped(u.shutdown)
	u.start(cfg.StartHidden && !u.noTray) // hidden with no tray would be unreachable
	u.connect.checkKeyring()
	if cfg.SettingsErr != nil {
		u.showError("read the settings", cfg.SettingsErr)
	}
	a.Run()
	return 0
}

// noTrayNotice is the window's one line when no tray shows Ireneo's icon.
const noTrayNotice = "No system tray here, so closing this window quits Ireneo and stops its MCP server. Start Ireneo again to bring it back."

// withoutTray makes closing the window quit, and says so on it: with no
// tray there would be no way back to a hidden window.
func (u *ui) withoutTray() {
	u.noTray = true
	notice := widget.NewLabelWithStyle(noTrayNotice, fyne.TextAlignCenter, fyne.TextStyle{Italic: true})
	notice.Wrapping = fyne.TextWrapWord
	u.win.SetContent(container.NewBorder(container.NewVBox(notice, widget.NewSeparator()), nil, nil, nil, u.tabs))
}

// fatalWindow shows an error that keeps the app from starting.
func fatalWindow(a fyne.App, err error, todo string) {
	w := a.NewWindow("Ireneo")
	w.SetContent(widget.NewLabel(""))
	w.Resize(fyne.NewSize(560, 240))
	d := dialog.NewError(fmt.Errorf("%w\n\n%s", err, todo), w)
	d.SetOnClosed(a.Quit)
	// Its OK answers the keyboard too: nothing else on the window has the focus.
	w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		switch k.Name {
		case fyne.KeyReturn, fyne.KeyEnter, fyne.KeyEscape, fyne.KeySpace:
			d.Hide()
			a.Quit()
		}
	})
	w.Show()
	d.Show()
	a.Run()
}
