package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/plumbing"
)

func init() { register(newAuditCmd) }

func newAuditCmd(g *globals) *cobra.Command {
	var q memory.AuditQuery
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
			es, err := m.Audit(c.Context(), q)
			if err != nil {
				return err
			}
			// Marked as Ireneo's answers are (recall.go): the arguments
			// are agents' queries, which an agent running this through
			// its shell must not bring back into the index as its words.
			if asJSON {
				out := make([]markedAuditEntry, len(es))
				for i, e := range es {
					out[i] = markedAuditEntry{plumbing.ResultMarker, e}
				}
				return printJSON(g.stdout, out)
			}
			fmt.Fprintln(g.stdout, plumbing.ResultMarker)
			if len(es) == 0 {
				fmt.Fprintln(g.stdout, "No calls recorded.")
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tCLIENT\tTOOL\tOUTCOME\tHITS\tMS\tARGUMENTS")
			for _, e := range es {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.1f\t%s\n", e.TS.Local().Format("2006-01-02 15:04:05"), e.Client, e.Tool,
					e.Outcome, e.Hits, float64(e.Duration.Microseconds())/1000, clipArgs(e.Args, 80))
			}
			return tw.Flush()
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

// markedAuditEntry is an entry of audit's --json answer: the entry's own
// fields and the marker, each entry carrying it so the answer stays the
// array it always was.
type markedAuditEntry struct {
	Marker string
	memory.AuditEntry
}

func (e markedAuditEntry) MarshalJSON() ([]byte, error) {
	inner, err := json.Marshal(e.AuditEntry)
	if err != nil || len(inner) < 2 || inner[0] != '{' {
		return inner, err
	}
	mk, _ := json.Marshal(map[string]string{plumbing.MarkerField: e.Marker})
	if string(inner) == "{}" {
		return mk, nil
	}
	return append(append(mk[:len(mk)-1:len(mk)-1], ','), inner[1:]...), nil
}

// clipArgs shortens s to n runes for a table cell.
func clipArgs(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
