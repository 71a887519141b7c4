package gui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/settings"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// When the keyring is locked or missing, the server keeps serving (it checks
// hashes in the memory); only making a token and copying or revealing its
// secret need the keyring. The Connect screen says so once, in one dialog
// with the choices a person has there and then: unlock and retry, or keep
// secrets in a 0600 file.

// probeTimeout bounds the look at the keyring's state; it never prompts.
const probeTimeout = 3 * time.Second

// unlockTimeout is how long Unlock and retry waits for the person to answer
// the system's unlock prompt.
const unlockTimeout = 2 * time.Minute

// keyringProblem is the store's problem, or nil when it can be used.
func keyringProblem(err error) *tokenstore.KeyringUnavailableError {
	var ke *tokenstore.KeyringUnavailableError
	if errors.As(err, &ke) {
		return ke
	}
	return nil
}

// checkKeyring looks at the token store's state at start-up, without a
// prompt, and offers the choices at once if it cannot be used.
func (c *connectScreen) checkKeyring() {
	toks, err := c.tokensAPI()
	if err != nil {
		return
	}
	store := toks.Store()
	c.u.goBackground(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		err := store.Probe(ctx)
		fyneDo(func() {
			c.setStoreProblem(keyringProblem(err))
			if c.storeErr != nil {
				c.offerStoreChoice()
			}
		})
	})
}

// setStoreProblem records the store's state and redraws what depends on it.
func (c *connectScreen) setStoreProblem(ke *tokenstore.KeyringUnavailableError) {
	c.showStoreProblem(ke)
	c.refresh()
}

// showStoreProblem records the store's state and shows it in the banner.
func (c *connectScreen) showStoreProblem(ke *tokenstore.KeyringUnavailableError) {
	c.storeErr = ke
	if ke == nil {
		c.keyringBanner.Hide()
	} else {
		c.keyringText.SetText(capitalize(ke.Reason) + ": the server still accepts the tokens below, but making a token, " +
			"and copying or revealing a secret, need the keyring.")
		c.keyringBanner.Show()
	}
}

// keyringTitle names the problem in a few words.
func keyringTitle(ke *tokenstore.KeyringUnavailableError) string {
	switch ke.Kind {
	case tokenstore.KeyringLocked:
		return "Your keyring is locked"
	case tokenstore.KeyringNoBus, tokenstore.KeyringNoService:
		return "No keyring for token secrets"
	}
	return "The keyring does not answer"
}

// offerStoreChoice shows the one dialog about the keyring, unless it is up.
func (c *connectScreen) offerStoreChoice() {
	ke := c.storeErr
	if ke == nil || c.storeDialog != nil {
		return
	}
	msg := widget.NewLabel(fmt.Sprintf("Ireneo keeps each token's secret in your OS keyring, and %s.\n\n%s", ke.Reason, tokenstore.ServingNote))
	msg.Wrapping = fyne.TextWrapWord
	status := newMuted("")
	status.Wrapping = fyne.TextWrapWord
	var d *dialog.CustomDialog
	closeDialog := func() { d.Hide() }
	retryLabel := "Unlock and retry"
	if ke.Kind == tokenstore.KeyringNoBus || ke.Kind == tokenstore.KeyringNoService {
		retryLabel = "Retry"
	}
	var retry *widget.Button
	retry = widget.NewButton(retryLabel, func() {
		retry.Disable()
		setMuted(status, "Waiting for the keyring… (answer its unlock prompt if one appears)")
		c.retryKeyring(func(err error) {
			retry.Enable()
			if ke := keyringProblem(err); ke != nil {
				setMuted(status, "Still not usable: "+ke.Reason+".")
				return
			}
			if err != nil {
				setMuted(status, capitalize(err.Error()))
				return
			}
			closeDialog()
			c.setStoreProblem(nil)
			c.u.toast("The keyring is ready")
		})
	})
	retry.Importance = widget.HighImportance
	file := widget.NewButton("Keep secrets in a file…", func() {
		closeDialog()
		c.confirmFileStore()
	})
	body := container.NewVBox(msg, status)
	d = dialog.NewCustom(keyringTitle(ke), "Not now", body, c.u.win)
	later := newEscapeButton("Not now", closeDialog)
	d.SetButtons([]fyne.CanvasObject{later, file, retry})
	d.SetOnClosed(func() { c.storeDialog = nil })
	d.Resize(fyne.NewSize(620, 0))
	c.storeDialog = d
	c.u.lastInfo = keyringTitle(ke)
	d.Show()
	// The keyboard starts on Not now: Escape or Space dismisses, Tab moves on.
	c.u.win.Canvas().Focus(later)
}

