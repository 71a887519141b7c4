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
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/assets"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/settings"
)

// Version is reported in About and to MCP clients; set at build time with
// -ldflags "-X github.com/ireneo-app/ireneo/app/gui.Version=…".
var Version = "0.1.0"

// AppID is the app's unique id, as in FyneApp.toml.
const AppID = "app.ireneo.Ireneo"

// EnvStartHidden, set to 1 (as the login entry does), starts the app in
// the tray without opening the window.
const EnvStartHidden = "IRENEO_START_HIDDEN"

var (
	appIcon  = fyne.NewStaticResource("icon.png", assets.IconPNG)
	trayIcon = fyne.NewStaticResource("tray.png", assets.TrayPNG)
	starRes  = fyne.NewStaticResource("star.svg", assets.StarSVG)
	// starIcon follows the text colour; starredIcon is the accent colour.
	starIcon    = theme.NewThemedResource(starRes)
	starredIcon = theme.NewPrimaryThemedResource(starRes)
)

// Main starts the tray app and returns the process exit code.
func Main() int {
	a := app.NewWithID(AppID)
	a.SetIcon(appIcon)
	set, setErr := settings.Load()
	dir := memory.ResolveDir("")
	m, err := memory.Open(dir)
	if err != nil {
		fatalWindow(a, fmt.Errorf("open the memory in %s: %w", dir, err),
			"Check that the folder exists and that you can write to it, or point IRENEO_HOME at another folder.")
		return 1
	}
	defer m.Close()

	hook := &CallHook{}
	srv := mcpserver.New(m, mcpserver.NewKeyringStore(), mcpserver.Options{Version: Version, OnCall: hook.Call})
	u := newUI(a, m, Deps{Server: srv, Calls: hook, Settings: set, Version: Version})
	u.installTray()
	a.Lifecycle().SetOnStopped(u.shutdown)
	u.start(os.Getenv(EnvStartHidden) == "1")
	if setErr != nil {
		u.showError("read the settings", setErr)
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
