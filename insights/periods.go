package insights

import (
	"context"
	"sort"
	"time"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/conversations"
)

// The agents' insights tool's counts: conversations, turns and tokens per
// week or month by source and by project, and agents' recall and get calls,
// filtered by dates, source, project and a token's scope.

// Periods' bounds.
const (
	periodTopProjects = 20
	periodListPage    = 2000
	periodAuditMax    = 200000
	untaggedName      = "(untagged)"
)

// PeriodQuery is what the agents' tool counts.
type PeriodQuery struct {
	Period       string    // "week" (weeks start Monday, UTC) or "month"
	Since, Until time.Time // conversations started in [Since, Until); zero: open
	Source       string    // one source, or "" for all
	Project      string    // one project, or "" for all
	Scope        []string  // a scoped token's projects; nil for the whole memory
	Client       string    // the caller: with a Scope, only its own calls count
}

// SessionLister lists conversations, as conversations.List does over a memory.
type SessionLister interface {
	Sessions(ctx context.Context, q conversations.Query) ([]answer.Conversation, int, error)
}

// AuditReader lists the audit log, as auditlog.List does over a memory.
type AuditReader interface {
	Audit(ctx context.Context, q auditlog.Query) ([]auditlog.Entry, error)
}

// Periods counts q's conversations per period and, when audit is not nil
// and q names no source or project, agents' recall and get calls. The
// answer's Filters are the caller's to fill.
func Periods(ctx context.Context, sessions SessionLister, audit AuditReader, q PeriodQuery) (answer.InsightsOutput, error) {
	period, project, source := q.Period, q.Project, q.Source
	since, until := q.Since, q.Until
	key := periodKey(period)

	type agg struct{ convs, turns, tokens map[string]int }
	newAgg := func() *agg { return &agg{map[string]int{}, map[string]int{}, map[string]int{}} }
	bySource, byProject := map[string]*agg{}, map[string]*agg{}
	var totals answer.InsightsTotals
	first, last := "", ""
	note := func(k string) {
		if first == "" || k < first {
			first = k
		}
		if k > last {
			last = k
		}
	}
	add := func(m map[string]*agg, name, k string, si answer.Conversation) {
		g := m[name]
		if g == nil {
			g = newAgg()
			m[name] = g
		}
		g.convs[k]++
		g.turns[k] += si.Turns
		g.tokens[k] += si.Tokens
	}
	sq := conversations.Query{Source: source, Project: project, ProjectOnly: project != "", Scope: q.Scope, Sort: "started", Asc: true}
	for off := 0; ; off += periodListPage {
		sq.Offset, sq.Limit = off, periodListPage
		list, total, err := sessions.Sessions(ctx, sq)
		if err != nil {
			return answer.InsightsOutput{}, err
		}
		for _, si := range list {
			st := si.Started.UTC()
			if st.IsZero() || !since.IsZero() && st.Before(since) || !until.IsZero() && !st.Before(until) {
				continue
			}
			k := key(st)
			note(k)
			totals.Conversations++
			totals.Turns += si.Turns
			totals.Tokens += si.Tokens
			add(bySource, si.Source, k, si)
			projects := inScopeProjects(si.Projects, q.Scope)
			if len(projects) == 0 {
				projects = []string{untaggedName}
			}
			for _, p := range projects {
				if project == "" || p == project {
					add(byProject, p, k, si)
				}
			}
		}
		if off+len(list) >= total || len(list) == 0 {
			break
		}
	}

	// Agents' calls: every client's for a caller of the whole memory; a
	// scoped token's own only, as it may not learn who else asks.
	type access struct{ answered, noMatch, refused, failed map[string]int }
	clients := map[string]*access{}
	if audit != nil && project == "" && source == "" {
		aq := auditlog.Query{Since: since, Limit: periodAuditMax}
		if q.Scope != nil {
			aq.Client = q.Client
		}
		entries, err := audit.Audit(ctx, aq)
		if err != nil {
			return answer.InsightsOutput{}, err
		}
		for _, e := range entries {
			// The tools' names, as mcpserver's ToolRecall and ToolGet.
			if e.Tool != "recall" && e.Tool != "get" || !until.IsZero() && !e.TS.Before(until) {
				continue
			}
			k := key(e.TS.UTC())
			note(k)
			g := clients[e.Client]
			if g == nil {
				g = &access{map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}}
				clients[e.Client] = g
			}
			switch Class(e.Outcome) {
			case Answered:
				g.answered[k]++
			case NoMatch:
				g.noMatch[k]++
			case Refused:
				g.refused[k]++
			default:
				g.failed[k]++
			}
		}
	}

	out := answer.InsightsOutput{Period: period, Totals: totals}
	if first != "" {
		if !since.IsZero() && key(since) < first {
			first = key(since)
		}
		out.Periods = periodsBetween(period, first, last)
	}
	at := map[string]int{}
	for i, k := range out.Periods {
		at[k] = i
	}
	series := func(m map[string]*agg) []answer.InsightsSeries {
		var ss []answer.InsightsSeries
		for name, g := range m {
			sr := answer.InsightsSeries{Name: name, Conversations: make([]int, len(out.Periods)), Turns: make([]int, len(out.Periods)), Tokens: make([]int, len(out.Periods))}
			for k, n := range g.convs {
				i := at[k]
				sr.Conversations[i], sr.Turns[i], sr.Tokens[i] = n, g.turns[k], g.tokens[k]
				sr.Total.Conversations += n
				sr.Total.Turns += g.turns[k]
				sr.Total.Tokens += g.tokens[k]
			}
			ss = append(ss, sr)
		}
		sort.Slice(ss, func(i, j int) bool {
			if ss[i].Total.Conversations != ss[j].Total.Conversations {
				return ss[i].Total.Conversations > ss[j].Total.Conversations
			}
			return ss[i].Name < ss[j].Name
		})
		return ss
	}
	out.BySource = series(bySource)
	out.ByProject = series(byProject)
	if len(out.ByProject) > periodTopProjects {
		out.Note = "by project holds the 20 projects with the most conversations."
		out.ByProject = out.ByProject[:periodTopProjects]
	}
	for name, g := range clients {
		ac := answer.InsightsAccess{Client: name, Answered: make([]int, len(out.Periods)), NoMatch: make([]int, len(out.Periods)),
			Refused: make([]int, len(out.Periods)), Failed: make([]int, len(out.Periods))}
		for _, p := range []struct {
			m map[string]int
			s []int
		}{{g.answered, ac.Answered}, {g.noMatch, ac.NoMatch}, {g.refused, ac.Refused}, {g.failed, ac.Failed}} {
			for k, n := range p.m {
				p.s[at[k]] += n
				ac.Total += n
			}
		}
		out.Agents = append(out.Agents, ac)
	}
	sort.Slice(out.Agents, func(i, j int) bool {
		return out.Agents[i].Total > out.Agents[j].Total || out.Agents[i].Total == out.Agents[j].Total && out.Agents[i].Client < out.Agents[j].Client
	})
	return out, nil
}

