package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
)

func init() { register(newImportCmd) }

// importRedactor, when set (by the scrub command's file), gives the import
// its secret scrubber. --no-scrub skips it.
var importRedactor func(g *globals) (func(*funes.Session) map[string]int, error)

func newImportCmd(g *globals) *cobra.Command {
	var includeForgotten, detect, watch, noScrub bool
	c := &cobra.Command{
		Use:   "import [--include-forgotten] [--detect] [--watch] [--no-scrub] PATH...",
		Short: "Import ChatGPT and Claude exports, Codex, Claude Code, Gemini CLI, opencode, Cursor and Copilot CLI sessions, and funes jsonl",
		Long: `Import conversations into the memory. PATH may be a ChatGPT or Claude.ai export
(the zip as downloaded, an unzipped folder or conversations.json), a Codex or
Claude Code session file or folder (~/.codex/sessions, ~/.claude/projects), a
Gemini CLI session or ~/.gemini/tmp, opencode's database (opencode.db, read in
place, read-only), an opencode export or its older storage/ folder, Cursor's
state.vscdb or agent transcripts (~/.cursor/projects), a Copilot CLI session
folder (~/.copilot/session-state), or funes jsonl. Formats are recognised by content. Each file is imported all or
nothing; a bad file changes nothing and is named with its problem.

With --detect, list what would be imported (from PATHs, or from the default
locations when none is given) and import nothing. With --watch, keep following
the agents' folders and databases and import new or grown sessions as they are
written.`,
		RunE: func(c *cobra.Command, args []string) error {
			paths := args
			if len(paths) == 0 && !detect && !watch {
				return usagef("import: give a PATH, or --detect to find the default locations")
			}
			if len(paths) == 0 {
				for _, l := range importers.DefaultLocations(g.toolHomes()) {
					if detect || l.Live {
						paths = append(paths, l.Path)
					}
				}
				if len(paths) == 0 {
					return errors.New("no agent history (Codex, Claude Code, Gemini CLI, opencode, Cursor, Copilot CLI) and no export zips found in the default locations")
				}
			}
			if detect {
				return printDetected(c.Context(), g.stdout, paths)
			}
			m, err := g.open()
			if err != nil {
				return err
			}
			defer m.Close()
			opts := importers.Options{IncludeForgotten: includeForgotten}
			if importRedactor != nil && !noScrub {
				if opts.Redact, err = importRedactor(g); err != nil {
					return err
				}
			}
			// Ctrl-C or SIGTERM cancels the import, which then removes its
			// staging files before the command exits 130.
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			line := newProgressLine(g.stderr)
			opts.Progress = line.show
			sum, runErr := importers.Run(ctx, m, paths, opts)
			line.clear()
			printSummary(g.stdout, sum)
			if ctx.Err() != nil && c.Context().Err() == nil {
				return errInterrupted
			}
			if watch && ctx.Err() == nil {
				// Empty folders are fine to watch: sessions will come.
				return watchAndImport(ctx, g, m, paths, importers.Options{IncludeForgotten: includeForgotten, Redact: opts.Redact})
			}
			if runErr != nil {
				return runErr
			}
			if sum.Failed > 0 {
				return fmt.Errorf("%s failed", plural(sum.Failed, "input", "inputs"))
			}
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&includeForgotten, "include-forgotten", false, "bring back conversations you forgot")
	f.BoolVar(&detect, "detect", false, "list what would be imported, and import nothing")
	f.BoolVar(&watch, "watch", false, "after importing, keep importing new or grown Codex and Claude Code sessions")
	f.BoolVar(&noScrub, "no-scrub", false, "import without redacting secrets")
	return c
}

// printDetected lists what each path holds, by format.
func printDetected(ctx context.Context, w io.Writer, paths []string) error {
	found := 0
	for _, p := range paths {
		ins, err := importers.Detect(ctx, p)
		if err != nil {
			fmt.Fprintf(w, "%s\n  cannot import: %v\n", p, err)
			continue
		}
		counts := map[importers.Format]int{}
		var problems []string
		for _, in := range ins {
			if in.Err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", in.Path, in.Err))
				continue
			}
			counts[in.Format]++
			found++
		}
		fmt.Fprintln(w, p)
		if len(counts) == 0 && len(problems) == 0 {
			fmt.Fprintln(w, "  nothing to import")
		}
		formats := make([]string, 0, len(counts))
		for f := range counts {
			formats = append(formats, string(f))
		}
		sort.Strings(formats)
		for _, f := range formats {
			fmt.Fprintf(w, "  %s: %s\n", formatName(importers.Format(f)), plural(counts[importers.Format(f)], "file", "files"))
		}
		for _, pr := range problems {
			fmt.Fprintf(w, "  cannot import %s\n", pr)
		}
	}
	if found == 0 {
		return errors.New("nothing to import")
	}
	return nil
}

