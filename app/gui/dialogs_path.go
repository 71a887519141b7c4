package gui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The file dialogs. Fyne's own file dialog takes neither Escape, Enter
// nor a typed path; so a file is asked for in the app's keyboard style: a
// field for the path (typed or pasted, ~ for home), Enter to go on,
// Escape to cancel, and Browse… for Fyne's dialog, which Escape closes.

// pathKind is what a path dialog asks for.
type pathKind int

const (
	pathFile    pathKind = iota // an existing file
	pathFolder                  // an existing folder
	pathFileNew                 // a file to write (its folder must exist)
)

// pathRequest describes one path dialog.
type pathRequest struct {
	title, label, verb string
	kind               pathKind
	initial            string   // the field's first text
	exts               []string // for files: the extensions offered when browsing
	start              string   // the folder Browse… opens in; "" for the default
}

// askPath asks for a path and hands it, cleaned and checked, to submit.
func (u *ui) askPath(r pathRequest, submit func(path string)) *keyDialog {
	var d *keyDialog
	cancel := func() { d.d.Hide() }
	e := newPathEntry(cancel)
	e.SetText(r.initial)
	e.SetPlaceHolder(r.label)
	problem := newMuted("")
	problem.Wrapping = fyne.TextWrapWord
	done := func() {
		p, err := checkPath(e.Text, r.kind)
		if err != nil {
			setMuted(problem, capitalize(err.Error())+".")
			return
		}
		d.d.Hide()
		submit(p)
	}
	e.OnSubmitted = func(string) { done() }
	browse := newKeyButton("Browse…", theme.FolderOpenIcon(), widget.MediumImportance, func() {
		cancel()
		u.browsePath(r, submit)
	}, cancel)
	cancelBtn := newKeyButton("Cancel", theme.CancelIcon(), widget.MediumImportance, cancel, cancel)
	okBtn := newKeyButton(r.verb, theme.ConfirmIcon(), widget.HighImportance, done, cancel)
	form := container.NewVBox(widget.NewForm(widget.NewFormItem(r.label, e)), problem)
	d = u.showKeyDialog(r.title, form, 560, []*keyButton{browse, cancelBtn, okBtn}, 2, cancel)
	u.win.Canvas().Focus(e)
	e.TypedShortcut(&fyne.ShortcutSelectAll{})
	return d
}

// checkPath cleans a typed path (~ is home) and checks it is what kind
// asks for.
func checkPath(typed string, kind pathKind) (string, error) {
	p := strings.TrimSpace(typed)
	if p == "" {
		return "", errors.New("type a path, or press Browse…")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	p, _ = filepath.Abs(p)
	fi, err := os.Stat(p)
	switch kind {
	case pathFile:
		if err != nil {
			return "", fmt.Errorf("%s does not exist", p)
		}
		if fi.IsDir() {
			return "", fmt.Errorf("%s is a folder: name a file in it", p)
		}
	case pathFolder:
		if err != nil || !fi.IsDir() {
			return "", fmt.Errorf("%s is not a folder", p)
		}
	case pathFileNew:
		if err == nil && fi.IsDir() {
			return "", fmt.Errorf("%s is a folder: name a file in it", p)
		}
		if di, err := os.Stat(filepath.Dir(p)); err != nil || !di.IsDir() {
			return "", fmt.Errorf("the folder %s does not exist", filepath.Dir(p))
		}
	}
	return p, nil
}

// browsePath opens Fyne's file dialog for r; Escape closes it.
func (u *ui) browsePath(r pathRequest, submit func(path string)) {
	var d dialog.Dialog
	fail := func(err error) { u.showError("open "+r.label, err) }
	switch r.kind {
	case pathFolder:
		fd := dialog.NewFolderOpen(func(l fyne.ListableURI, err error) {
			if err != nil {
				fail(err)
			} else if l != nil {
				submit(l.Path())
			}
		}, u.win)
		u.startIn(fd.SetLocation, r.start)
		fd.Resize(u.dialogSize())
		d = fd
	case pathFileNew:
		fd := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
			if err != nil {
				fail(err)
			} else if w != nil {
				p := w.URI().Path()
				w.Close()
				submit(p)
			}
		}, u.win)
		fd.SetFileName(filepath.Base(r.initial))
		if len(r.exts) > 0 {
			fd.SetFilter(storage.NewExtensionFileFilter(r.exts))
		}
		u.startIn(fd.SetLocation, r.start)
		fd.Resize(u.dialogSize())
		d = fd
	default:
		fd := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
			if err != nil {
				fail(err)
			} else if rc != nil {
				p := rc.URI().Path()
				rc.Close()
				submit(p)
			}
		}, u.win)
		if len(r.exts) > 0 {
			fd.SetFilter(storage.NewExtensionFileFilter(r.exts))
		}
		u.startIn(fd.SetLocation, r.start)
		fd.Resize(u.dialogSize())
		d = fd
	}
	c := u.win.Canvas()
	prev := c.OnTypedKey()
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape {
			d.Hide()
			return
		}
		if prev != nil {
			prev(ev)
		}
	})
	d.SetOnClosed(func() { c.SetOnTypedKey(prev) })
	d.Show()
}

// startIn points a file dialog at a folder, if it exists.
func (u *ui) startIn(set func(fyne.ListableURI), dir string) {
	if dir == "" {
		return
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			set(l)
		}
	}
}

// dialogSize is most of the window, for file dialogs.
func (u *ui) dialogSize() fyne.Size {
	sz := u.win.Canvas().Size()
	return fyne.NewSize(max(600, sz.Width*0.85), max(400, sz.Height*0.85))
}

// folderHint is a folder written for the path field: with a slash at the
// end, so typing goes on with a name in it.
func folderHint(dir string) string {
	if dir == "" {
		return ""
	}
	return strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator)
}

// pathEntry is the path field: Escape cancels its dialog (a SelectEntry,
// askText's field, would show a drop-down arrow with nothing under it).
type pathEntry struct {
	widget.Entry
	escape func()
}

func newPathEntry(escape func()) *pathEntry {
	e := &pathEntry{escape: escape}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey cancels the dialog on Escape.
func (e *pathEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && e.escape != nil {
		e.escape()
		return
	}
	e.Entry.TypedKey(ev)
}
