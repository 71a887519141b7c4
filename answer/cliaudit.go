package answer

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
)

// `ireneo audit`: the MCP tool calls agents made. Its arguments are
// agents' queries, which an agent running it through its shell must not
// bring back into the index as its words: marked like every answer.

// AuditEntry is one recorded MCP tool call.
type AuditEntry struct {
	ID       int64         `json:"id"`
	TS       time.Time     `json:"ts"`
	Client   string        `json:"client"` // the token's name, or "stdio"
	Tool     string        `json:"tool"`
	Args     string        `json:"args"` // the call's arguments, as JSON
	Hits     int           `json:"hits"`
	Duration time.Duration `json:"-"`
	Outcome  string        `json:"outcome"`
}

// CLIAudit is audit's text answer: a table, newest first as given, safe
// for a terminal (each cell escaped before the columns are laid out).
func CLIAudit(es []AuditEntry) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	if len(es) == 0 {
		b.WriteString("No calls recorded.\n")
		return b.String()
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tCLIENT\tTOOL\tOUTCOME\tHITS\tMS\tARGUMENTS")
	for _, e := range es {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.1f\t%s\n", e.TS.Local().Format("2006-01-02 15:04:05"), Terminal(e.Client), Terminal(e.Tool),
			Terminal(e.Outcome), e.Hits, float64(e.Duration.Microseconds())/1000, clipArgs(Terminal(e.Args), 80))
	}
	tw.Flush()
	return b.String()
}

// CLIAuditJSON is audit's --json answer: the array of entries it always
// was, each carrying the marker.
func CLIAuditJSON(es []AuditEntry) any {
	out := make([]markedAuditEntry, len(es))
	for i, e := range es {
		out[i] = markedAuditEntry(e)
	}
	return out
}

// markedAuditEntry is an entry of audit's --json answer: the marker, then
// the entry's fields, its duration as duration_ms.
type markedAuditEntry AuditEntry

func (e markedAuditEntry) MarshalJSON() ([]byte, error) {
	type plain AuditEntry // its fields without AuditEntry's MarshalJSON
	return withMarker(struct {
		plain
		DurationMS float64 `json:"duration_ms"`
	}{plain(e), float64(e.Duration) / float64(time.Millisecond)})
}

// MarshalJSON writes the duration as duration_ms, a float.
func (e AuditEntry) MarshalJSON() ([]byte, error) {
	type plain AuditEntry
	return json.Marshal(struct {
		plain
		DurationMS float64 `json:"duration_ms"`
	}{plain(e), float64(e.Duration) / float64(time.Millisecond)})
}

// clipArgs shortens s to n runes for a table cell.
func clipArgs(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
