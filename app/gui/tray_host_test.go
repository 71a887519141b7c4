package gui

import (
	"testing"

	"github.com/godbus/dbus/v5"
)

// fakeTrayHost stands in for a desktop panel's tray: it owns the
// StatusNotifierWatcher name and accepts every item, as a panel does. Xvfb
// has no panel; without one the app knows it has no tray.
func fakeTrayHost(t *testing.T) {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.Export(trayWatcher{}, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("cannot stand in for a tray host: %v %v", reply, err)
	}
}

type trayWatcher struct{}

func (trayWatcher) RegisterStatusNotifierItem(string) *dbus.Error { return nil }