func formatName(f importers.Format) string {
	switch f {
	case importers.FormatChatGPT:
		return "ChatGPT export"
	case importers.FormatClaude:
		return "Claude.ai export"
	case importers.FormatCodex:
		return "Codex sessions"
	case importers.FormatClaudeCode:
		return "Claude Code sessions"
	case importers.FormatFunes:
		return "funes jsonl"
	case importers.FormatGeminiCLI:
		return "Gemini CLI sessions"
	case importers.FormatOpenCodeDB:
		return "opencode database"
	case importers.FormatOpenCode:
		return "opencode exports"
	case importers.FormatOpenCodeV1:
		return "opencode sessions (before 1.2)"
	case importers.FormatCursorDB:
		return "Cursor databases"
	case importers.FormatCursor:
		return "Cursor agent transcripts"
	case importers.FormatCopilotCLI:
		return "GitHub Copilot CLI sessions"
	}
	return string(f)
}

// printSummary tells what an import did, then each failure and skip.
func printSummary(w io.Writer, s importers.Summary) {
	older := ""
	if s.Older > 0 {
		older = "; " + plural(s.Older, "older copy", "older copies") + " skipped"
	}
	fmt.Fprintf(w, "imported %d new, %d updated, %d unchanged; %d skipped as forgotten%s; %d failed\n",
		s.New, s.Updated, s.Unchanged, s.Forgotten, older, s.Failed)
	for _, f := range s.Failures {
		fmt.Fprintf(w, "failed: %s: %s\n", f.Path, f.Reason)
	}
	for _, f := range s.Skipped {
		fmt.Fprintf(w, "skipped: %s: %s\n", f.Path, f.Reason)
	}
	if len(s.Redacted) > 0 {
		rules := make([]string, 0, len(s.Redacted))
		for r := range s.Redacted {
			rules = append(rules, r)
		}
		sort.Strings(rules)
		parts := make([]string, len(rules))
		for i, r := range rules {
			parts[i] = fmt.Sprintf("%s %d", r, s.Redacted[r])
		}
		fmt.Fprintf(w, "secrets redacted: %s\n", strings.Join(parts, ", "))
	}
}

// watchAndImport follows the Codex and Claude Code folders among paths
// until interrupted, printing one line per import that changed something.
func watchAndImport(ctx context.Context, g *globals, m *memory.Memory, paths []string, opts importers.Options) error {
	var dirs []string
	for _, p := range paths {
		// Folders, and the databases opencode and Cursor keep.
		if fi, err := os.Stat(p); err == nil && (fi.IsDir() || watchableDB(p)) {
			dirs = append(dirs, p)
		}
	}
	if len(dirs) == 0 {
		return errors.New("--watch: no folder or database to watch among the paths")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(g.stderr, "watching %s (Ctrl-C to stop)\n", strings.Join(dirs, ", "))
	return importers.Watch(ctx, m, dirs, opts, func(s importers.Summary) {
		if s.New+s.Updated+s.Failed == 0 {
			return
		}
		fmt.Fprintf(g.stdout, "%s ", time.Now().Format("15:04:05"))
		printSummary(g.stdout, s)
	})
}

// watchableDB reports a database file the watcher can follow alone.
func watchableDB(p string) bool {
	for _, l := range importers.DefaultLocations(importers.Homes{}) {
		if l.Live && filepath.Clean(l.Path) == filepath.Clean(p) {
			return true
		}
	}
	base := filepath.Base(p)
	return base == "state.vscdb" || strings.HasPrefix(base, "opencode") && strings.HasSuffix(base, ".db")
}

// progressLine redraws one status line on a terminal; elsewhere it is
// silent, so logs and pipes get only the summary.
type progressLine struct {
	w     io.Writer
	on    bool
	last  time.Time
	drawn bool
}

func newProgressLine(w io.Writer) *progressLine {
	return &progressLine{w: w, on: isTerminal(w)}
}

func (p *progressLine) show(pr importers.Progress) {
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	name := filepath.Base(pr.Input)
	var msg string
	switch pr.Phase {
	case importers.PhaseRead:
		if pr.Total > 0 {
			msg = fmt.Sprintf("reading %s %d%% (%s)", name, pr.Done*100/max(pr.Total, 1), plural(pr.Sessions, "conversation", "conversations"))
		} else {
			msg = fmt.Sprintf("reading %s (%s)", name, plural(pr.Sessions, "conversation", "conversations"))
		}
	case importers.PhaseCommit:
		msg = fmt.Sprintf("storing %s: %d of %d", name, pr.Done, pr.Total)
	case importers.PhasePack:
		msg = "packing the index"
	default:
		msg = "looking at " + name
	}
	if len(msg) > 78 {
		msg = msg[:77] + "…"
	}
	fmt.Fprintf(p.w, "\r\033[K%s", msg)
	p.drawn = true
}

func (p *progressLine) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
