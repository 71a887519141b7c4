//go:build linux

package gui

import "github.com/godbus/dbus/v5"

// trayAvailable reports whether a tray host is there to show the icon:
// on Linux the icon is a StatusNotifierItem, shown only when a
// StatusNotifierWatcher (the panel's tray) owns its name on the session bus.
func trayAvailable() bool {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false
	}
	defer conn.Close()
	var owned bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&owned)
	return err == nil && owned
}
