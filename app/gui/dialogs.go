package gui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The app's own dialogs, in one style and all usable from the keyboard.
// Fyne's dialog buttons take only Space, and only once focused, which a
// new dialog's are not: here a dialog's buttons take Enter and Space,
// Escape cancels, and the safe button has the focus when it opens.
// Confirmations of what cannot be undone name the act on a red button
// ("Forget for good", "Redact", "Revoke") beside Cancel.

// keyButton is a dialog button the keyboard can press: Enter or Space
// taps it, Escape cancels its dialog.
type keyButton struct {
	widget.Button
	escape func()
}

func newKeyButton(text string, icon fyne.Resource, importance widget.Importance, tapped, escape func()) *keyButton {
	b := &keyButton{escape: escape}
	b.Text, b.Icon, b.Importance, b.OnTapped = text, icon, importance, tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey presses the button on Enter and cancels the dialog on Escape.
func (b *keyButton) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		if !b.Disabled() && b.OnTapped != nil {
			b.OnTapped()
		}
	case fyne.KeyEscape:
		if b.escape != nil {
			b.escape()
		}
	default:
		b.Button.TypedKey(ev)
	}
}

// keyDialog is an open dialog with its keyboard wiring.
type keyDialog struct {
	d       *dialog.CustomDialog
	buttons []*keyButton
}

// showKeyDialog shows content with buttons (leftmost first), focusing the
// one at focus. cancel runs on Escape (also when no button has the focus)
// and must close the dialog. While the dialog is up, keys typed with
// nothing focused go to it, and the window's previous handler comes back
// when it closes.
func (u *ui) showKeyDialog(title string, content fyne.CanvasObject, width float32, buttons []*keyButton, focus int, cancel func()) *keyDialog {
	d := dialog.NewCustomWithoutButtons(title, content, u.win)
	objs := make([]fyne.CanvasObject, len(buttons))
	for i, b := range buttons {
		objs[i] = b
	}
	d.SetButtons(objs)
	c := u.win.Canvas()
	prev := c.OnTypedKey()
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		switch ev.Name {
		case fyne.KeyEscape:
			cancel()
		case fyne.KeyReturn, fyne.KeyEnter:
			buttons[focus].TypedKey(ev)
		default:
			if prev != nil {
				prev(ev)
			}
		}
	})
	d.SetOnClosed(func() { c.SetOnTypedKey(prev) })
	if width > 0 {
		d.Resize(fyne.NewSize(width, 0))
	}
	d.Show()
	c.Focus(buttons[focus])
	return &keyDialog{d: d, buttons: buttons}
}

// showMessage shows a message with one button (OK, Close), which Enter,
// Space and Escape all press.
func (u *ui) showMessage(title string, content fyne.CanvasObject, button string, width float32) *keyDialog {
	var d *keyDialog
	hide := func() { d.d.Hide() }
	ok := newKeyButton(button, nil, widget.HighImportance, func() { hide() }, func() { hide() })
	d = u.showKeyDialog(title, content, width, []*keyButton{ok}, 0, hide)
	return d
}

// confirm asks before an act; verb names it on the confirm button. A
// destructive act gets a red button, and Cancel keeps the focus so a
// stray Enter cancels; otherwise the confirm button has it. Escape
// cancels either way.
func (u *ui) confirm(title string, content fyne.CanvasObject, verb string, destructive bool, width float32, onConfirm func()) *keyDialog {
	var d *keyDialog
	cancel := func() { d.d.Hide() }
	ok := func() {
		d.d.Hide()
		onConfirm()
	}
	importance, focus := widget.HighImportance, 1
	if destructive {
		importance, focus = widget.DangerImportance, 0
	}
	cancelBtn := newKeyButton("Cancel", theme.CancelIcon(), widget.MediumImportance, func() { cancel() }, func() { cancel() })
	okBtn := newKeyButton(verb, theme.ConfirmIcon(), importance, func() { ok() }, func() { cancel() })
	if destructive {
		okBtn.Icon = actIcon(verb)
	}
	d = u.showKeyDialog(title, content, width, []*keyButton{cancelBtn, okBtn}, focus, cancel)
	return d
}

// wrapped is a word-wrapped label, for dialog bodies.
func wrapped(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// dialogEntry is a text field in a dialog: Enter submits the dialog and
// Escape cancels it, which a plain Entry leaves to nobody.
type dialogEntry struct {
	widget.SelectEntry
	escape func()
}

func newDialogEntry(options []string, escape func()) *dialogEntry {
	e := &dialogEntry{escape: escape}
	e.ExtendBaseWidget(e)
	e.SetOptions(options) // with no options there is no drop-down button
	return e
}

// TypedKey cancels the dialog on Escape.
func (e *dialogEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && e.escape != nil {
		e.escape()
		return
	}
	e.SelectEntry.TypedKey(ev)
}

// askText asks for one line of text (a project name, a new name): the
// field has the focus with initial selected, so typing replaces it; Enter
// or the verb button submits it, trimmed, unless it is empty; Escape or
// Cancel closes. options, if any, drop down under the field.
func (u *ui) askText(title, label, verb, initial string, options []string, submit func(string)) *keyDialog {
	var d *keyDialog
	cancel := func() { d.d.Hide() }
	e := newDialogEntry(options, cancel)
	e.SetText(initial)
	e.SetPlaceHolder(label)
	var okBtn *keyButton
	done := func() {
		text := strings.TrimSpace(e.Text)
		if text == "" {
			return
		}
		d.d.Hide()
		submit(text)
	}
	e.OnSubmitted = func(string) { done() }
	e.OnChanged = func(s string) {
		if strings.TrimSpace(s) == "" {
			okBtn.Disable()
		} else {
			okBtn.Enable()
		}
	}
	cancelBtn := newKeyButton("Cancel", theme.CancelIcon(), widget.MediumImportance, func() { cancel() }, func() { cancel() })
	okBtn = newKeyButton(verb, theme.ConfirmIcon(), widget.HighImportance, done, func() { cancel() })
	if strings.TrimSpace(initial) == "" {
		okBtn.Disable()
	}
	form := widget.NewForm(widget.NewFormItem(label, e))
	d = u.showKeyDialog(title, form, 420, []*keyButton{cancelBtn, okBtn}, 1, cancel)
	c := u.win.Canvas()
	c.Focus(e)
	e.TypedShortcut(&fyne.ShortcutSelectAll{})
	return d
}

// enable enables or disables a widget.
func enable(w fyne.Disableable, on bool) {
	if on {
		w.Enable()
	} else {
		w.Disable()
	}
}

// actIcon is the icon of a destructive act's button: a bin for what is
// deleted, the crossed eye (Scrub's own) for a redaction, which deletes
// nothing but the secret.
func actIcon(verb string) fyne.Resource {
	switch {
	case strings.HasPrefix(verb, "Redact"):
		return theme.VisibilityOffIcon()
	case strings.HasPrefix(verb, "Revoke"):
		return theme.CancelIcon()
	}
	return theme.DeleteIcon()
}
