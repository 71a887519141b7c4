package gui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/settings"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// showError tells the person what failed, why, and what to do about it. A
// cancelled job is not an error. Secrets in the message (a title, a line
// of an export) are masked in the dialog and the log alike. Enter, Space
// or Escape press OK.
func (u *ui) showError(what string, err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	if errors.Is(err, mcpserver.ErrPortInUse) {
		u.showPortInUse()
		return
	}
	sc := secretFinder(u.set.UserPatterns)
	text := maskSecrets(sc, err.Error())
	what = maskSecrets(sc, what)
	u.lastError = what + ": " + text
	fyne.LogError(what, errors.New(text))
	msg := widget.NewLabel(capitalize(text))
	msg.Wrapping = fyne.TextWrapWord
	msg.Selectable = true
	body := container.NewVBox(msg)
	if fix := fixFor(err); fix != "" {
		heading := widget.NewLabel("What to do")
		heading.TextStyle.Bold = true
		body.Add(heading)
		body.Add(wrapped(fix))
	}
	u.showMessage("Could not "+what, body, "OK", 520)
}

// secretFinder is the scrubber for the person's patterns, for masking; nil
// (which still masks key-shaped words) if a pattern does not compile.
func secretFinder(patterns []settings.Pattern) redact.SecretFinder {
	sc, err := scrubber.For(patterns)
	if err != nil {
		return nil // not a nil *scrub.Scrubber in a non-nil interface
	}
	return sc
}

// inputError is a plain validation error: its message already says what
// to change, so no "What to do" goes under it.
type inputError struct{ error }

func (e inputError) Unwrap() error { return e.error }

// inputErrorf makes an inputError, formatted as fmt.Errorf.
func inputErrorf(format string, a ...any) error {
	return inputError{fmt.Errorf(format, a...)}
}

// fixFor suggests what to do about an error; "" for a validation error,
// whose message says it all.
func fixFor(err error) string {
	var keyring *tokenstore.KeyringUnavailableError
	var input inputError
	switch {
	case errors.As(err, &input):
		return ""
	case errors.As(err, &keyring):
		// Fix speaks of command-line flags; the Connect screen has buttons.
		return "The MCP server does not need the keyring. To make or copy a token, press Unlock or choose… on the Connect screen: unlock and retry, or keep secrets in a file."
	case errors.Is(err, memory.ErrNotFound):
		return "It may have been forgotten, or changed by another Ireneo process. Refresh the list and try again."
	case errors.Is(err, recall.ErrEmptyQuery):
		return "Type a word or an identifier to search for."
	case errors.Is(err, tokenstore.ErrAccessTokenExists):
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

// showPortInUse says in one sentence that the server's port is taken, with
// a button to the Settings field that changes it (the error's own text
// names a command-line flag, for the CLI).
func (u *ui) showPortInUse() {
	port := u.set.ServerAddr
	if _, p, err := net.SplitHostPort(port); err == nil {
		port = p
	}
	msg := "Another program (perhaps another Ireneo) is using port " + port + ", so the MCP server could not start. Choose another port in Settings."
	u.lastError = "start the MCP server: port " + port + " is in use"
	var d *keyDialog
	closeIt := func() { d.d.Hide() }
	ok := newKeyButton("OK", nil, widget.MediumImportance, closeIt, closeIt)
	change := newKeyButton("Change the port…", theme.SettingsIcon(), widget.HighImportance, func() {
		closeIt()
		u.showScreen(screenSettings)
		u.win.Canvas().Focus(u.prefs.port)
		u.prefs.port.TypedShortcut(&fyne.ShortcutSelectAll{})
	}, closeIt)
	d = u.showKeyDialog("The MCP server's port is in use", wrapped(msg), 480, []*keyButton{ok, change}, 1, closeIt)
}