// periodKey names the period a time falls in: its month ("2026-06"), or
// its week by the Monday it starts on ("2026-06-01").
func periodKey(period string) func(time.Time) string {
	if period == "week" {
		return func(t time.Time) string {
			t = t.UTC()
			d := (int(t.Weekday()) + 6) % 7 // days since Monday
			return t.AddDate(0, 0, -d).Format(time.DateOnly)
		}
	}
	return func(t time.Time) string { return t.UTC().Format("2006-01") }
}

// periodsBetween lists every period from first to last, inclusive.
func periodsBetween(period, first, last string) []string {
	var out []string
	if period == "week" {
		t, err1 := time.Parse(time.DateOnly, first)
		end, err2 := time.Parse(time.DateOnly, last)
		for ; err1 == nil && err2 == nil && !t.After(end); t = t.AddDate(0, 0, 7) {
			out = append(out, t.Format(time.DateOnly))
		}
		return out
	}
	t, err1 := time.Parse("2006-01", first)
	end, err2 := time.Parse("2006-01", last)
	for ; err1 == nil && err2 == nil && !t.After(end); t = t.AddDate(0, 1, 0) {
		out = append(out, t.Format("2006-01"))
	}
	return out
}

// inScopeProjects keeps the projects a scoped caller may see.
func inScopeProjects(projects, scope []string) []string {
	if scope == nil {
		return projects
	}
	var out []string
	for _, p := range projects {
		for _, s := range scope {
			if p == s {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
