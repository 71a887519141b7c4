//go:build !linux

package gui

// trayAvailable reports whether a tray host is there: macOS's menu bar and
// Windows' notification area always are.
func trayAvailable() bool { return true }
