package gui

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
)

// showError tells the person what failed, why, and what to do about it. A
// cancelled job is not an error.
func (u *ui) showError(what string, err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	u.lastError = what + ": " + err.Error()
	fyne.LogError(what, err)
	msg := widget.NewLabel(capitalize(err.Error()))
	msg.Wrapping = fyne.TextWrapWord
	msg.Selectable = true
	todo := widget.NewLabel(fixFor(err))
	todo.Wrapping = fyne.TextWrapWord
	heading := widget.NewLabel("What to do")
	heading.TextStyle.Bold = true
	body := container.NewVBox(msg, heading, todo)
	d := dialog.NewCustom("Could not "+what, "OK", body, u.win)
	d.Resize(fyne.NewSize(520, 0))
	d.Show()
}

// fixFor suggests what to do about an error.
func fixFor(err error) string {
	var keyring *mcpserver.KeyringUnavailableError
	switch {
	case errors.As(err, &keyring):
		// Fix speaks of command-line flags; the Connect screen has buttons.
		return "The MCP server does not need the keyring. To make or copy a token, press Unlock or choose… on the Connect screen: unlock and retry, or keep secrets in a file."
	case errors.Is(err, memory.ErrNotFound):
		return "It may have been forgotten, or changed by another Ireneo process. Refresh the list and try again."
	case errors.Is(err, recall.ErrEmptyQuery):
		return "Type a word or an identifier to search for."
	case errors.Is(err, memory.ErrAccessTokenExists):
		return "Pick another name, or revoke the old token first."
	case errors.Is(err, fs.ErrPermission):
		return "Check that your user can read (and, for the memory folder, write) the file named above."
	case errors.Is(err, fs.ErrNotExist):
		return "Check that the file or folder named above still exists."
	case errors.Is(err, context.DeadlineExceeded):
		return "It took too long. Try again; if it keeps happening, close other programs using the memory."
	case errors.Is(err, mcpserver.ErrPortInUse):
		return "Another program (perhaps another Ireneo) uses that port. Stop it, or pick another port in Settings and start the server from the tray."
	}
	return "Try again. If it keeps failing, run `ireneo status` in a terminal for details, and report the message above."
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func errorsIsCanceled(err error) bool { return errors.Is(err, context.Canceled) }
