// Package gui is Ireneo's tray app: the tray menu and the main window's
// screens. Every action calls the same memory, importers and mcpserver code
// as the CLI; the screens add no logic of their own.
package gui

import (
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

// Main starts the tray app and returns the process exit code.
func Main() int {
	a := app.NewWithID("app.ireneo.Ireneo")
	w := a.NewWindow("Ireneo")
	w.SetContent(widget.NewLabel("Ireneo"))
	w.ShowAndRun()
	return 0
}
