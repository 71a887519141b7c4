package answer

import (
	"fmt"
	"strings"
)

// InsightsOutput is the insights tool's structured answer: how much the
// person talked with their assistants, per week or month, by source and
// by project, and how agents used the memory. It counts; it quotes
// nothing. Series are aligned with Periods: Conversations[i] belongs to
// Periods[i]. A conversation counts, with all its turns and tokens, in the
// period it started.
type InsightsOutput struct {
	Marker    string            `json:"marker"` // Marker
	Period    string            `json:"period"` // "week" (starting Monday, UTC) or "month"
	Periods   []string          `json:"periods"`
	Totals    InsightsTotals    `json:"totals"`
	BySource  []InsightsSeries  `json:"by_source"`
	ByProject []InsightsSeries  `json:"by_project"`
	Agents    []InsightsAccess  `json:"agent_access"`
	Cut       string            `json:"cut,omitempty"` // what the token budget left out
	Note      string            `json:"note,omitempty"`
	Filters   map[string]string `json:"filters,omitempty"`
	// TokenBudget is the budget the answer was fitted to.
	TokenBudget int `json:"token_budget"`
}

// InsightsTotals counts everything in the answer's scope and range.
type InsightsTotals struct {
	Conversations int `json:"conversations"`
	Turns         int `json:"turns"`
	Tokens        int `json:"tokens"`
}

// InsightsSeries is one source's or project's counts per period.
type InsightsSeries struct {
	Name          string         `json:"name"`
	Conversations []int          `json:"conversations"`
	Turns         []int          `json:"turns"`
	Tokens        []int          `json:"tokens"`
	Total         InsightsTotals `json:"total"`
}

// InsightsAccess is one client's calls to the memory per period: answered
// (found something), no match, refused (busy, too large, not allowed,
// bad arguments) and failed.
type InsightsAccess struct {
	Client   string `json:"client"`
	Answered []int  `json:"answered"`
	NoMatch  []int  `json:"no_match"`
	Refused  []int  `json:"refused"`
	Failed   []int  `json:"failed"`
	Total    int    `json:"total"`
}

// MCPInsights fits the insights into budget tokens in both forms: when
// they do not fit, the smallest projects go first, then the oldest
// periods, and the answer says what was cut.
func MCPInsights(in InsightsOutput, budget int, count Count) (*InsightsOutput, string) {
	out := in
	out.Marker, out.TokenBudget = Marker, budget
	// Fitting cuts the series: cut copies, never the caller's (a second
	// call on the same counts found them shorter than its periods).
	out.BySource = append([]InsightsSeries{}, in.BySource...)
	out.ByProject = append([]InsightsSeries{}, in.ByProject...)
	out.Agents = append([]InsightsAccess{}, in.Agents...)
	fits := func() bool { return countJSON(&out, count) <= budget && count(insightsText(&out)) <= budget }
	projects, periods := len(out.ByProject), len(out.Periods)
	for !fits() {
		switch {
		case len(out.ByProject) > 0:
			out.ByProject = out.ByProject[:len(out.ByProject)-1]
		case len(out.Periods) > 1:
			dropOldest(&out)
		default:
			return &out, insightsText(&out)
		}
		var cut []string
		if k := projects - len(out.ByProject); k > 0 {
			cut = append(cut, fmt.Sprintf("the %d smallest of %d projects", k, projects))
		}
		if k := periods - len(out.Periods); k > 0 {
			cut = append(cut, fmt.Sprintf("the %d oldest of %d %ss", k, periods, out.Period))
		}
		out.Cut = strings.Join(cut, " and ") + " did not fit the token budget: call insights again with a larger token_budget, a later since, or a project."
	}
	return &out, insightsText(&out)
}

// dropOldest takes the first period out of every series.
func dropOldest(out *InsightsOutput) {
	out.Periods = out.Periods[1:]
	for _, ss := range [][]InsightsSeries{out.BySource, out.ByProject} {
		for i := range ss {
			ss[i].Conversations, ss[i].Turns, ss[i].Tokens = ss[i].Conversations[1:], ss[i].Turns[1:], ss[i].Tokens[1:]
		}
	}
	for i := range out.Agents {
		a := &out.Agents[i]
		a.Answered, a.NoMatch, a.Refused, a.Failed = a.Answered[1:], a.NoMatch[1:], a.Refused[1:], a.Failed[1:]
	}
}

// insightsText is the insights tool's text content: the totals, then a
// line per series with its count per period.
func insightsText(out *InsightsOutput) string {
	var b strings.Builder
	span := "no conversations"
	if n := len(out.Periods); n > 0 {
		span = fmt.Sprintf("%s from %s to %s", plural(n, out.Period, out.Period+"s"), out.Periods[0], out.Periods[n-1])
	}
	t := out.Totals
	fmt.Fprintf(&b, "%s Insights per %s, %s: %s, %d turns, %d tokens.\n", Marker, out.Period, span, plural(t.Conversations, "conversation", "conversations"), t.Turns, t.Tokens)
	if len(out.Periods) > 0 {
		fmt.Fprintf(&b, "periods: %s\n", strings.Join(out.Periods, " "))
	}
	series := func(head string, ss []InsightsSeries) {
		if len(ss) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s (conversations per %s; turns; tokens):\n", head, out.Period)
		for _, s := range ss {
			fmt.Fprintf(&b, "- %s: %s; %d turns; %d tokens\n", s.Name, ints(s.Conversations), s.Total.Turns, s.Total.Tokens)
		}
	}
	series("by source", out.BySource)
	series("by project", out.ByProject)
	if len(out.Agents) > 0 {
		fmt.Fprintf(&b, "\nagent access (calls answered per %s; no match, refused, failed in all):\n", out.Period)
		for _, a := range out.Agents {
			fmt.Fprintf(&b, "- %s: %s; %d no match, %d refused, %d failed\n", a.Client, ints(a.Answered), sum(a.NoMatch), sum(a.Refused), sum(a.Failed))
		}
	}
	for _, s := range []string{out.Note, out.Cut} {
		if s != "" {
			fmt.Fprintf(&b, "\n%s\n", s)
		}
	}
	return b.String()
}

func ints(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, " ")
}
