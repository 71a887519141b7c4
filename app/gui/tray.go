package gui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/systray"

	"github.com/ireneo-app/ireneo/clients"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// The tray: an icon that is always there, and a menu to search, import,
// run the server, copy a client's connection, scrub, open the window and
// quit.

// Tray menu labels, shared with the tests that read the menu over D-Bus.
const (
	traySearch  = "Search…"
	trayImport  = "Import chat export…"
	trayCopy    = "Copy connection for"
	trayScrub   = "Scrub secrets…"
	trayOpen    = "Open Ireneo"
	trayQuit    = "Quit"
	trayStart   = "Start server"
	trayStop    = "Stop server"
	trayRunning = "MCP server: running on "
	trayStopped = "MCP server: stopped"
)

// trayMenu builds the tray menu.
func (u *ui) trayMenu() *fyne.Menu {
	search := fyne.NewMenuItem(traySearch, func() { u.showScreen(screenSearch); u.search.focus() })
	imp := fyne.NewMenuItem(trayImport, u.imp.pickFile)
	state := fyne.NewMenuItem(trayStopped, nil)
	state.Disabled = true
	toggle := fyne.NewMenuItem(trayStart, u.toggleServer)
	var copies []*fyne.MenuItem
	for _, client := range clients.Clients {
		copies = append(copies, fyne.NewMenuItem(clientNames[client], func() { u.copyConnection(client) }))
	}
	copyItem := fyne.NewMenuItem(trayCopy, nil)
	copyItem.ChildMenu = fyne.NewMenu("", copies...)
	scrub := fyne.NewMenuItem(trayScrub, func() { u.showScreen(screenScrub) })
	open := fyne.NewMenuItem(trayOpen, u.show)
	quit := fyne.NewMenuItem(trayQuit, u.quit)
	quit.IsQuit = true
	u.trayState, u.trayToggle = state, toggle
	return fyne.NewMenu("Ireneo",
		search, imp, fyne.NewMenuItemSeparator(),
		state, toggle, copyItem, fyne.NewMenuItemSeparator(),
		scrub, open, fyne.NewMenuItemSeparator(),
		quit)
}

// installTray puts the icon and menu in the system tray, where the
// platform has one.
func (u *ui) installTray() {
	if d, ok := u.app.(desktop.App); ok {
		d.SetSystemTrayIcon(trayIcon)
		d.SetSystemTrayMenu(u.tray)
	}
}

// refreshTray updates the server items of the tray menu.
func (u *ui) refreshTray() {
	state, toggle := u.trayState, u.trayToggle
	srv := u.deps.Server
	switch {
	case srv == nil:
		state.Label, toggle.Label, toggle.Disabled = trayStopped, trayStart, true
	case srv.Running():
		state.Label, toggle.Label, toggle.Disabled = trayRunning+srv.Addr(), trayStop, false
	default:
		state.Label, toggle.Label, toggle.Disabled = trayStopped, trayStart, false
	}
	u.tray.Refresh()
	// What the icon says under the pointer: the app, and its server.
	u.trayTooltip = "Ireneo: " + strings.Replace(state.Label, "MCP server: ", "MCP server ", 1)
	systray.SetTooltip(u.trayTooltip)
}

// serverChanged updates everything that shows the server's state.
func (u *ui) serverChanged() {
	u.refreshTray()
	u.connect.showServer()
	u.connect.updateClientTokens()
}

// startServer starts the MCP server off the UI goroutine.
func (u *ui) startServer() {
	srv := u.deps.Server
	if srv == nil || srv.Running() {
		return
	}
	addr := u.set.ServerAddr
	u.goBackground(func(context.Context) {
		err := srv.Start(addr)
		fyneDo(func() {
			u.connect.startErr, u.connect.stoppedByUser = err, false
			u.serverChanged()
			if err != nil {
				u.showError("start the MCP server on "+addr, err)
			}
		})
	})
}

// stopServer stops it, letting calls in flight finish.
func (u *ui) stopServer() {
	srv := u.deps.Server
	if srv == nil {
		return
	}
	u.goBackground(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err := srv.Stop(ctx)
		fyneDo(func() {
			u.connect.startErr, u.connect.stoppedByUser = nil, true
			u.serverChanged()
			if err != nil {
				u.showError("stop the MCP server cleanly", err)
			}
		})
	})
}

func (u *ui) toggleServer() {
	if u.deps.Server != nil && u.deps.Server.Running() {
		u.stopServer()
	} else {
		u.startServer()
	}
}

// copyConnection copies a client's config to the clipboard, making a token
// named after the client first if there is none.
func (u *ui) copyConnection(client string) {
	c := u.connect
	if c.storeErr != nil && client != clients.ClientClaudeDesktop {
		// The config holds a secret the store cannot give now: say so once.
		u.show()
		c.offerStoreChoice()
		return
	}
	toks, err := c.tokensAPI()
	if err != nil && client != clients.ClientClaudeDesktop {
		u.showError("copy the connection for "+clientNames[client], err)
		return
	}
	load(u, "copy the connection for "+clientNames[client], func(ctx context.Context) (string, error) {
		token := ""
		if client != clients.ClientClaudeDesktop {
			info, err := tokenstore.FindAccessToken(ctx, u.mem, client)
			if err != nil || !info.Active() {
				if _, _, err := toks.Create(ctx, client, nil); err != nil {
					return "", fmt.Errorf("make a token for %s: %w", clientNames[client], err)
				}
			}
			token = client
		}
		cfg, _, err := c.clientConfig(ctx, client, token)
		if err != nil {
			return "", err
		}
		return cfg.Snippet, nil
	}, func(snippet string) {
		u.copyText("the connection for "+clientNames[client], snippet)
		u.app.SendNotification(fyne.NewNotification("Ireneo", "The connection for "+clientNames[client]+" is on the clipboard."))
		c.refresh()
	})
}
