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

	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
)

// The connect screen: the MCP server's state, the access tokens (create,
// copy, reveal, revoke) and, for each supported client, the exact config
// with Copy and Write buttons. It runs the same mcpserver code as
// `ireneo token` and `ireneo connect`.

// clientNames are the clients' display names.
var clientNames = map[string]string{
	mcpserver.ClientClaudeDesktop: "Claude Desktop",
	mcpserver.ClientClaudeCode:    "Claude Code",
	mcpserver.ClientCodex:         "Codex",
	mcpserver.ClientCursor:        "Cursor",
	mcpserver.ClientVSCode:        "VS Code",
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

	list []memory.AccessToken
}

func newConnectScreen(u *ui) *connectScreen {
	c := &connectScreen{u: u, tokenFor: map[string]*widget.Select{}, snippets: map[string]*widget.RichText{}, notes: map[string]*widget.RichText{}}
	c.status = widget.NewLabel("")
	c.status.Wrapping = fyne.TextWrapWord
	c.toggle = widget.NewButton("Start server", u.toggleServer)
	c.tokens = container.NewVBox()
	c.name = widget.NewEntry()
	c.name.SetPlaceHolder("Token name, e.g. claude-code")
	c.scope = widget.NewEntry()
	c.scope.SetPlaceHolder("Projects it may see, comma-separated (empty: everything)")
	c.create = widget.NewButtonWithIcon("Create token", theme.ContentAddIcon(), func() { c.createToken(c.name.Text, c.scope.Text) })
	c.name.OnSubmitted = func(string) { c.createToken(c.name.Text, c.scope.Text) }
	c.clients = container.NewAppTabs()
	for _, client := range mcpserver.Clients {
		c.clients.Append(container.NewTabItem(clientNames[client], c.clientCard(client)))
	}
	return c
}

func (c *connectScreen) content() fyne.CanvasObject {
	heading := func(s string) fyne.CanvasObject {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	tokIntro := widget.NewLabel("Each client gets its own token. The secret lives in the OS keyring; a token scoped to projects sees nothing else.")
	tokIntro.Wrapping = fyne.TextWrapWord
	form := container.NewBorder(nil, nil, nil, c.create, container.NewGridWithColumns(2, c.name, c.scope))
	body := container.NewVBox(
		heading("MCP server"),
		container.NewBorder(nil, nil, nil, c.toggle, c.status),
		widget.NewSeparator(),
		heading("Access tokens"), tokIntro, c.tokens, form,
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
	load(c.u, "list the tokens", func(ctx context.Context) ([]memory.AccessToken, error) {
		return toks.List(ctx)
	}, c.showTokens)
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
		c.status.SetText(fmt.Sprintf("Stopped. It will listen on %s when started.", mcpserver.URLFor(c.u.set.ServerAddr)))
		c.toggle.SetText("Start server")
		c.toggle.Enable()
	}
}

func portOf(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		return addr[i+1:]
	}
	return addr
}

