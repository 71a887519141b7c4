package gui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/clients"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// The connect screen: the MCP server's state, the access tokens (create,
// copy, reveal, revoke) and, for each supported client, the exact config
// with Copy and Write buttons. It runs the same mcpserver code as
// `ireneo token` and `ireneo connect`.

// clientNames are the clients' display names.
var clientNames = map[string]string{
	clients.ClientClaudeDesktop: "Claude Desktop",
	clients.ClientClaudeCode:    "Claude Code",
	clients.ClientCodex:         "Codex",
	clients.ClientCursor:        "Cursor",
	clients.ClientVSCode:        "VS Code",
	clients.ClientGeminiCLI:     "Gemini CLI",
	clients.ClientOpenCode:      "opencode",
	clients.ClientCopilotCLI:    "Copilot CLI",
}

const noToken = "(no token)"

type connectScreen struct {
	u *ui

	status   *widget.Label
	toggle   *widget.Button
	tokens   *fyne.Container
	name     *widget.Entry
	scope    *widget.Entry
	create   *widget.Button
	clients  *container.AppTabs
	tokenFor map[string]*widget.Select // per client: the token its config carries
	snippets map[string]*widget.RichText
	notes    map[string]*widget.RichText
	copyBtn  map[string]*widget.Button // per client
	writeBtn map[string]*widget.Button
	hooks    map[string]*widget.Check // Claude Code and Codex: also write capture hooks

	list []tokenstore.AccessToken
	// secretErr says, per live token, why its secret cannot be read (nil
	// entries are fine): not in the store, or the store is locked.
	secretErr map[string]error

	// storeErr is the token store's problem, nil when it can be used;
	// keyringBanner says so above the tokens, storeDialog is the one dialog.
	storeErr      *tokenstore.KeyringUnavailableError
	keyringBanner *fyne.Container
	keyringText   *widget.Label
	storeDialog   dialog.Dialog

	// startErr is why the server last failed to start; stoppedByUser, that
	// the person stopped it. Both say why it is stopped.
	startErr      error
	stoppedByUser bool
}

func newConnectScreen(u *ui) *connectScreen {
	c := &connectScreen{u: u, tokenFor: map[string]*widget.Select{}, snippets: map[string]*widget.RichText{}, notes: map[string]*widget.RichText{},
		copyBtn: map[string]*widget.Button{}, writeBtn: map[string]*widget.Button{}, hooks: map[string]*widget.Check{}}
	c.keyringText = widget.NewLabel("")
	c.keyringText.Wrapping = fyne.TextWrapWord
	c.keyringBanner = container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()),
		widget.NewButton("Unlock or choose…", c.offerStoreChoice), c.keyringText)
	c.keyringBanner.Hide()
	c.status = widget.NewLabel("")
	c.status.Wrapping = fyne.TextWrapWord
	c.toggle = widget.NewButton("Start server", u.toggleServer)
	c.tokens = container.NewVBox()
	c.name = widget.NewEntry()
	c.name.SetPlaceHolder("Token name, e.g. claude-code")
	c.scope = widget.NewEntry()
	c.scope.SetPlaceHolder("Projects it may see (none: all)")
	c.create = widget.NewButtonWithIcon("Create token", theme.ContentAddIcon(), func() { c.createToken(c.name.Text, c.scope.Text) })
	c.name.OnSubmitted = func(string) { c.createToken(c.name.Text, c.scope.Text) }
	c.clients = container.NewAppTabs()
	for _, client := range clients.Clients {
		c.clients.Append(container.NewTabItem(clientNames[client], c.clientCard(client)))
	}
	return c
}

