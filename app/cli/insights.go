package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/insights"
)

func init() { register(newInsightsCmd) }

func newInsightsCmd(g *globals) *cobra.Command {
	var asJSON bool
	var rng string
	c := &cobra.Command{
		Use:   "insights [--range 3m|year|all] [--json]",
		Short: "Your history in numbers: conversations and turns per week by source and project, and agent access",
		Long: `Show what the Insights screen charts: headline numbers for the whole memory,
conversations and turns per week by source and by project (top 10), and your
agents' recall and get calls per day by client, with no-match and refused
calls apart. A conversation counts, with all its turns, in the week it
started; weeks start on Monday (UTC). --json prints every series.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if _, err := insights.Since(rng, time.Now()); err != nil {
				return usagef("--range %q: want 3m, year or all", rng)
			}
			m, err := g.open()
			if err != nil {
				return err
			}
			defer m.Close()
			in, err := insights.Read(c.Context(), m, insights.Query{Range: rng})
			if err != nil {
				return err
			}
			// An answer (package answer's, marked): it names projects, as
			// `ireneo projects` does.
			a := in
			if asJSON {
				return printAnswer(g.stdout, answer.CLIInsightsJSON(&a))
			}
			_, err = fmt.Fprint(g.stdout, answer.CLIInsights(&a))
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON, every series included")
	c.Flags().StringVar(&rng, "range", insights.RangeAll, "how far back the charts go: 3m, year or all")
	return c
}
