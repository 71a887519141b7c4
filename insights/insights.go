// Package insights counts a memory over time: the numbers the Insights
// screen and `ireneo insights` show (headline totals, conversations and
// turns per week by source and by project, agents' calls per day), and the
// agents' insights tool's counts per week or month (periods.go). It lays
// out, ranks and classifies what its count reads return (reads.go: totals,
// conversations started per bucket, agents' calls, in one memory.ReadTx)
// and memory's sessions and audit listings; it writes nothing and renders
// nothing
// (package answer renders the tool's and the CLI's answers).
package insights

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/memory"
)

// Insights ranges: how far back the charts go.
const (
	Range3Months = "3m"
	RangeYear    = "year"
	RangeAll     = "all"
)

// Ranges lists the ranges in the order a selector shows them.
var Ranges = []string{Range3Months, RangeYear, RangeAll}

// Query picks the charts' range. Now is the end of the range; the zero
// time means time.Now().
type Query struct {
	Range string // Range3Months, RangeYear or RangeAll ("" means all)
	Now   time.Time
}

// The answer's types are the counts themselves (package answer renders
// and owns them); insights computes them.
type (
	// Insights is what the Insights screen and `ireneo insights` show:
	// headline numbers over the whole memory, and charts over the range.
	Insights = answer.Insights
	// Headline counts the whole memory, whatever the range.
	Headline = answer.InsightsHeadline
	// WeekSeries is one stack of a weekly chart: a source or a project.
	WeekSeries = answer.WeekSeries
	// AgentSeries is one client's recall and get calls per day.
	AgentSeries = answer.AgentSeries
)

const (
	daySecs  = 86400
	weekSecs = 7 * daySecs
	// mondayOffset shifts Unix time so weeks start on Monday: 1970-01-01
	// was a Thursday, three days after Monday 1969-12-29.
	mondayOffset = 3 * daySecs
)

// weekOf is the index of the Monday-based UTC week holding unix second s.
func weekOf(s int64) int64 { return floorDiv(s+mondayOffset, weekSecs) }

func weekStart(w int64) time.Time { return time.Unix(w*weekSecs-mondayOffset, 0).UTC() }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Since is where a range starts, or the zero time for all.
func Since(rng string, now time.Time) (time.Time, error) {
	switch rng {
	case Range3Months:
		return now.AddDate(0, -3, 0), nil
	case RangeYear:
		return now.AddDate(-1, 0, 0), nil
	case RangeAll, "":
		return time.Time{}, nil
	}
	return time.Time{}, fmt.Errorf("insights: range %q: want 3m, year or all", rng)
}

// Read counts the memory for the charts: one read transaction of m, a
// query or two per chart.
func Read(ctx context.Context, m *memory.Memory, q Query) (Insights, error) {
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	now = now.UTC()
	since, err := Since(q.Range, now)
	if err != nil {
		return Insights{}, err
	}
	in := Insights{Range: q.Range, BySource: []WeekSeries{}, ByProject: []WeekSeries{}, Agents: []AgentSeries{}}
	if in.Range == "" {
		in.Range = RangeAll
	}
	if !since.IsZero() {
		in.Since = &since
	}
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return in, fmt.Errorf("insights: %w", err)
	}
	defer rt.Close()
	if in.Headline, err = headline(ctx, rt, m.DatabaseBytes()); err != nil {
		return in, err
	}
	var from int64
	if !since.IsZero() {
		from = since.Unix()
	}
	sources, err := startCounts(ctx, rt, bySource, from, mondayOffset, weekSecs)
	if err != nil {
		return in, fmt.Errorf("insights by source: %w", err)
	}
	projects, err := startCounts(ctx, rt, byProject, from, mondayOffset, weekSecs)
	if err != nil {
		return in, fmt.Errorf("insights by project: %w", err)
	}

	// The weeks run from the range's start (or the oldest conversation) to now.
	first, last := weekOf(now.Unix()), weekOf(now.Unix())
	if from > 0 {
		first = weekOf(from)
	}
	for _, rows := range [][]startCount{sources, projects} {
		for _, r := range rows {
			first, last = min(first, r.Bucket), max(last, r.Bucket)
		}
	}
	for w := first; w <= last; w++ {
		in.Weeks = append(in.Weeks, weekStart(w))
	}
	in.BySource = weekSeries(sources, first, len(in.Weeks))
	in.ByProject = weekSeries(projects, first, len(in.Weeks))
	if len(in.ByProject) > topProjects {
		in.ByProject = in.ByProject[:topProjects]
	}

	if in.Days, in.Agents, err = agentAccess(ctx, rt, since, now); err != nil {
		return in, fmt.Errorf("insights agent access: %w", err)
	}
	return in, nil
}