func (c *connectScreen) content() fyne.CanvasObject {
	heading := func(s string) fyne.CanvasObject {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	tokIntro := widget.NewLabel("Each client gets its own token. The secret lives in the OS keyring (or the token file, if you chose it); " +
		"the server checks only its hash, so it serves even when the keyring is locked. A token scoped to projects sees nothing else.")
	tokIntro.Wrapping = fyne.TextWrapWord
	form := container.NewBorder(nil, nil, nil, c.create, container.NewGridWithColumns(2, c.name, c.scope))
	body := container.NewVBox(
		heading("MCP server"),
		container.NewBorder(nil, nil, nil, c.toggle, c.status),
		widget.NewSeparator(),
		heading("Access tokens"), tokIntro, c.keyringBanner, c.tokens, form,
		widget.NewSeparator(),
		heading("Clients"),
		c.clients,
	)
	return container.NewVScroll(container.NewPadded(body))
}

// tokensAPI is the server's token manager, or an error saying why there is
// none.
func (c *connectScreen) tokensAPI() (*mcpserver.Tokens, error) {
	if c.u.deps.Server == nil || c.u.deps.Server.Tokens() == nil {
		return nil, errors.New("the MCP server is not available in this session")
	}
	return c.u.deps.Server.Tokens(), nil
}

// refresh reloads the server state and the token list.
func (c *connectScreen) refresh() {
	c.showServer()
	toks, err := c.tokensAPI()
	if err != nil {
		c.tokens.Objects = []fyne.CanvasObject{widget.NewLabel(capitalize(err.Error()) + ".")}
		c.tokens.Refresh()
		return
	}
	locked := c.storeErr
	load(c.u, "list the tokens", func(ctx context.Context) (tokenList, error) {
		list, err := toks.List(ctx)
		if err != nil {
			return tokenList{}, err
		}
		// Which secrets can be read, without a prompt: a locked store is
		// not asked at all (asking raises the system's unlock prompt).
		states := map[string]error{}
		var probed *tokenstore.KeyringUnavailableError
		if locked == nil {
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			probed = keyringProblem(toks.Store().Probe(pctx))
			cancel()
			locked = probed
		}
		for _, t := range list {
			if !t.Active() {
				continue
			}
			if locked != nil {
				states[t.Name] = locked
				continue
			}
			if _, err := toks.Reveal(ctx, t.Name); err != nil {
				states[t.Name] = err
			}
		}
		return tokenList{list, states, probed}, nil
	}, func(l tokenList) {
		c.secretErr = l.secretErr
		if l.storeErr != nil && c.storeErr == nil {
			c.showStoreProblem(l.storeErr)
		}
		c.showTokens(l.list)
	})
}

// tokenList is the tokens and why each live one's secret cannot be read.
type tokenList struct {
	list      []tokenstore.AccessToken
	secretErr map[string]error
	storeErr  *tokenstore.KeyringUnavailableError // found while listing
}

// secretProblem says in a few words why a token's secret cannot be read.
func (c *connectScreen) secretProblem(name string) string {
	err := c.secretErr[name]
	switch {
	case err == nil:
		return ""
	case keyringProblem(err) != nil:
		return "secret locked in the keyring"
	case errors.Is(err, tokenstore.ErrSecretNotFound):
		return "secret not found in " + c.storeName() + ": revoke it and make a new one"
	}
	return "secret unreadable: " + err.Error()
}

func (c *connectScreen) storeName() string {
	if toks, err := c.tokensAPI(); err == nil {
		return toks.Store().Describe()
	}
	return "the token store"
}

// showServer shows whether the server runs, and where.
func (c *connectScreen) showServer() {
	srv := c.u.deps.Server
	switch {
	case srv == nil:
		c.status.SetText("The MCP server is not available in this session.")
		c.toggle.Disable()
	case srv.Running():
		c.status.SetText(fmt.Sprintf("Running at %s (address %s, port %s). Only this computer can reach it.",
			srv.URL(), srv.Addr(), portOf(srv.Addr())))
		c.toggle.SetText("Stop server")
		c.toggle.Enable()
	default:
		c.status.SetText("Stopped: " + c.stoppedReason() + fmt.Sprintf(" Clients cannot connect until it runs; Start server listens on %s.", mcpserver.URLFor(c.u.set.ServerAddr)))
		c.toggle.SetText("Start server")
		c.toggle.Enable()
	}
}

// stoppedReason says why the server is not running.
func (c *connectScreen) stoppedReason() string {
	switch {
	case errors.Is(c.startErr, mcpserver.ErrPortInUse):
		return "it could not start: port " + portOf(c.u.set.ServerAddr) + " is already in use by another program (perhaps another Ireneo). Choose another port in Settings."
	case c.startErr != nil:
		return "it could not start (" + c.startErr.Error() + "). " + fixFor(c.startErr)
	case c.stoppedByUser:
		return "you stopped it."
	case !c.u.set.ServerAutostart:
		return "it does not start with Ireneo (Settings)."
	}
	return "it has not started yet."
}

func portOf(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		return addr[i+1:]
	}
	return addr
}

