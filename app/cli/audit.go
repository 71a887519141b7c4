package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/auditlog"
)

func init() { register(newAuditCmd) }

func newAuditCmd(g *globals) *cobra.Command {
	var q auditlog.Query
	var since string
	var asJSON bool
	c := &cobra.Command{
		Use:   "audit",
		Short: "List the MCP tool calls agents made, newest first",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if q.Since, err = parseDate("since", since); err != nil {
				return err
			}
			m, err := g.open()
			if err != nil {
				return err
			}
			defer m.Close()
			es, err := auditlog.List(c.Context(), m, q)
			if err != nil {
				return err
			}
			// An answer (package answer's, marked): the arguments are
			// agents' queries, which an agent running this through its
			// shell must not bring back into the index as its words.
			if asJSON {
				return printAnswer(g.stdout, answer.CLIAuditJSON(es))
			}
			_, err = fmt.Fprint(g.stdout, answer.CLIAudit(es))
			return err
		},
	}
	f := c.Flags()
	f.StringVar(&q.Client, "client", "", "only calls by this token name (or \"stdio\")")
	f.StringVar(&q.Tool, "tool", "", "only calls of this tool")
	f.StringVar(&since, "since", "", "only calls on or after this date (2026-10-08)")
	f.IntVar(&q.Limit, "limit", 100, "at most this many calls")
	f.BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}
