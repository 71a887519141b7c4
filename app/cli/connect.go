package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/capture"
	"github.com/ireneo-app/ireneo/clients"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/tokenstore"
)

func init() { register(newConnectCmd) }

func newConnectCmd(g *globals) *cobra.Command {
	var tokenName, addr, kind string
	var write, asJSON, hooks, stdio bool
	c := &cobra.Command{
		Use:   "connect CLIENT",
		Short: "Print (or --write) the config that connects an MCP client: " + strings.Join(clients.Clients, ", "),
		Long: "Print the exact config or command that connects CLIENT to Ireneo. HTTP clients get the URL and\n" +
			"their token's header: the token named by --token, else one named after the client (made if\n" +
			"missing). Clients that only start processes run `ireneo mcp`. --write merges the entry into the\n" +
			"client's own config file after a timestamped backup, keeping every other server.\n\n" +
			"Clients: " + strings.Join(clients.Clients, ", "),
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			client := args[0]
			if !isClient(client) {
				return usagef("connect: unknown client %q; choose one of %s", client, strings.Join(clients.Clients, ", "))
			}
			if hooks && !clients.HasHooks(client) {
				return usagef("connect %s --hooks: only %s have capture hooks", client, strings.Join(clients.HookClients, ", "))
			}
			listen, err := mcpserver.NormalizeAddr(addr)
			if err != nil {
				return usagef("--addr: %v", err)
			}
			// Every entry names the memory explicitly: a client may start
			// `ireneo mcp` without the environment that chose it.
			memDir, err := filepath.Abs(g.cfg.MemoryDir)
			if err != nil {
				return fmt.Errorf("connect: memory directory %s: %w", g.cfg.MemoryDir, err)
			}
			o := clients.ConnectOptions{URL: mcpserver.URLFor(listen), MemoryDir: memDir,
				ClaudeConfigDir: g.cfg.ClaudeConfigDir, CodexHome: g.cfg.CodexHome}
			if exe, err := os.Executable(); err == nil {
				o.Command = exe
			}
			if kind != storeKeyring {
				o.TokenStore = kind
			}
			if stdio {
				o.Transport = clients.TransportStdio
			}
			created := ""
			if client != clients.ClientClaudeDesktop && !stdio {
				if tokenName == "" {
					tokenName = client
				}
				o.Token, created, err = connectToken(c, g, kind, tokenName, c.Flags().Changed("token"))
				if err != nil {
					return err
				}
				o.TokenName = tokenName
			}
			cfg, err := clients.Connect(client, o)
			if err != nil {
				return err
			}
			var res, hookRes *clients.WriteResult
			var hookCfg *clients.HookConfig
			if hooks {
				if hookCfg, err = clients.Hooks(client, o); err != nil {
					return fmt.Errorf("connect %s --hooks: %w", client, err)
				}
			}
			if write {
				// One write when both go in one file (Codex's config.toml).
				r, hr, err := cfg.WriteWithHooks(hookCfg, time.Now())
				var notHooks *clients.HooksNotWrittenError
				if errors.As(err, &notHooks) {
					return fmt.Errorf("connect %s --write --hooks: the server entry is written, the hooks are not: %w", client, notHooks.Err)
				}
				if err != nil {
					return fmt.Errorf("connect %s --write: %w", client, err)
				}
				res = &r
				if hookCfg != nil {
					hookRes = &hr
				}
			}
			if asJSON {
				return printJSON(g.stdout, map[string]any{"config": cfg, "token": tokenName, "created_token": created != "", "written": res,
					"hooks": hookCfg, "hooks_written": hookRes})
			}
			if created != "" {
				where := "the keyring"
				if kind != storeKeyring {
					where = "the token file"
				}
				fmt.Fprintf(g.stdout, "Made token %q for %s (its secret is in %s; revoke it with `ireneo token revoke %s`).\n\n", created, client, where, created)
			}
			switch {
			case cfg.Transport == clients.TransportStdio:
				fmt.Fprintf(g.stdout, "%s starts Ireneo itself (stdio). Its config file is %s; the entry is:\n\n%s\n", client, cfg.Path, cfg.Snippet)
			case cfg.SafeCommand != "":
				fmt.Fprintf(g.stdout, "Run this, which reads the secret from Ireneo's token store as it runs, so it stays out of your shell history:\n\n  %s\n\n"+
					"or this, with the secret written out (it lands in your shell history):\n\n  %s\n\nor put this entry in %s:\n\n%s\n",
					cfg.SafeCommand, cfg.Command, cfg.Path, cfg.Snippet)
			case cfg.Command != "":
				fmt.Fprintf(g.stdout, "Run:\n\n  %s\n\nor put this entry in %s:\n\n%s\n", cfg.Command, cfg.Path, cfg.Snippet)
			default:
				fmt.Fprintf(g.stdout, "Put this entry in %s:\n\n%s\n", cfg.Path, cfg.Snippet)
			}
			if cfg.Transport == clients.TransportHTTP {
				fmt.Fprintln(g.stdout, "This holds the token's secret: keep it out of shared files and screenshots.")
			}
			if cfg.Note != "" {
				fmt.Fprintln(g.stdout, cfg.Note)
			}
			if res != nil {
				fmt.Fprintf(g.stdout, "\nWrote %s", res.Path)
				if res.Backup != "" {
					fmt.Fprintf(g.stdout, " (the old file is kept as %s)", res.Backup)
				}
				fmt.Fprintln(g.stdout, ".")
			}
			if hookCfg != nil {
				printHooks(g, hookCfg, hookRes)
			}
			if res == nil {
				cmd := reproduce(client, memDir, listen, tokenName, o.TokenStore)
				if stdio {
					cmd = strings.Join([]string{"ireneo", "--memory", clients.ShellQuote(memDir), "connect", clients.ShellQuote(client), "--write", "--stdio"}, " ")
				}
				if hooks {
					cmd += " --hooks"
				}
				fmt.Fprintf(g.stdout, "\n`%s` merges it into that file for you, after a backup.\n", cmd)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&tokenName, "token", "", "the token this client uses (default: one named after the client, made if missing)")
	f.StringVar(&addr, "addr", g.cfg.Settings.ServerAddr, "the address `ireneo serve` listens on (default from the settings)")
	f.BoolVar(&write, "write", false, "merge the entry into the client's config file (after a timestamped backup)")
	f.BoolVar(&asJSON, "json", false, "print as JSON (the config includes the token's secret)")
	f.BoolVar(&hooks, "hooks", false, "also add capture hooks (Claude Code: SessionEnd, PreCompact, Stop; Codex: notify; Gemini CLI, Cursor, Copilot CLI: their session-end and after-answer hooks; opencode: a plugin) that import each session as it ends, so none is lost to cleanup")
	f.BoolVar(&stdio, "stdio", false, "an entry that starts `ireneo mcp` itself instead of HTTP with a token (Gemini CLI, opencode, Copilot CLI, Cursor)")
	addTokenStoreFlag(c, g, &kind)
	return c
}

// printHooks says what the capture hooks are and where they went.
func printHooks(g *globals, h *clients.HookConfig, res *clients.WriteResult) {
	what := "hooks (" + strings.Join(clients.HookEvents(h.Client), ", ") + ")"
	switch h.Client {
	case clients.ClientCodex:
		what = "notify program"
	case clients.ClientOpenCode:
		what = "plugin (on " + strings.Join(clients.HookEvents(h.Client), ", ") + ")"
	}
	if res == nil {
		fmt.Fprintf(g.stdout, "\nCapture %s for %s, to go in %s, run:\n\n  %s\n\n%s\n", what, h.Client, h.Path, h.Command, h.Note)
		return
	}
	fmt.Fprintf(g.stdout, "\nWrote capture %s to %s", what, res.Path)
	if res.Backup != "" {
		fmt.Fprintf(g.stdout, " (the old file is kept as %s)", res.Backup)
	}
	fmt.Fprintf(g.stdout, ". The command:\n\n  %s\n\n%s Problems go to %s (`ireneo status` shows them).\n", h.Command, h.Note, capture.LogPath(g.cfg.MemoryDir))
}

// reproduce is the connect command that writes exactly the config shown.
func reproduce(client, memDir, addr, token, store string) string {
	q := clients.ShellQuote
	parts := []string{"ireneo", "--memory", q(memDir), "connect", q(client), "--write"}
	if client != clients.ClientClaudeDesktop {
		parts = append(parts, "--addr", q(addr), "--token", q(token))
		if store != "" {
			parts = append(parts, "--token-store", q(store))
		}
	}
	return strings.Join(parts, " ")
}

// newTokenSecretCmd prints one token's secret and nothing else, for $(…)
// in a command, so the secret never enters shell history.
func newTokenSecretCmd(g *globals) *cobra.Command {
	var kind string
	c := &cobra.Command{
		Use:   "secret NAME",
		Short: "Print a token's secret alone, for $(ireneo token secret NAME) in a client's setup command",
		Args:  cobra.ExactArgs(1),
		RunE: g.withTokens(&kind, func(c *cobra.Command, args []string, tokens *mcpserver.Tokens, _ tokenstore.TokenStore) error {
			secret, err := tokens.Reveal(c.Context(), args[0])
			if err != nil {
				return tokenError("token secret", args[0], err)
			}
			fmt.Fprintln(g.stdout, secret)
			return nil
		}),
	}
	addTokenStoreFlag(c, g, &kind)
	return c
}

func isClient(name string) bool {
	for _, c := range clients.Clients {
		if c == name {
			return true
		}
	}
	return false
}

// connectToken reads the secret of a live token, or, when the name was not
// given explicitly and no such token exists, makes it. It returns the name
// of a token it made, if any.
func connectToken(c *cobra.Command, g *globals, kind, name string, explicit bool) (secret, created string, err error) {
	m, store, err := g.openWithTokens(kind)
	if err != nil {
		return "", "", err
	}
	defer m.Close()
	if err := needSecrets(c.Context(), "connect", store); err != nil {
		return "", "", err
	}
	tokens := mcpserver.NewTokens(m, store)
	info, err := tokenstore.FindAccessToken(c.Context(), m, name)
	switch {
	case err == nil && info.Active():
		secret, err = tokens.Reveal(c.Context(), name)
		if err != nil {
			return "", "", fmt.Errorf("connect: token %s: %w", name, err)
		}
		return secret, "", nil
	case err != nil && !errors.Is(err, memory.ErrNotFound):
		return "", "", err
	case explicit && err != nil:
		return "", "", fmt.Errorf("connect: no token named %q; make it with `ireneo token create %s`", name, name)
	case explicit:
		return "", "", fmt.Errorf("connect: token %q is revoked; make a new one with `ireneo token create NAME`", name)
	}
	secret, _, err = tokens.Create(c.Context(), name, nil)
	if err != nil {
		return "", "", fmt.Errorf("connect: make token %s: %w", name, err)
	}
	return secret, name, nil
}