// showTokens lists the tokens, live ones first, each with its actions.
func (c *connectScreen) showTokens(list []tokenstore.AccessToken) {
	c.list = list
	slices.SortStableFunc(list, func(a, b tokenstore.AccessToken) int {
		if a.Active() != b.Active() {
			if a.Active() {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	var rows []fyne.CanvasObject
	for _, t := range list {
		name := widget.NewLabelWithStyle(t.Name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		meta := newMuted(tokenMeta(t))
		meta.Truncation = fyne.TextTruncateEllipsis
		var actions fyne.CanvasObject = layout.NewSpacer()
		if t.Active() {
			copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { c.copyToken(t.Name) })
			reveal := widget.NewButtonWithIcon("Reveal", theme.VisibilityIcon(), func() { c.revealToken(t.Name) })
			if p := c.secretProblem(t.Name); p != "" {
				// Nothing to copy or reveal; the token still works where it is set.
				copyBtn.Disable()
				reveal.Disable()
				meta.Segments = []widget.RichTextSegment{&widget.TextSegment{Text: tokenMeta(t) + " · " + p,
					Style: widget.RichTextStyle{ColorName: theme.ColorNameWarning, Inline: true}}}
				meta.Refresh()
			}
			revoke := widget.NewButtonWithIcon("Revoke…", theme.CancelIcon(), func() { c.confirmRevoke(t.Name) })
			revoke.Importance = widget.DangerImportance
			actions = container.NewCenter(container.NewHBox(copyBtn, reveal, revoke))
		}
		rows = append(rows, container.NewBorder(nil, nil, nil, actions, container.NewVBox(name, meta)))
	}
	if len(rows) == 0 {
		rows = append(rows, widget.NewLabel("No tokens yet. Create one for each client below, or press Create token on a client's card."))
	}
	c.tokens.Objects = rows
	c.tokens.Refresh()
	c.updateClientTokens()
}

func tokenMeta(t tokenstore.AccessToken) string {
	scope := "sees everything"
	if len(t.Projects) > 0 {
		scope = "sees " + strings.Join(t.Projects, ", ")
	}
	used := "never used"
	if !t.LastUsed.IsZero() {
		used = "last used " + stamp(t.LastUsed)
	}
	state := "active"
	if !t.Active() {
		state = "revoked " + stamp(t.Revoked)
	}
	return fmt.Sprintf("%s · %s · created %s · %s", state, scope, stamp(t.Created), used)
}

// activeTokens are the names of live tokens.
func (c *connectScreen) activeTokens() []string {
	var out []string
	for _, t := range c.list {
		if t.Active() {
			out = append(out, t.Name)
		}
	}
	return out
}

// createToken makes a token and shows its secret once.
func (c *connectScreen) createToken(name, scope string) {
	toks, err := c.tokensAPI()
	if err != nil {
		c.u.showError("create a token", err)
		return
	}
	name = strings.TrimSpace(name)
	if err := mcpserver.ValidateTokenName(name); err != nil {
		c.u.showError("create a token", err)
		return
	}
	var projects []string
	for _, p := range strings.Split(scope, ",") {
		if p = strings.TrimSpace(p); p != "" {
			projects = append(projects, p)
		}
	}
	secretLoad(c, "create the token "+name, func(ctx context.Context) (string, error) {
		secret, _, err := toks.Create(ctx, name, projects)
		return secret, err
	}, func(secret string) {
		c.name.SetText("")
		c.scope.SetText("")
		c.refresh()
		c.showSecret("Token "+name+" created", "Copy it into your client now, or use a client's card below. "+
			"It is kept in "+c.storeName()+"; Reveal shows it again.", secret, true)
	})
}

// showSecret shows a token secret with a Copy button: masked, with the
// entry's eye to show it, unless the person asked to see it (Reveal). A
// new token is masked: copying it is what creating one is for, and a
// screen being shared or recorded should not carry it.
func (c *connectScreen) showSecret(title, msg, secret string, masked bool) {
	l := widget.NewLabel(msg)
	l.Wrapping = fyne.TextWrapWord
	e := widget.NewEntry()
	if masked {
		e = widget.NewPasswordEntry()
	}
	e.SetText(secret)
	e.TextStyle.Monospace = true
	// Enter copies and closes (what a person opening it came to do),
	// Escape closes.
	var d *keyDialog
	closeIt := func() { d.d.Hide() }
	copyBtn := newKeyButton("Copy and close", theme.ContentCopyIcon(), widget.HighImportance, func() {
		closeIt()
		c.u.copyText("the token", secret)
	}, closeIt)
	closeBtn := newKeyButton("Close", theme.CancelIcon(), widget.MediumImportance, closeIt, closeIt)
	d = c.u.showKeyDialog(title, container.NewVBox(l, e), 620, []*keyButton{closeBtn, copyBtn}, 1, closeIt)
}

func (c *connectScreen) copyToken(name string) {
	toks, err := c.tokensAPI()
	if err != nil {
		c.u.showError("copy the token", err)
		return
	}
	secretLoad(c, "read the token "+name+" from the keyring", func(ctx context.Context) (string, error) {
		return toks.Reveal(ctx, name)
	}, func(secret string) {
		c.u.copyText("the token "+name, secret)
	})
}

func (c *connectScreen) revealToken(name string) {
	toks, err := c.tokensAPI()
	if err != nil {
		c.u.showError("reveal the token", err)
		return
	}
	secretLoad(c, "read the token "+name+" from the keyring", func(ctx context.Context) (string, error) {
		return toks.Reveal(ctx, name)
	}, func(secret string) {
		c.showSecret("Token "+name, "Anyone with this secret can read your memory through the MCP server.", secret, false)
	})
}

func (c *connectScreen) confirmRevoke(name string) {
	c.u.confirm("Revoke "+name+"?", wrapped("Clients using this token lose access at once. This cannot be undone; you can create a new token."),
		"Revoke", true, 480, func() { c.revokeToken(name) })
}

func (c *connectScreen) revokeToken(name string) {
	toks, err := c.tokensAPI()
	if err != nil {
		c.u.showError("revoke the token", err)
		return
	}
	load(c.u, "revoke the token "+name, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, toks.Revoke(ctx, name)
	}, func(struct{}) { c.refresh() })
}

// clientCard is one client's config, with Copy and Write buttons.
func (c *connectScreen) clientCard(client string) fyne.CanvasObject {
	snippet := widget.NewRichText()
	snippet.Wrapping = fyne.TextWrapBreak
	c.snippets[client] = snippet
	note := newMuted("")
	note.Wrapping = fyne.TextWrapWord
	c.notes[client] = note
	copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { c.copyConfig(client) })
	write := widget.NewButtonWithIcon("Write to config…", theme.DocumentSaveIcon(), func() { c.confirmWrite(client) })
	c.copyBtn[client], c.writeBtn[client] = copyBtn, write
	var top fyne.CanvasObject
	if client != clients.ClientClaudeDesktop { // Claude Desktop runs `ireneo mcp` over stdio: no token
		sel := newSelect([]string{noToken}, noToken, func(string) { c.showClient(client) })
		c.tokenFor[client] = sel
		mk := widget.NewButton("Create token", func() { c.createToken(client, "") })
		top = container.NewHBox(widget.NewLabel("Token"), sel, mk)
	} else {
		// Not a spacer: in the card's column it took up the height the
		// other cards have and the tabs share (a blank band above the config).
		top = newMuted("Claude Desktop starts Ireneo itself (ireneo mcp), so it needs no token.")
	}
	body := container.NewVBox(top, snippet, note)
	if clients.HasHooks(client) {
		body.Add(c.hooksCheck(client))
	}
	body.Add(container.NewHBox(copyBtn, write))
	return container.NewPadded(body)
}

// connectOptions are the options for a client's config with a token secret.
func (c *connectScreen) connectOptions(secret string) clients.ConnectOptions {
	o := clients.ConnectOptions{Token: secret, MemoryDir: c.u.mem.Dir(), Home: c.u.deps.Home,
		ClaudeConfigDir: c.u.deps.ToolHomes.ClaudeCode, CodexHome: c.u.deps.ToolHomes.Codex}
	if srv := c.u.deps.Server; srv != nil && srv.Running() {
		o.URL = srv.URL()
	} else {
		o.URL = mcpserver.URLFor(c.u.set.ServerAddr)
	}
	return o
}

// updateClientTokens offers the live tokens on each client's card, picking
// the one named after the client when there is one.
func (c *connectScreen) updateClientTokens() {
	active := c.activeTokens()
	for client, sel := range c.tokenFor {
		cur := sel.Selected
		sel.Options = append([]string{noToken}, active...)
		switch {
		case slices.Contains(active, cur):
		case slices.Contains(active, client):
			cur = client
		default:
			cur = noToken
		}
		sel.Selected = cur
		sel.Refresh()
	}
	for _, client := range clients.Clients {
		c.showClient(client)
	}
}

// clientConfig builds a client's config, reading its token's secret from
// the keyring. It runs off the UI goroutine.
func (c *connectScreen) clientConfig(ctx context.Context, client, token string) (*clients.ClientConfig, string, error) {
	secret := ""
	if token != "" && token != noToken {
		toks, err := c.tokensAPI()
		if err != nil {
			return nil, "", err
		}
		if secret, err = toks.Reveal(ctx, token); err != nil {
			return nil, "", err
		}
	}
	o := c.connectOptions(secret)
	if secret != "" {
		o.TokenName = token
	}
	cfg, err := clients.Connect(client, o)
	return cfg, secret, err
}

func (c *connectScreen) selectedToken(client string) string {
	if sel := c.tokenFor[client]; sel != nil {
		return sel.Selected
	}
	return ""
}

// showClient shows a client's config, the token masked.
func (c *connectScreen) showClient(client string) {
	token := c.selectedToken(client)
	snippet, note := c.snippets[client], c.notes[client]
	if token == noToken {
		snippet.Segments = []widget.RichTextSegment{&widget.TextSegment{
			Text:  "Pick or create a token for " + clientNames[client] + " to see its config.",
			Style: widget.RichTextStyleParagraph,
		}}
		snippet.Refresh()
		setMuted(note, "")
		c.enableClient(client, false)
		return
	}
	if token != "" && (c.storeErr != nil || c.secretErr[token] != nil) {
		// The config holds the secret, which cannot be read now.
		text := "The config holds the token's secret, which cannot be read: " + c.secretProblem(token) + "."
		if c.storeErr != nil {
			text = "The config holds the token's secret, and " + c.storeErr.Reason + ". Press Unlock or choose… above."
		}
		snippet.Segments = []widget.RichTextSegment{&widget.TextSegment{Text: text, Style: widget.RichTextStyleParagraph}}
		snippet.Refresh()
		setMuted(note, "")
		c.enableClient(client, false)
		return
	}
	c.enableClient(client, true)
	c.u.goBackground(func(ctx context.Context) {
		cfg, secret, err := c.clientConfig(ctx, client, token)
		fyneDo(func() {
			if c.selectedToken(client) != token {
				return // the choice changed meanwhile
			}
			if err != nil {
				snippet.Segments = []widget.RichTextSegment{&widget.TextSegment{Text: capitalize(err.Error()), Style: widget.RichTextStyleParagraph}}
				snippet.Refresh()
				setMuted(note, fixFor(err))
				return
			}
			text := maskSecret(cfg.Snippet, secret)
			segs := []widget.RichTextSegment{
				&widget.TextSegment{Text: "In " + cfg.Path + ":", Style: widget.RichTextStyleParagraph},
				&widget.TextSegment{Text: strings.TrimRight(text, "\n"), Style: widget.RichTextStyleCodeBlock},
			}
			if cfg.SafeCommand != "" {
				segs = append(segs,
					&widget.TextSegment{Text: "Or run this, which reads the secret from the keyring as it runs, so it stays out of your shell history:", Style: widget.RichTextStyleParagraph},
					&widget.TextSegment{Text: cfg.SafeCommand, Style: widget.RichTextStyleCodeBlock},
					&widget.TextSegment{Text: "or this, with the secret written out (Copy gives the real one; it lands in your shell history):", Style: widget.RichTextStyleParagraph},
					&widget.TextSegment{Text: maskSecret(cfg.Command, secret), Style: widget.RichTextStyleCodeBlock})
			} else if cfg.Command != "" {
				segs = append(segs,
					&widget.TextSegment{Text: "Or run:", Style: widget.RichTextStyleParagraph},
					&widget.TextSegment{Text: maskSecret(cfg.Command, secret), Style: widget.RichTextStyleCodeBlock})
			}
			snippet.Segments = segs
			snippet.Refresh()
			setMuted(note, cfg.Note)
		})
	})
}

// enableClient turns a client card's Copy and Write on or off: with no
// token (or no readable secret) there is no config to copy or write.
func (c *connectScreen) enableClient(client string, on bool) {
	for _, b := range []*widget.Button{c.copyBtn[client], c.writeBtn[client]} {
		if b == nil {
			continue
		}
		if on {
			b.Enable()
		} else {
			b.Disable()
		}
	}
}

// maskSecret hides a token secret in text shown on screen; Copy copies the
// real one.
func maskSecret(text, secret string) string {
	if secret == "" {
		return text
	}
	return strings.ReplaceAll(text, secret, redact.MaskSecret(secret))
}

// copyConfig copies a client's exact config, secret included.
func (c *connectScreen) copyConfig(client string) {
	token := c.selectedToken(client)
	if token == noToken {
		c.u.showError("copy the config", fmt.Errorf("%s connects over HTTP and needs a token; pick or create one on its card", clientNames[client]))
		return
	}
	secretLoad(c, "make the config for "+clientNames[client], func(ctx context.Context) (*clients.ClientConfig, error) {
		cfg, _, err := c.clientConfig(ctx, client, token)
		return cfg, err
	}, func(cfg *clients.ClientConfig) {
		c.u.copyText("the config for "+clientNames[client], cfg.Snippet)
	})
}

// confirmWrite asks before merging Ireneo's entry into a client's file.
func (c *connectScreen) confirmWrite(client string) {
	token := c.selectedToken(client)
	if token == noToken {
		c.u.showError("write the config", fmt.Errorf("%s connects over HTTP and needs a token; pick or create one on its card", clientNames[client]))
		return
	}
	secretLoad(c, "make the config for "+clientNames[client], func(ctx context.Context) (*clients.ClientConfig, error) {
		cfg, _, err := c.clientConfig(ctx, client, token)
		return cfg, err
	}, func(cfg *clients.ClientConfig) {
		msg := fmt.Sprintf("Ireneo's entry goes into\n%s\n\nThe file is backed up first, and every other server and setting in it is kept.", cfg.Path)
		if h := c.hookConfig(client); h != nil {
			msg += fmt.Sprintf("\n\nThe capture hooks go into\n%s\nafter a backup too, next to any hooks already there.", h.Path)
		}
		c.u.confirm("Write to "+clientNames[client]+"'s config", wrapped(msg), "Write config", false, 520,
			func() { c.writeConfig(client, cfg) })
	})
}

func (c *connectScreen) writeConfig(client string, cfg *clients.ClientConfig) {
	hooks := c.hookConfig(client)
	type written struct{ cfg, hooks clients.WriteResult }
	load(c.u, "write "+clientNames[client]+"'s config", func(context.Context) (written, error) {
		var w written
		var err error
		// One write when both go in one file (Codex's config.toml).
		w.cfg, w.hooks, err = cfg.WriteWithHooks(hooks, time.Now())
		var notHooks *clients.HooksNotWrittenError
		if errors.As(err, &notHooks) {
			return w, fmt.Errorf("the server entry is written, but not the capture hooks: %w", notHooks.Err)
		}
		return w, err
	}, func(w written) {
		res := w.cfg
		msg := "Written to " + res.Path + "."
		if res.Backup != "" {
			msg += "\nThe previous file is saved as " + res.Backup + "."
		}
		if res.Replaced {
			msg += "\nAn earlier Ireneo entry was replaced."
		}
		if hooks != nil {
			msg += "\n\nCapture hooks written to " + w.hooks.Path + "."
			if w.hooks.Backup != "" {
				msg += "\nThe previous file is saved as " + w.hooks.Backup + "."
			}
			c.u.imp.refresh()
		}
		if cfg.Note != "" {
			msg += "\n\n" + cfg.Note
		}
		c.u.lastInfo = msg
		c.u.showMessage("Config written", wrapped(msg), "OK", 520)
	})
}