// showTokens lists the tokens, live ones first, each with its actions.
func (c *connectScreen) showTokens(list []memory.AccessToken) {
	c.list = list
	slices.SortStableFunc(list, func(a, b memory.AccessToken) int {
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

func tokenMeta(t memory.AccessToken) string {
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
	load(c.u, "create the token "+name, func(ctx context.Context) (string, error) {
		secret, _, err := toks.Create(ctx, name, projects)
		return secret, err
	}, func(secret string) {
		c.name.SetText("")
		c.scope.SetText("")
		c.refresh()
		c.showSecret("Token "+name+" created", "Copy it into your client now, or use a client's card below. "+
			"It is kept in your OS keyring; Reveal shows it again.", secret)
	})
}

// showSecret shows a token secret with a Copy button.
func (c *connectScreen) showSecret(title, msg, secret string) {
	l := widget.NewLabel(msg)
	l.Wrapping = fyne.TextWrapWord
	e := widget.NewEntry()
	e.SetText(secret)
	e.TextStyle.Monospace = true
	copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		c.u.copyText("the token", secret)
	})
	d := dialog.NewCustom(title, "Close", container.NewVBox(l, container.NewBorder(nil, nil, nil, copyBtn, e)), c.u.win)
	d.Resize(fyne.NewSize(620, 0))
	d.Show()
}

func (c *connectScreen) copyToken(name string) {
	toks, err := c.tokensAPI()
	if err != nil {
		c.u.showError("copy the token", err)
		return
	}
	load(c.u, "read the token "+name+" from the keyring", func(ctx context.Context) (string, error) {
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
	load(c.u, "read the token "+name+" from the keyring", func(ctx context.Context) (string, error) {
		return toks.Reveal(ctx, name)
	}, func(secret string) {
		c.showSecret("Token "+name, "Anyone with this secret can read your memory through the MCP server.", secret)
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
	var top fyne.CanvasObject
	if client != mcpserver.ClientClaudeDesktop { // Claude Desktop runs `ireneo mcp` over stdio: no token
		sel := newSelect([]string{noToken}, noToken, func(string) { c.showClient(client) })
		c.tokenFor[client] = sel
		mk := widget.NewButton("Create token", func() { c.createToken(client, "") })
		top = container.NewHBox(widget.NewLabel("Token"), sel, mk)
	} else {
		top = layout.NewSpacer()
	}
	body := container.NewVBox(top, snippet, note, container.NewHBox(copyBtn, write))
	return container.NewPadded(body)
}

// connectOptions are the options for a client's config with a token secret.
func (c *connectScreen) connectOptions(secret string) mcpserver.ConnectOptions {
	o := mcpserver.ConnectOptions{Token: secret, MemoryDir: c.u.mem.Dir(), Home: c.u.deps.Home,
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
	for _, client := range mcpserver.Clients {
		c.showClient(client)
	}
}

// clientConfig builds a client's config, reading its token's secret from
// the keyring. It runs off the UI goroutine.
func (c *connectScreen) clientConfig(ctx context.Context, client, token string) (*mcpserver.ClientConfig, string, error) {
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
	cfg, err := mcpserver.Connect(client, o)
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
		return
	}
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

// maskSecret hides a token secret in text shown on screen; Copy copies the
// real one.
func maskSecret(text, secret string) string {
	if secret == "" {
		return text
	}
	return strings.ReplaceAll(text, secret, memory.MaskSecret(secret))
}

// copyConfig copies a client's exact config, secret included.
func (c *connectScreen) copyConfig(client string) {
	token := c.selectedToken(client)
	if token == noToken {
		c.u.showError("copy the config", fmt.Errorf("%s connects over HTTP and needs a token; pick or create one on its card", clientNames[client]))
		return
	}
	load(c.u, "make the config for "+clientNames[client], func(ctx context.Context) (*mcpserver.ClientConfig, error) {
		cfg, _, err := c.clientConfig(ctx, client, token)
		return cfg, err
	}, func(cfg *mcpserver.ClientConfig) {
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
	load(c.u, "make the config for "+clientNames[client], func(ctx context.Context) (*mcpserver.ClientConfig, error) {
		cfg, _, err := c.clientConfig(ctx, client, token)
		return cfg, err
	}, func(cfg *mcpserver.ClientConfig) {
		dialog.ShowConfirm("Write to "+clientNames[client]+"'s config?",
			fmt.Sprintf("Ireneo's entry goes into\n%s\n\nThe file is backed up first, and every other server and setting in it is kept.", cfg.Path),
			func(ok bool) {
				if ok {
					c.writeConfig(client, cfg)
				}
			}, c.u.win)
	})
}

func (c *connectScreen) writeConfig(client string, cfg *mcpserver.ClientConfig) {
	load(c.u, "write "+clientNames[client]+"'s config", func(context.Context) (mcpserver.WriteResult, error) {
		return cfg.Write(time.Now())
	}, func(res mcpserver.WriteResult) {
		msg := "Written to " + res.Path + "."
		if res.Backup != "" {
			msg += "\nThe previous file is saved as " + res.Backup + "."
		}
		if res.Replaced {
			msg += "\nAn earlier Ireneo entry was replaced."
		}
		if cfg.Note != "" {
			msg += "\n\n" + cfg.Note
		}
		c.u.lastInfo = msg
		dialog.ShowInformation("Config written", msg, c.u.win)
	})
}
