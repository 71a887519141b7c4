package cli

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/memory"
)

func init() {
	register(newTagCmd(true))
	register(newTagCmd(false))
	register(newStarCmd(true))
	register(newStarCmd(false))
	register(newForgetCmd)
	register(newReindexCmd)
	register(newStatusCmd)
}

func newTagCmd(add bool) func(g *globals) *cobra.Command {
	return func(g *globals) *cobra.Command {
		use, short := "tag", "Add projects to a conversation"
		if !add {
			use, short = "untag", "Remove projects from a conversation"
		}
		return &cobra.Command{
			Use:   use + " SESSION_ID PROJECT...",
			Short: short,
			Args:  cobra.MinimumNArgs(2),
			RunE: g.withMemory(func(c *cobra.Command, args []string, m *memory.Memory) error {
				edit := m.Tag
				if !add {
					edit = m.Untag
				}
				if err := edit(c.Context(), args[0], args[1:]...); err != nil {
					return err
				}
				fmt.Fprintf(g.stdout, "%sged %s: %s\n", use, args[0], strings.Join(args[1:], ", "))
				return nil
			}),
		}
	}
}

func newStarCmd(on bool) func(g *globals) *cobra.Command {
	return func(g *globals) *cobra.Command {
		use, short := "star", "Mark a conversation as important: it ranks higher in recall"
		if !on {
			use, short = "unstar", "Clear a conversation's star"
		}
		return &cobra.Command{
			Use:   use + " SESSION_ID",
			Short: short,
			Args:  cobra.ExactArgs(1),
			RunE: g.withMemory(func(c *cobra.Command, args []string, m *memory.Memory) error {
				if err := m.Star(c.Context(), args[0], on); err != nil {
					return err
				}
				fmt.Fprintf(g.stdout, "%sred %s\n", use, args[0])
				return nil
			}),
		}
	}
}

func newForgetCmd(g *globals) *cobra.Command {
	var yes, asJSON bool
	c := &cobra.Command{
		Use:   "forget [--yes] SESSION_ID...",
		Short: "Erase conversations for good; a re-import will not bring them back",
		Args:  cobra.MinimumNArgs(1),
		RunE: g.withMemory(func(c *cobra.Command, args []string, m *memory.Memory) error {
			if !yes {
				if !isTerminal(g.stdin) {
					return usagef("forget cannot be undone; pass --yes to confirm")
				}
				for _, id := range args {
					tr, err := conversations.Get(c.Context(), m, conversations.GetOptions{SessionID: id, Window: 1})
					if err != nil {
						return err
					}
					fmt.Fprintf(g.stderr, "  %-10s  %s  %s (%d turns)\n", memory.Day(tr.Session.Updated), tr.Session.Source, answer.Terminal(orDash(tr.Session.Title)), tr.Session.Turns)
				}
				fmt.Fprintf(g.stderr, "Forget %s? This cannot be undone. [y/N] ", plural(len(args), "conversation", "conversations"))
				answer, _ := bufio.NewReader(g.stdin).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
					return fmt.Errorf("forget: not confirmed; nothing was changed")
				}
			}
			rep, err := m.Forget(c.Context(), args, nil)
			if err != nil {
				return err
			}
			// An answer (package answer's, marked): it names the forgotten
			// conversations, whose titles an agent running it through its
			// shell must not bring back into the index.
			r := rep
			if asJSON {
				return printAnswer(g.stdout, answer.CLIForgetJSON(&r))
			}
			fmt.Fprint(g.stdout, answer.CLIForget(&r))
			return nil
		}),
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return c
}

func newReindexCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the search index from src/, keeping tags, stars and tombstones",
		Args:  cobra.NoArgs,
		RunE: g.withMemory(func(c *cobra.Command, args []string, m *memory.Memory) error {
			rep, err := m.Reindex(c.Context(), nil)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "reindexed %s from %s\n", plural(rep.Sessions, "conversation", "conversations"), plural(rep.Files, "file", "files"))
			if rep.Erased > 0 {
				fmt.Fprintf(g.stdout, "erased %s of forgotten conversations\n", plural(rep.Erased, "file", "files"))
			}
			for _, f := range rep.Failed {
				fmt.Fprintln(g.stderr, "skipped", f)
			}
			if len(rep.Failed) > 0 {
				return fmt.Errorf("reindex: %d file(s) could not be read", len(rep.Failed))
			}
			return nil
		}),
	}
}

func newStatusCmd(g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status",
		Short: "Counts, size on disk and last import",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			m, err := g.open()
			if err != nil {
				return g.statusUnopened(err)
			}
			defer m.Close()
			st, err := m.Status(c.Context())
			if err != nil {
				return err
			}
			cs := g.captureStatus(c.Context(), m)
			if asJSON {
				return printJSON(g.stdout, struct {
					memory.Status
					Capture captureStatus `json:"capture"`
					Sync    any           `json:"sync"`
				}{st, cs, syncStatusOf(m.Dir())})
			}
			fmt.Fprintf(g.stdout, "memory:        %s\n", st.Dir)
			fmt.Fprintf(g.stdout, "conversations: %d (%d turns, %d tokens)\n", st.Conversations, st.Turns, st.Tokens)
			for _, src := range sortedKeys(st.BySource) {
				n := st.BySource[src]
				fmt.Fprintf(g.stdout, "  %-12s %d\n", src, n)
			}
			fmt.Fprintf(g.stdout, "projects:      %d\nstarred:       %d\nforgotten:     %d\n", st.Projects, st.Starred, st.Forgotten)
			fmt.Fprintf(g.stdout, "size on disk:  %.1f MB\n", float64(st.SizeBytes)/1e6)
			if st.LastImport != nil {
				fmt.Fprintf(g.stdout, "last import:   %s\n", st.LastImport.Format("2006-01-02 15:04 UTC"))
			} else {
				fmt.Fprintln(g.stdout, "last import:   never")
			}
			printCaptureStatus(g.stdout, cs)
			if ss := syncStatusOf(m.Dir()); ss != nil {
				printSyncStatus(g.stdout, *ss)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}
