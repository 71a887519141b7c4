package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/tokenstore"
)

func init() {
	register(newServeCmd)
	register(newMCPCmd)
}

func newServeCmd(g *globals) *cobra.Command {
	var addr, kind string
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the memory to local agents over MCP (loopback HTTP, with tokens)",
		Long: fmt.Sprintf("Serve the memory over MCP's Streamable HTTP at http://%s%s until interrupted.\n"+
			"Only loopback addresses are accepted. Every request needs \"Authorization: Bearer <token>\"\n"+
			"(see `ireneo token`), and every tool call is written to the audit log (`ireneo audit`).",
			mcpserver.DefaultAddr, mcpserver.EndpointPath),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			limitMemory()
			if _, err := mcpserver.NormalizeAddr(addr); err != nil {
				return usagef("--addr: %v", err)
			}
			m, store, err := g.openWithTokens(kind)
			if err != nil {
				return err
			}
			defer m.Close()
			s := mcpserver.New(m, store, g.serverOptions())
			defer s.Close()
			if err := s.Start(addr); err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			fmt.Fprintf(g.stdout, "Ireneo MCP server at %s (memory %s). Ctrl-C stops it.\n", s.URL(), m.Dir())
			// Serving needs no keyring; say once what a locked one still stops.
			pctx, cancel := context.WithTimeout(c.Context(), probeTimeout)
			var ke *tokenstore.KeyringUnavailableError
			if err := store.Probe(pctx); errors.As(err, &ke) {
				fmt.Fprintf(g.stdout, "The OS keyring cannot be used (%s); the server does not need it and accepts the tokens made earlier. "+
					"Only making a token (`ireneo token create`) or reading its secret needs it.\n", ke.Reason)
			}
			cancel()
			if toks, err := tokenstore.AccessTokens(c.Context(), m); err == nil && len(toks) == 0 {
				fmt.Fprintln(g.stdout, "No tokens yet: every client will be refused. Make one with `ireneo token create NAME`.")
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			defer g.syncBeside(ctx, m)()
			<-ctx.Done()
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := s.Stop(sctx); err != nil {
				return fmt.Errorf("serve: stopping: %w", err)
			}
			fmt.Fprintln(g.stdout, "Stopped.")
			return nil
		},
	}
	c.Flags().StringVar(&addr, "addr", g.cfg.Settings.ServerAddr, "loopback address to listen on (127.0.0.1, ::1 or localhost, with a port; default from the settings)")
	addTokenStoreFlag(c, g, &kind)
	return c
}

func newMCPCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the memory over MCP on stdin/stdout, for clients that start a process",
		Long: "Speak MCP on stdin and stdout, for clients such as Claude Desktop that start the server\n" +
			"themselves. It sees the whole memory (whoever can start it can read the files anyway); calls\n" +
			"are audited as client \"stdio\". Logs go to stderr only.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			limitMemory()
			// Never make a memory here: a client that starts `ireneo mcp`
			// with a bare environment would get a new, empty one in silence.
			dir, err := filepath.Abs(g.cfg.MemoryDir)
			if err != nil {
				return fmt.Errorf("mcp: memory directory %s: %w", g.cfg.MemoryDir, err)
			}
			if _, err := os.Stat(filepath.Join(dir, memory.DBName)); err != nil {
				return fmt.Errorf("mcp: no memory at %s (looked for %s there); pass --memory DIR with the folder your memory is in", dir, memory.DBName)
			}
			m, err := g.open()
			if err != nil {
				return err
			}
			defer m.Close()
			s := mcpserver.New(m, nil, g.serverOptions())
			defer s.Close()
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return s.ServeStdio(ctx, g.stdin, g.stdout)
		},
	}
}

// serverMemoryLimit is the Go heap's soft limit in serve and mcp, which
// run for days beside a person's other work. Without one the heap grows to
// twice what each collection found live, and a recall allocates in bursts:
// on the heavy memory (21M tokens) after 300 recalls over HTTP, serve's
// VmRSS was 167 MB with no limit, 145 MB at 100 MiB for the same CPU per
// call, 123 MB at 80 MiB for 22 % more, and at 64 MiB the collector
// thrashed (2.7x the CPU). The limit is soft: a heap that needs more gets it.
const serverMemoryLimit = 96 << 20

// limitMemory sets serverMemoryLimit unless GOMEMLIMIT already set one.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serverMemoryLimit)
	}
}

// serverOptions are the MCP server's options for serve and mcp: logs on
// stderr, the settings' recall defaults, and queries scrubbed before they
// are audited.
func (g *globals) serverOptions() mcpserver.Options {
	return mcpserver.Options{
		Version:            g.cfg.Version,
		Logger:             slog.New(slog.NewTextHandler(g.stderr, nil)),
		DefaultTopK:        g.cfg.Settings.DefaultK,
		DefaultTokenBudget: g.cfg.Settings.DefaultBudget,
		LazySecrets:        g.auditSecrets,
	}
}