// escapeButton is a button that Escape presses too, for a dialog's
// dismiss button that holds the focus.
type escapeButton struct{ widget.Button }

func newEscapeButton(label string, tapped func()) *escapeButton {
	b := &escapeButton{}
	b.Text, b.OnTapped = label, tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey implements fyne.Focusable.
func (b *escapeButton) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && b.OnTapped != nil {
		b.OnTapped()
		return
	}
	b.Button.TypedKey(ev)
}

// retryKeyring asks the keyring for real (which raises the system's unlock
// prompt when it is locked), then reports on the UI goroutine.
func (c *connectScreen) retryKeyring(done func(error)) {
	toks, err := c.tokensAPI()
	if err != nil {
		done(err)
		return
	}
	store := toks.Store()
	c.u.goBackground(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, unlockTimeout)
		defer cancel()
		err := store.Check(ctx)
		if err == nil {
			pctx, pcancel := context.WithTimeout(ctx, probeTimeout)
			err = store.Probe(pctx)
			pcancel()
		}
		fyneDo(func() { done(err) })
	})
}

// confirmFileStore explains the file store and switches to it on yes.
func (c *connectScreen) confirmFileStore() {
	path := c.u.deps.TokenFile
	if path == "" {
		path = tokenstore.DefaultTokenFile()
	}
	c.u.confirm("Keep token secrets in a file", wrapped(
		"New token secrets will be kept in\n"+path+"\nreadable only by you (mode 0600) but not encrypted: anyone who can read your files, "+
			"or a backup of them, can use a token to read your memory through the MCP server.\n\n"+
			"Tokens made in the keyring keep working with their clients; to copy one, unlock the keyring or make a new token. "+
			"You can go back to the keyring in settings.json (token_store)."),
		"Keep secrets in a file", false, 520, func() { c.useFileStore(path) })
}

// useFileStore keeps secrets in the file at path from now on, and
// remembers the choice (the CLI follows it too).
func (c *connectScreen) useFileStore(path string) {
	toks, err := c.tokensAPI()
	if err != nil {
		c.u.showError("keep token secrets in a file", err)
		return
	}
	toks.SetStore(tokenstore.NewFileTokenStore(path))
	c.u.set.TokenStore = settings.TokenStoreFile
	c.u.saveSettings()
	c.setStoreProblem(nil)
	c.u.toast("Token secrets now go to " + path)
}

// secretLoad is load for work that needs token secrets: with the store
// known to be unusable it offers the choices instead of trying (which could
// raise a prompt nobody answers), and a keyring error does the same.
func secretLoad[T any](c *connectScreen, what string, query func(ctx context.Context) (T, error), apply func(T)) {
	if c.storeErr != nil {
		c.offerStoreChoice()
		return
	}
	c.u.goBackground(func(ctx context.Context) {
		v, err := query(ctx)
		fyneDo(func() {
			if ke := keyringProblem(err); ke != nil {
				c.storeErr = ke
				c.setStoreProblem(ke)
				c.offerStoreChoice()
				return
			}
			if err != nil {
				c.u.showError(what, err)
				return
			}
			apply(v)
		})
	})
}
