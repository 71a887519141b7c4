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

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/assets"
	"github.com/ireneo-app/ireneo/config"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
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
	srv := mcpserver.New(m, mcpserver.NewKeyringStore(), opts)
	auto := Autostart{}
	if auto.goos() != "darwin" {
		auto.Dir = cfg.AutostartDir
	}
	u := newUI(a, m, Deps{Server: srv, Calls: hook, Settings: set, SaveSettings: cfg.SaveSettings, Autostart: auto, Version: cfg.Version,
		ToolHomes: importers.Homes{Codex: cfg.CodexHome, ClaudeCode: cfg.ClaudeConfigDir}})
	u.installTray()
	a.Lifecycle().SetOnStopped(u.shutdown)
	u.start(cfg.StartHidden)
	if cfg.SettingsErr != nil {
		u.showError("read the settings", cfg.SettingsErr)
	}
	a.Run()
	return 0
}

// fatalWindow shows an error that keeps the app from starting.
func fatalWindow(a fyne.App, err error, todo string) {
	w := a.NewWindow("Ireneo")
	w.SetContent(widget.NewLabel(""))
	w.Resize(fyne.NewSize(560, 240))
	d := dialog.NewError(fmt.Errorf("%w\n\n%s", err, todo), w)
	d.SetOnClosed(a.Quit)
	w.Show()
	d.Show()
	a.Run()
}
