package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
)

// Every answer here is package answer's (text and --json): it carries the
// marker as the MCP server's answers do, since an agent that runs the CLI
// through a shell has the output in its transcript, and the marker is how
// a later import knows it for Ireneo's (kept out of the index, so the
// memory does not feed on itself) and how forget finds the quotes in it.

// printAnswer writes a --json answer.
func printAnswer(w io.Writer, v any) error {
	b, err := answer.CLIJSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func init() {
	register(newRecallCmd)
	register(newGetCmd)
	register(newSessionsCmd)
	register(newProjectsCmd)
}

func newRecallCmd(g *globals) *cobra.Command {
	var o recall.Options
	var since, until, now string
	var asJSON bool
	c := &cobra.Command{
		Use:   "recall [flags] QUERY",
		Short: "Find the passages that best answer a query, within a token budget",
		Long: "Find verbatim, dated passages from past conversations. Flags go before or after the\n" +
			"query; other words that look like flags (\"what does -v do\") are searched as text, and\n" +
			"after -- every word is: ireneo recall -- how to pass --json to jq",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			args, err := flagsAfterQuery(c, args)
			if err != nil {
				return err
			}
			if o.Since, err = parseDate("since", since); err != nil {
				return err
			}
			if o.Until, err = parseDate("until", until); err != nil {
				return err
			}
			if o.Now, err = parseDate("now", now); err != nil {
				return err
			}
			o.Query = strings.Join(args, " ")
			m, err := g.open()
			if err != nil {
				return err
			}
			defer m.Close()
			res, err := recall.Recall(c.Context(), m, o)
			if errors.Is(err, recall.ErrEmptyQuery) {
				return usagef("recall: the query has nothing to search for")
			}
			if err != nil {
				return err
			}
			if asJSON {
				return printAnswer(g.stdout, res)
			}
			fmt.Fprint(g.stdout, answer.CLIRecall(res))
			return nil
		},
	}
	c.Flags().SetInterspersed(false)
	f := c.Flags()
	f.StringVar(&o.Project, "project", "", "only this project, plus untagged conversations")
	f.StringVar(&o.Source, "source", "", "only this source: chatgpt, claude, codex, claude_code")
	f.StringVar(&since, "since", "", "only turns on or after this date (2026-10-08)")
	f.StringVar(&until, "until", "", "only turns before this date")
	f.StringVar(&now, "now", "", "resolve the query's own dates (\"last week\", \"on 8 May\") against this time, not the clock's")
	f.IntVarP(&o.K, "k", "k", g.cfg.Settings.DefaultK, "at most this many passages (default from the settings)")
	f.IntVar(&o.Budget, "budget", g.cfg.Settings.DefaultBudget, "token budget for all passages together (default from the settings)")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return c
}

func newGetCmd(g *globals) *cobra.Command {
	var window int
	var asJSON bool
	c := &cobra.Command{
		Use:   "get SESSION_ID [TURN_UUID]",
		Short: "Print a conversation, or the turns around one turn",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			o := conversations.GetOptions{SessionID: args[0], Window: window}
			if len(args) == 2 {
				o.TurnUUID = args[1]
				if !c.Flags().Changed("window") {
					o.Window = 2
				}
			}
			m, err := g.open()
			if err != nil {
				return err
			}
			defer m.Close()
			tr, err := conversations.Get(c.Context(), m, o)
			if err != nil {
				return err
			}
			w := tr.Window()
			if asJSON {
				return printAnswer(g.stdout, answer.CLIGetJSON(&w))
			}
			fmt.Fprint(g.stdout, answer.CLIGet(&w))
			return nil
		},
	}
	c.Flags().IntVar(&window, "window", 0, "turns either side of TURN_UUID (default 2 with a turn, whole conversation without)")
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

