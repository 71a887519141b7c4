package gui

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// about shows what Ireneo is and where its memory lives.
func (u *ui) about() {
	icon := canvas.NewImageFromResource(appIcon)
	icon.FillMode = canvas.ImageFillContain
	icon.SetMinSize(fyne.NewSize(96, 96))
	text := widget.NewLabel("Ireneo " + u.deps.Version + "\n\nA local, verbatim, searchable memory of your AI conversations, " +
		"served to your local agents over MCP. Nothing leaves this computer.\n\nMemory: " + u.mem.Dir())
	text.Wrapping = fyne.TextWrapWord
	u.showMessage("About Ireneo", container.NewBorder(nil, nil, icon, nil, text), "Close", 520)
}

// toastFor is how long a toast stays up.
var toastFor = 2 * time.Second

// toast shows a short message at the bottom of the window for a moment.
func (u *ui) toast(msg string) {
	u.lastInfo = msg
	c := u.win.Canvas()
	if c == nil {
		return
	}
	l := widget.NewLabel(msg)
	p := widget.NewPopUp(l, c)
	size := p.MinSize()
	cs := c.Size()
	p.ShowAtPosition(fyne.NewPos((cs.Width-size.Width)/2, cs.Height-size.Height-24))
	u.goBackground(func(ctx context.Context) {
		select {
		case <-time.After(toastFor):
		case <-ctx.Done():
		}
		fyneDo(p.Hide)
	})
}

// copyText puts text on the clipboard and says so, the same way for every
// Copy button: a toast naming what was copied.
func (u *ui) copyText(what, text string) {
	u.app.Clipboard().SetContent(text)
	u.toast("Copied " + what + " to the clipboard")
}
