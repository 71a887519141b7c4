package answer

import (
	"fmt"
	"strings"
	"time"
)

// `ireneo insights`: the memory in numbers. It names projects and agents,
// as `ireneo projects` does: marked like every answer.

// Insights is what the Insights screen and `ireneo insights` show: headline
// numbers over the whole memory, and charts over the range. Series are
// aligned with Weeks (or Days): Values[i] belongs to Weeks[i].
type Insights struct {
	Range    string           `json:"range"`
	Since    *time.Time       `json:"since,omitempty"` // nil for all
	Headline InsightsHeadline `json:"headline"`
	// Weeks are the Mondays (UTC) the weekly charts cover, oldest first.
	Weeks     []time.Time  `json:"weeks"`
	BySource  []WeekSeries `json:"by_source"`
	ByProject []WeekSeries `json:"by_project"` // the top 10 projects in the range
	// Days are the days (UTC) of the agent access chart, oldest first.
	Days   []time.Time   `json:"days"`
	Agents []AgentSeries `json:"agents"`
}

// InsightsHeadline counts the whole memory, whatever the range.
type InsightsHeadline struct {
	Conversations int        `json:"conversations"`
	Turns         int        `json:"turns"`
	Tokens        int        `json:"tokens"`
	Oldest        *time.Time `json:"oldest"`
	Newest        *time.Time `json:"newest"`
	SizeBytes     int64      `json:"size_bytes"`
	Redacted      int        `json:"secrets_redacted"`
	Forgotten     int        `json:"conversations_forgotten"`
}

// WeekSeries is one stack of a weekly chart: a source or a project.
type WeekSeries struct {
	Name          string `json:"name"`
	Conversations []int  `json:"conversations"`
	Turns         []int  `json:"turns"`
	TotalConvs    int    `json:"total_conversations"`
	TotalTurns    int    `json:"total_turns"`
}

// AgentSeries is one client's recall and get calls per day.
type AgentSeries struct {
	Client   string `json:"client"`
	Answered []int  `json:"answered"`
	NoMatch  []int  `json:"no_match"`
	Refused  []int  `json:"refused"`
	Failed   []int  `json:"failed"`
	Total    int    `json:"total"`
}

// CLIInsightsJSON is insights' --json answer: every series.
func CLIInsightsJSON(in *Insights) any {
	return struct {
		Marker string `json:"marker"`
		*Insights
	}{Marker, in}
}

// CLIInsights is insights' text answer: the headline and one line per
// series, with a sparkline of its weeks (or days), safe for a terminal
// (names escaped before the columns are laid out).
func CLIInsights(in *Insights) string {
	var w strings.Builder
	w.WriteString(Marker + "\n")
	h := in.Headline
	fmt.Fprintf(&w, "conversations:     %d (%d turns, %d tokens)\n", h.Conversations, h.Turns, h.Tokens)
	if h.Oldest != nil && h.Newest != nil {
		fmt.Fprintf(&w, "from:              %s to %s\n", day(*h.Oldest), day(*h.Newest))
	}
	fmt.Fprintf(&w, "size on disk:      %.1f MB\n", float64(h.SizeBytes)/1e6)
	fmt.Fprintf(&w, "secrets redacted:  %d\nforgotten:         %s\n", h.Redacted, plural(h.Forgotten, "conversation", "conversations"))

	span := "all time"
	if in.Since != nil {
		span = "since " + day(*in.Since)
	}
	if len(in.Weeks) > 0 {
		fmt.Fprintf(&w, "\nper week, %s (%s from %s):\n", span, plural(len(in.Weeks), "week", "weeks"), day(in.Weeks[0]))
	}
	nw := 12
	for _, s := range append(append([]WeekSeries{}, in.BySource...), in.ByProject...) {
		nw = max(nw, min(28, len([]rune(Terminal(s.Name)))))
	}
	for _, a := range in.Agents {
		nw = max(nw, min(28, len([]rune(Terminal(a.Client)))))
	}
	fmt.Fprintln(&w, "by source")
	for _, s := range in.BySource {
		fmt.Fprintf(&w, "  %-*s %6d conv %7d turns  %s\n", nw, clip(Terminal(s.Name), nw), s.TotalConvs, s.TotalTurns, sparkline(s.Conversations))
	}
	if len(in.BySource) == 0 {
		fmt.Fprintln(&w, "  no conversations in this range")
	}
	fmt.Fprintln(&w, "by project (top 10)")
	for _, s := range in.ByProject {
		fmt.Fprintf(&w, "  %-*s %6d conv %7d turns  %s\n", nw, clip(Terminal(s.Name), nw), s.TotalConvs, s.TotalTurns, sparkline(s.Conversations))
	}
	if len(in.ByProject) == 0 {
		fmt.Fprintln(&w, "  no tagged conversations in this range")
	}
	fmt.Fprintln(&w, "agent access per day (recall and get)")
	for _, a := range in.Agents {
		fmt.Fprintf(&w, "  %-*s %6d answered %5d no match %5d refused %5d failed  %s\n",
			nw, clip(Terminal(a.Client), nw), sum(a.Answered), sum(a.NoMatch), sum(a.Refused), sum(a.Failed), sparkline(addUp(a.Answered, a.NoMatch, a.Refused, a.Failed)))
	}
	if len(in.Agents) == 0 {
		fmt.Fprintln(&w, "  no agent calls in this range")
	}
	return Terminal(w.String())
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
