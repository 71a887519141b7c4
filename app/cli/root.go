// Package cli is Ireneo's command line. It imports no Fyne, so every command,
// `serve` included, runs on a machine with no display.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/config"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
	// ExitInterrupted is a command stopped by Ctrl-C or SIGTERM, after it
	// cleaned up (128 + SIGINT, as shells report it).
	ExitInterrupted = 130
)

// errInterrupted is returned by a command stopped by a signal.
var errInterrupted = errors.New("interrupted")

// globals holds what every command shares: the configuration (with the
// --memory flag applied) and the streams.
type globals struct {
	cfg        config.Config
	memoryFlag string // --memory as given, "" if not
	stdout     io.Writer
	stderr     io.Writer
	stdin      io.Reader
}

// toolHomes are where Codex and Claude Code keep their files.
func (g *globals) toolHomes() importers.Homes {
	return importers.Homes{Codex: g.cfg.CodexHome, ClaudeCode: g.cfg.ClaudeConfigDir}
}

// open opens the memory directory the configuration names.
func (g *globals) open() (*memory.Memory, error) {
	return g.attachSync(memory.Open(g.cfg.MemoryDir))
}

// withMemory is the RunE of a command that works on the memory: it opens
// it, hands it to run and closes it after.
func (g *globals) withMemory(run func(c *cobra.Command, args []string, m *memory.Memory) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		m, err := g.open()
		if err != nil {
			return err
		}
		defer m.Close()
		return run(c, args, m)
	}
}

// commands lists the constructors of every subcommand. Each command's file
// adds its own in an init func, so files don't edit each other.
var commands []func(g *globals) *cobra.Command

func register(c func(g *globals) *cobra.Command) { commands = append(commands, c) }

// usageError marks an error as a usage error (exit code 2).
type usageError struct{ error }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// NewRoot builds the root command for cfg, writing to the given streams.
func NewRoot(cfg config.Config, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	g := &globals{cfg: cfg, stdout: stdout, stderr: stderr, stdin: stdin}
	root := &cobra.Command{
		Use:           "ireneo",
		Short:         "Ireneo keeps one local, verbatim, searchable memory of your AI conversations",
		Version:       cfg.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Flags go on top of the configuration.
	root.PersistentFlags().StringVar(&g.memoryFlag, "memory", "", "memory directory (default $IRENEO_HOME, else $XDG_DATA_HOME/ireneo)")
	root.PersistentPreRun = func(*cobra.Command, []string) {
		if g.memoryFlag != "" {
			g.cfg.MemoryDir = g.memoryFlag
		}
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	for _, c := range commands {
		root.AddCommand(c(g))
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	markUsageErrors(root)
	return root
}

// markUsageErrors makes every argument check's error a usage error (exit
// code 2), so no error needs to be told apart by its text. (An unknown
// subcommand is caught before, in RunConfig.)
func markUsageErrors(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return usageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markUsageErrors(sub)
	}
}

// Run runs the CLI with args and returns the exit code, configured by the
// environment as Main is; tests use it.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunConfig(ctx, config.Load(), args, stdin, stdout, stderr)
}

// RunConfig runs the CLI with cfg and args and returns the exit code.
func RunConfig(ctx context.Context, cfg config.Config, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := NewRoot(cfg, stdin, stdout, stderr)
	root.SetArgs(args)
	// Finding the command fails only on an unknown command, and a group
	// such as `token` left with words it has no command for has one too.
	if c, rest, err := root.Find(args); err != nil || (c.HasSubCommands() && !c.Runnable() && len(words(c, rest)) > 0) {
		if err == nil {
			err = fmt.Errorf("unknown command %q for %q", words(c, rest)[0], c.CommandPath())
		}
		fmt.Fprintln(stderr, "ireneo:", err)
		return ExitUsage
	}
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(stderr, "ireneo:", err)
	if errors.Is(err, errInterrupted) {
		return ExitInterrupted
	}
	var ue usageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	return ExitError
}

// words are the arguments left once c's flags are taken out.
func words(c *cobra.Command, args []string) []string {
	fs := c.Flags()
	fs.AddFlagSet(c.InheritedFlags())
	if fs.Parse(args) != nil {
		return nil // cobra reports the flag error itself
	}
	return fs.Args()
}

// Main runs the CLI with cfg on the process's own streams.
func Main(cfg config.Config, args []string) int {
	return RunConfig(context.Background(), cfg, args, os.Stdin, os.Stdout, os.Stderr)
}
