package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/plumbing"
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
			if _, err := memory.InsightsSince(rng, time.Now()); err != nil {
				return usagef("--range %q: want 3m, year or all", rng)
			}
			m, err := g.open()
			if err != nil {
				return err
			}
			defer m.Close()
			in, err := m.Insights(c.Context(), memory.InsightsQuery{Range: rng})
			if err != nil {
				return err
			}
			// Marked as Ireneo's answers are (recall.go): it names
			// projects, as `ireneo projects` does.
			if asJSON {
				return printJSON(g.stdout, struct {
					Marker string `json:"marker"`
					memory.Insights
				}{plumbing.ResultMarker, in})
			}
			fmt.Fprintln(g.stdout, plumbing.ResultMarker)
			printInsights(g.stdout, in)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON, every series included")
	c.Flags().StringVar(&rng, "range", memory.RangeAll, "how far back the charts go: 3m, year or all")
	return c
}

// printInsights writes the headline and one line per series, with a
// sparkline of its weeks (or days).
func printInsights(w io.Writer, in memory.Insights) {
	h := in.Headline
	fmt.Fprintf(w, "conversations:     %d (%d turns, %d tokens)\n", h.Conversations, h.Turns, h.Tokens)
	if h.Oldest != nil && h.Newest != nil {
		fmt.Fprintf(w, "from:              %s to %s\n", memory.Day(*h.Oldest), memory.Day(*h.Newest))
	}
	fmt.Fprintf(w, "size on disk:      %.1f MB\n", float64(h.SizeBytes)/1e6)
	fmt.Fprintf(w, "secrets redacted:  %d\nforgotten:         %s\n", h.Redacted, plural(h.Forgotten, "conversation", "conversations"))

	span := "all time"
	if in.Since != nil {
		span = "since " + memory.Day(*in.Since)
	}
	if len(in.Weeks) > 0 {
		fmt.Fprintf(w, "\nper week, %s (%s from %s):\n", span, plural(len(in.Weeks), "week", "weeks"), memory.Day(in.Weeks[0]))
	}
	nw := 12
	for _, s := range append(append([]memory.WeekSeries{}, in.BySource...), in.ByProject...) {
		nw = max(nw, min(28, len([]rune(s.Name))))
	}
	for _, a := range in.Agents {
		nw = max(nw, min(28, len([]rune(a.Client))))
	}
	fmt.Fprintln(w, "by source")
	for _, s := range in.BySource {
		fmt.Fprintf(w, "  %-*s %6d conv %7d turns  %s\n", nw, clip(s.Name, nw), s.TotalConvs, s.TotalTurns, sparkline(s.Conversations))
	}
	if len(in.BySource) == 0 {
		fmt.Fprintln(w, "  no conversations in this range")
	}
	fmt.Fprintln(w, "by project (top 10)")
	for _, s := range in.ByProject {
		fmt.Fprintf(w, "  %-*s %6d conv %7d turns  %s\n", nw, clip(s.Name, nw), s.TotalConvs, s.TotalTurns, sparkline(s.Conversations))
	}
	if len(in.ByProject) == 0 {
		fmt.Fprintln(w, "  no tagged conversations in this range")
	}
	fmt.Fprintln(w, "agent access per day (recall and get)")
	for _, a := range in.Agents {
		fmt.Fprintf(w, "  %-*s %6d answered %5d no match %5d refused %5d failed  %s\n",
			nw, clip(a.Client, nw), sum(a.Answered), sum(a.NoMatch), sum(a.Refused), sum(a.Failed), sparkline(addUp(a.Answered, a.NoMatch, a.Refused, a.Failed)))
	}
	if len(in.Agents) == 0 {
		fmt.Fprintln(w, "  no agent calls in this range")
	}
}

// clip shortens s to n characters, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func addUp(series ...[]int) []int {
	out := make([]int, len(series[0]))
	for _, s := range series {
		for i, x := range s {
			out[i] += x
		}
	}
	return out
}

// sparkline draws counts as block characters, at most 52 of them: longer
// series are summed into 52 buckets.
func sparkline(xs []int) string {
	const width = 52
	if len(xs) > width {
		b := make([]int, width)
		for i, x := range xs {
			b[i*width/len(xs)] += x
		}
		xs = b
	}
	top := 0
	for _, x := range xs {
		top = max(top, x)
	}
	bars := []rune("▁▂▃▄▅▆▇█")
	var sb strings.Builder
	for _, x := range xs {
		switch {
		case x == 0:
			sb.WriteRune(' ')
		default:
			sb.WriteRune(bars[min(len(bars)-1, (x*len(bars)-1)/top)])
		}
	}
	return strings.TrimRight(sb.String(), " ")
}