func newSessionsCmd(g *globals) *cobra.Command {
	var q conversations.Query
	var since, until string
	var asJSON bool
	c := &cobra.Command{
		Use:   "sessions",
		Short: "List conversations, newest first",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if q.Since, err = parseDate("since", since); err != nil {
				return err
			}
			if q.Until, err = parseDate("until", until); err != nil {
				return err
			}
			m, err := g.open()
			if err != nil {
				return err
			}
			defer m.Close()
			list, total, err := conversations.List(c.Context(), m, q)
			if err != nil {
				return err
			}
			if asJSON {
				return printAnswer(g.stdout, answer.CLISessionsJSON(list, total))
			}
			fmt.Fprint(g.stdout, answer.CLISessions(list, total))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&q.Project, "project", "", "only this project, plus untagged conversations")
	f.StringVar(&q.Source, "source", "", "only this source")
	f.StringVar(&q.Query, "query", "", "only conversations holding all of these words")
	f.StringVar(&since, "since", "", "updated on or after this date")
	f.StringVar(&until, "until", "", "started before this date")
	f.BoolVar(&q.Starred, "starred", false, "only starred conversations")
	f.IntVar(&q.Limit, "limit", 100, "at most this many")
	f.IntVar(&q.Offset, "offset", 0, "skip this many")
	f.StringVar(&q.Sort, "sort", "updated", "updated, started, title, turns or source")
	f.BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

func newProjectsCmd(g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "projects",
		Short: "List projects with their conversation counts",
		Args:  cobra.NoArgs,
		RunE: g.withMemory(func(c *cobra.Command, args []string, m *memory.Memory) error {
			ps, untagged, err := conversations.Projects(c.Context(), m, nil)
			if err != nil {
				return err
			}
			if asJSON {
				return printAnswer(g.stdout, answer.CLIProjectsJSON(ps, untagged))
			}
			fmt.Fprint(g.stdout, answer.CLIProjects(ps, untagged))
			return nil
		}),
	}
	c.AddCommand(newProjectRenameCmd(g))
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

func newProjectRenameCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "rename OLD NEW",
		Short: "Rename a project; its conversations keep it under the new name",
		Args:  cobra.ExactArgs(2),
		RunE: g.withMemory(func(c *cobra.Command, args []string, m *memory.Memory) error {
			if err := m.RenameProject(c.Context(), args[0], args[1]); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "renamed %s to %s\n", args[0], args[1])
			return nil
		}),
	}
}

// flagsAfterQuery applies the flags of c written after the query, as
// people and agents write them (`ireneo recall "seal pump" --json -k 3`),
// and returns the query's words. Flags are parsed only up to the query's
// first word, so that a query may hold dash words of its own ("what does
// -v do", "-5 degrees"): only c's own flags are taken from the rest, and
// none after a -- (which is dropped), nor any when the query itself came
// after one.
func flagsAfterQuery(c *cobra.Command, args []string) ([]string, error) {
	if c.ArgsLenAtDash() >= 0 {
		return args, nil
	}
	var words, flags []string
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		name, _, hasValue := strings.Cut(w, "=")
		var f *pflag.Flag
		switch {
		case strings.HasPrefix(name, "--"):
			f = c.Flags().Lookup(name[2:])
		case len(name) == 2 && name[0] == '-':
			f = c.Flags().ShorthandLookup(name[1:])
		}
		if f == nil {
			words = append(words, w)
			continue
		}
		flags = append(flags, w)
		if !hasValue && f.NoOptDefVal == "" {
			if i+1 == len(args) {
				return nil, usagef("recall: %s needs a value (to search for it as a word, start the query with --)", name)
			}
			i++
			flags = append(flags, args[i])
		}
	}
	if len(flags) > 0 {
		if err := c.Flags().Parse(flags); err != nil {
			return nil, usagef("recall: %v (to search for it as a word, start the query with --)", err)
		}
	}
	if len(words) == 0 {
		return nil, usagef("recall: the query has nothing to search for")
	}
	return words, nil
}
