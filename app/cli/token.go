package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/settings"
	"github.com/ireneo-app/ireneo/tokenstore"
)

func init() { register(newTokenCmd) }

// Token store kinds for --token-store.
const (
	storeKeyring = "keyring"
	storeFile    = "file"
)

// addTokenStoreFlag adds --token-store to a command that reads or writes
// token secrets.
// Its default follows the settings, so secrets kept in the file by the app's
// choice are found by the CLI too.
func addTokenStoreFlag(c *cobra.Command, g *globals, kind *string) {
	def := storeKeyring
	if g.cfg.Settings.TokenStore == settings.TokenStoreFile {
		def = storeFile
	}
	c.Flags().StringVar(kind, "token-store", def,
		"where token secrets live: keyring (the OS keyring) or file (a plain 0600 file in the config directory; only where no keyring works)")
}

// tokenStore opens the token store a --token-store flag names; the file
// store always comes with its warning on stderr.
func (g *globals) tokenStore(kind string) (tokenstore.TokenStore, error) {
	switch kind {
	case storeKeyring, "":
		return tokenstore.NewKeyringStore(), nil
	case storeFile:
		fs := tokenstore.NewFileTokenStore(g.cfg.TokenFile())
		fmt.Fprintf(g.stderr, tokenstore.FileStoreWarning+"\n", fs.Path)
		return fs, nil
	}
	return nil, usagef("--token-store %q: want keyring or file", kind)
}

// openWithTokens opens the token store a --token-store flag names, then the
// memory, for the commands that read or write token secrets. The caller
// closes the memory.
func (g *globals) openWithTokens(kind string) (*memory.Memory, tokenstore.TokenStore, error) {
	store, err := g.tokenStore(kind)
	if err != nil {
		return nil, nil, err
	}
	m, err := g.open()
	if err != nil {
		return nil, nil, err
	}
	return m, store, nil
}

// withTokens is withMemory for the commands that read or write a token's
// secret: it opens the store the --token-store flag names (*kind, read when
// the command runs) and the memory, checks with needSecrets that the store
// answers without an unlock prompt, and hands run the memory's tokens.
func (g *globals) withTokens(kind *string, run func(c *cobra.Command, args []string, tokens *mcpserver.Tokens, store tokenstore.TokenStore) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		m, store, err := g.openWithTokens(*kind)
		if err != nil {
			return err
		}
		defer m.Close()
		if err := needSecrets(c.Context(), c.Parent().Name()+" "+c.Name(), store); err != nil {
			return err
		}
		return run(c, args, mcpserver.NewTokens(m, store), store)
	}
}

// probeTimeout bounds the look at the keyring's state before a command
// that needs a secret: it never prompts, so it answers at once or not at all.
const probeTimeout = 3 * time.Second

// needSecrets checks, without raising an unlock prompt, that store can be
// used by command cmd, which needs a token's secret. A locked or missing
// keyring is said once, in plain words, with what still works.
func needSecrets(ctx context.Context, cmd string, store tokenstore.TokenStore) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	err := store.Probe(ctx)
	var ke *tokenstore.KeyringUnavailableError
	if !errors.As(err, &ke) {
		return err
	}
	return &secretsUnavailable{cmd: cmd, ke: ke}
}

// secretsUnavailable is a command that needs a secret on a keyring that
// cannot be used.
type secretsUnavailable struct {
	cmd string
	ke  *tokenstore.KeyringUnavailableError
}

func (e *secretsUnavailable) Error() string {
	return fmt.Sprintf("%s needs the OS keyring, but %s. %s\n%s", e.cmd, e.ke.Reason, e.ke.Fix, tokenstore.ServingNote)
}

func (e *secretsUnavailable) Unwrap() error { return e.ke }

// tokenError is the error of command cmd about token name: a name that
// does not exist is said so, with where to look.
func tokenError(cmd, name string, err error) error {
	if errors.Is(err, memory.ErrNotFound) {
		return fmt.Errorf("%s: no token named %q (see `ireneo token list`)", cmd, name)
	}
	return fmt.Errorf("%s %s: %w", cmd, name, err)
}

func newTokenCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "token",
		Short: "Create, list, show and revoke the tokens MCP clients use over HTTP",
		Long: "Each MCP client that connects over HTTP gets its own token: a name, an optional list of projects\n" +
			"it may see, and a secret kept in the OS keyring (service \"ireneo\"). The memory keeps only the\n" +
			"name, the scope, the times and a SHA-256 of the secret.",
	}
	c.AddCommand(newTokenCreateCmd(g), newTokenListCmd(g), newTokenRevokeCmd(g), newTokenShowCmd(g), newTokenSecretCmd(g))
	return c
}