// headline is the memory's totals as the screen shows them.
func headline(ctx context.Context, rt *memory.ReadTx, databaseBytes int64) (Headline, error) {
	t, err := readTotals(ctx, rt, databaseBytes)
	h := Headline{Conversations: t.Conversations, Turns: t.Turns, Tokens: t.Tokens, SizeBytes: t.SizeBytes,
		Redacted: t.Redacted, Forgotten: t.Forgotten}
	if !t.Oldest.IsZero() {
		h.Oldest = &t.Oldest
	}
	if !t.Newest.IsZero() {
		h.Newest = &t.Newest
	}
	return h, err
}

// topProjects is how many projects the by-project chart shows.
const topProjects = 10

// weekSeries lays counts out on the week axis, biggest series first.
func weekSeries(rows []startCount, first int64, n int) []WeekSeries {
	idx := map[string]int{}
	out := []WeekSeries{}
	for _, r := range rows {
		i, ok := idx[r.Name]
		if !ok {
			i = len(out)
			idx[r.Name] = i
			out = append(out, WeekSeries{Name: r.Name, Conversations: make([]int, n), Turns: make([]int, n)})
		}
		s := &out[i]
		k := int(r.Bucket - first)
		if k < 0 || k >= n {
			continue
		}
		s.Conversations[k] += r.Conversations
		s.Turns[k] += r.Turns
		s.TotalConvs += r.Conversations
		s.TotalTurns += r.Turns
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].TotalConvs != out[b].TotalConvs {
			return out[a].TotalConvs > out[b].TotalConvs
		}
		return out[a].Name < out[b].Name
	})
	return out
}

// The classes an agent's call falls in, on the screen's chart and in the
// agents' tool alike.
const (
	Answered = iota // the call found something
	NoMatch         // it found nothing
	Refused         // it was turned away: busy, too large, not allowed, bad arguments
	Failed          // it broke on the way
)

// Class sorts an audit outcome into Answered, NoMatch, Refused or Failed.
func Class(outcome string) int {
	switch {
	case outcome == auditlog.OK:
		return Answered
	case outcome == auditlog.NoMatch || outcome == auditlog.NotFound:
		return NoMatch
	case outcome == auditlog.Busy || outcome == auditlog.Unauthorized || outcome == auditlog.Forbidden ||
		outcome == "too_large" || outcome == auditlog.Invalid || strings.HasPrefix(outcome, "refused"): // too_large: mcpserver's oversized request
		return Refused
	}
	return Failed
}

// agentAccess is the daily calls per client from the audit log. The days
// run from the range's start (or the first call) to today.
func agentAccess(ctx context.Context, rt *memory.ReadTx, since, now time.Time) ([]time.Time, []AgentSeries, error) {
	cells, err := agentCalls(ctx, rt, since)
	if err != nil {
		return nil, nil, err
	}
	lastDay := now.Unix() / daySecs
	firstDay := lastDay
	if !since.IsZero() {
		firstDay = since.Unix() / daySecs
	}
	for _, c := range cells {
		firstDay, lastDay = min(firstDay, c.Day), max(lastDay, c.Day)
	}
	n := int(lastDay - firstDay + 1)
	days := make([]time.Time, n)
	for i := range days {
		days[i] = time.Unix((firstDay+int64(i))*daySecs, 0).UTC()
	}
	idx := map[string]int{}
	out := []AgentSeries{}
	for _, c := range cells {
		i, ok := idx[c.Client]
		if !ok {
			i = len(out)
			idx[c.Client] = i
			out = append(out, AgentSeries{Client: c.Client, Answered: make([]int, n), NoMatch: make([]int, n), Refused: make([]int, n), Failed: make([]int, n)})
		}
		s := &out[i]
		k := int(c.Day - firstDay)
		switch Class(c.Outcome) {
		case Answered:
			s.Answered[k] += c.Count
		case NoMatch:
			s.NoMatch[k] += c.Count
		case Refused:
			s.Refused[k] += c.Count
		default:
			s.Failed[k] += c.Count
		}
		s.Total += c.Count
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Total != out[b].Total {
			return out[a].Total > out[b].Total
		}
		return out[a].Client < out[b].Client
	})
	return days, out, nil
}