func newTokenCreateCmd(g *globals) *cobra.Command {
	var projects []string
	var kind string
	var asJSON bool
	c := &cobra.Command{
		Use:   "create NAME",
		Short: "Make a token for one client and print its secret once",
		Args:  cobra.ExactArgs(1),
		RunE: g.withTokens(&kind, func(c *cobra.Command, args []string, tokens *mcpserver.Tokens, store tokenstore.TokenStore) error {
			secret, info, err := tokens.Create(c.Context(), args[0], projects)
			if err != nil {
				return fmt.Errorf("token create %s: %w", args[0], err)
			}
			if asJSON {
				return printJSON(g.stdout, map[string]any{"name": info.Name, "projects": info.Projects, "created": info.Created, "secret": secret})
			}
			fmt.Fprintf(g.stdout, "Created token %q (sees %s). Its secret, shown this once:\n\n%s\n\n", info.Name, tokenScopeText(info.Projects), secret)
			fmt.Fprintf(g.stdout, "It is kept in %s; `ireneo token show %s --reveal` reads it back.\n", store.Describe(), info.Name)
			fmt.Fprintf(g.stdout, "Next: `ireneo connect CLIENT --token %s` prints the config for your client.\n", info.Name)
			return nil
		}),
	}
	c.Flags().StringArrayVar(&projects, "project", nil, "only conversations tagged with this project (repeat for more); none means everything")
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON, secret included")
	addTokenStoreFlag(c, g, &kind)
	return c
}

func tokenScopeText(projects []string) string {
	if len(projects) == 0 {
		return "the whole memory"
	}
	return "only projects " + strings.Join(projects, ", ")
}

func tokenTime(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format("2006-01-02 15:04")
}

func newTokenListCmd(g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List tokens (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: g.withMemory(func(c *cobra.Command, args []string, m *memory.Memory) error {
			list, err := tokenstore.AccessTokens(c.Context(), m)
			if err != nil {
				return err
			}
			if asJSON {
				if list == nil {
					list = []tokenstore.AccessToken{}
				}
				return printJSON(g.stdout, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(g.stdout, "No tokens yet. Make one per client with `ireneo token create NAME`.")
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSCOPE\tCREATED\tLAST USED\tSTATUS")
			for _, t := range list {
				status := "active"
				if !t.Active() {
					status = "revoked " + tokenTime(t.Revoked)
				}
				scope := "everything"
				if len(t.Projects) > 0 {
					scope = strings.Join(t.Projects, ",")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.Name, scope, tokenTime(t.Created), tokenTime(t.LastUsed), status)
			}
			return tw.Flush()
		}),
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

func newTokenRevokeCmd(g *globals) *cobra.Command {
	var kind string
	c := &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke a token at once and delete its secret",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			m, store, err := g.openWithTokens(kind)
			if err != nil {
				return err
			}
			defer m.Close()
			if err := mcpserver.NewTokens(m, store).Revoke(c.Context(), args[0]); err != nil {
				return tokenError("token revoke", args[0], err)
			}
			fmt.Fprintf(g.stdout, "Revoked token %q; clients using it are refused from their next call.\n", args[0])
			return nil
		},
	}
	addTokenStoreFlag(c, g, &kind)
	return c
}

func newTokenShowCmd(g *globals) *cobra.Command {
	var kind string
	var reveal, asJSON bool
	c := &cobra.Command{
		Use:   "show NAME [--reveal]",
		Short: "Show a token; --reveal also prints its secret from the keyring",
		Args:  cobra.ExactArgs(1),
		RunE: g.withMemory(func(c *cobra.Command, args []string, m *memory.Memory) error {
			info, err := tokenstore.FindAccessToken(c.Context(), m, args[0])
			if errors.Is(err, memory.ErrNotFound) {
				return tokenError("token show", args[0], err)
			}
			if err != nil {
				return err
			}
			secret := ""
			if reveal {
				store, err := g.tokenStore(kind)
				if err != nil {
					return err
				}
				if err := needSecrets(c.Context(), "token show --reveal", store); err != nil {
					return err
				}
				if secret, err = mcpserver.NewTokens(m, store).Reveal(c.Context(), args[0]); err != nil {
					return fmt.Errorf("token show %s: %w", args[0], err)
				}
			}
			if asJSON {
				out := map[string]any{"token": info}
				if reveal {
					out["secret"] = secret
				}
				return printJSON(g.stdout, out)
			}
			status := "active"
			if !info.Active() {
				status = "revoked " + tokenTime(info.Revoked)
			}
			fmt.Fprintf(g.stdout, "name:      %s\nsees:      %s\ncreated:   %s\nlast used: %s\nstatus:    %s\n",
				info.Name, tokenScopeText(info.Projects), tokenTime(info.Created), tokenTime(info.LastUsed), status)
			if reveal {
				fmt.Fprintf(g.stdout, "secret:    %s\n", secret)
			}
			return nil
		}),
	}
	c.Flags().BoolVar(&reveal, "reveal", false, "print the secret, read from the token store")
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	addTokenStoreFlag(c, g, &kind)
	return c
}
