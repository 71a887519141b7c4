package mcpserver

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	ans "github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/o200k"
)

// ToolInsights counts the memory: the numbers the Insights screen draws.
const ToolInsights = "insights"

const insightsDescription = `Count the person's past conversations with AI assistants: conversations, turns and tokens per week or per month, by source (chatgpt, claude, codex, claude_code, gemini_cli, opencode, cursor, copilot_cli) and by project, and how often agents asked this memory (recall and get calls per period, answered or not). A structured answer of numbers; it quotes nothing.

When to use it instead of recall: for questions about how much or how often, and how that changed — "how has my use of Codex changed since June?", "which projects did I work on most this year?", "when did I start using Cursor?", "how many conversations did I have last month?". recall finds what was said; insights counts. Narrow with since, until, source and project; period is month unless asked otherwise.`

// Insights' bounds.
const (
	insightsDefaultBudget = 3000
	insightsTopProjects   = 20
	insightsListPage      = 2000
	insightsAuditMax      = 200000
	untaggedName          = "(untagged)"
)

// InsightsArgs are insights' arguments.
type InsightsArgs struct {
	Period      string `json:"period,omitempty" jsonschema:"week (weeks start Monday, UTC) or month (the default)"`
	Since       string `json:"since,omitempty" jsonschema:"only conversations started on or after this date: YYYY-MM-DD or RFC 3339"`
	Until       string `json:"until,omitempty" jsonschema:"only conversations started up to this date, inclusive: YYYY-MM-DD or RFC 3339"`
	Source      string `json:"source,omitempty" jsonschema:"only one assistant: chatgpt, claude, codex, claude_code, gemini_cli, opencode, cursor or copilot_cli"`
	Project     string `json:"project,omitempty" jsonschema:"only this project's conversations (see list_projects)"`
	TokenBudget intArg `json:"token_budget,omitempty" jsonschema:"how many tokens the whole answer may take (default 3000, at least 300, at most 16000); the smallest projects and oldest periods go first"`
}

// InsightsOutput is insights' structured answer (package answer's).
type InsightsOutput = ans.InsightsOutput

func (s *Server) addInsightsTool() {
	addTool[InsightsArgs, InsightsOutput](s, ToolInsights, "Count past conversations", insightsDescription, s.insights)
}

// auditReader is the part of the memory insights reads agents' calls
// from; the memory has it (tests' backends may not).
type auditReader interface {
	Audit(ctx context.Context, q memory.AuditQuery) ([]memory.AuditEntry, error)
}

func (s *Server) insights(ctx context.Context, c Caller, a InsightsArgs) (answer, error) {
	period := strings.ToLower(strings.TrimSpace(a.Period))
	switch period {
	case "":
		period = "month"
	case "week", "weekly", "weeks":
		period = "week"
	case "month", "monthly", "months":
		period = "month"
	default:
		return answer{}, argErrorf("period %q is not week or month", a.Period)
	}
	source, err := sourceArg(a.Source)
	if err != nil {
		return answer{}, err
	}
	since, until, err := dateRange(a.Since, a.Until)
	if err != nil {
		return answer{}, err
	}
	if a.TokenBudget < 0 {
		return answer{}, argErrorf("token_budget must not be negative")
	}
	budget, err := budgetArg(a.TokenBudget, insightsDefaultBudget)
	if err != nil {
		return answer{}, err
	}
	project := strings.TrimSpace(a.Project)
	key := periodKey(period)

	type agg struct{ convs, turns, tokens map[string]int }
	newAgg := func() *agg { return &agg{map[string]int{}, map[string]int{}, map[string]int{}} }
	bySource, byProject := map[string]*agg{}, map[string]*agg{}
	var totals ans.InsightsTotals
	first, last := "", ""
	note := func(k string) {
		if first == "" || k < first {
			first = k
		}
		if k > last {
			last = k
		}
	}
	add := func(m map[string]*agg, name, k string, si memory.SessionInfo) {
		g := m[name]
		if g == nil {
			g = newAgg()
			m[name] = g
		}
		g.convs[k]++
		g.turns[k] += si.Turns
		g.tokens[k] += si.Tokens
	}
	q := memory.SessionQuery{Source: source, Project: project, ProjectOnly: project != "", Scope: c.Scope, Sort: "started", Asc: true}
	for off := 0; ; off += insightsListPage {
		q.Offset, q.Limit = off, insightsListPage
		list, total, err := s.mem.Sessions(ctx, q)
		if err != nil {
			return answer{}, err
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
			projects := inScopeProjects(si.Projects, c.Scope)
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
	if ar, ok := s.mem.(auditReader); ok && project == "" && source == "" {
		aq := memory.AuditQuery{Since: since, Limit: insightsAuditMax}
		if c.Scope != nil {
			aq.Client = c.Name
		}
		entries, err := ar.Audit(ctx, aq)
		if err != nil {
			return answer{}, err
		}
		for _, e := range entries {
			if e.Tool != ToolRecall && e.Tool != ToolGet || !until.IsZero() && !e.TS.Before(until) {
				continue
			}
			k := key(e.TS.UTC())
			note(k)
			g := clients[e.Client]
			if g == nil {
				g = &access{map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}}
				clients[e.Client] = g
			}
			switch accessOf(e.Outcome) {
			case 0:
				g.answered[k]++
			case 1:
				g.noMatch[k]++
			case 2:
				g.refused[k]++
			default:
				g.failed[k]++
			}
		}
	}

	out := ans.InsightsOutput{Period: period, Totals: totals, Filters: map[string]string{}}
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
	series := func(m map[string]*agg) []ans.InsightsSeries {
		var ss []ans.InsightsSeries
		for name, g := range m {
			sr := ans.InsightsSeries{Name: name, Conversations: make([]int, len(out.Periods)), Turns: make([]int, len(out.Periods)), Tokens: make([]int, len(out.Periods))}
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
	if len(out.ByProject) > insightsTopProjects {
		out.Note = "by project holds the 20 projects with the most conversations."
		out.ByProject = out.ByProject[:insightsTopProjects]
	}
	for name, g := range clients {
		ac := ans.InsightsAccess{Client: name, Answered: make([]int, len(out.Periods)), NoMatch: make([]int, len(out.Periods)),
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
	for k, v := range map[string]string{"since": strings.TrimSpace(a.Since), "until": strings.TrimSpace(a.Until), "source": source, "project": project} {
		if v != "" {
			out.Filters[k] = v
		}
	}
	if len(out.Filters) == 0 {
		out.Filters = nil
	}
	res, text := ans.MCPInsights(out, budget, o200k.Count)
	return answer{result: mcp.NewToolResultStructured(res, text), hits: res.Totals.Conversations}, nil
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

// accessOf sorts an audit outcome as the Insights screen's agent chart
// does: answered 0, no match 1, refused 2, failed 3.
func accessOf(outcome string) int {
	switch {
	case outcome == memory.AuditOK:
		return 0
	case outcome == memory.AuditNoMatch || outcome == memory.AuditNotFound:
		return 1
	case outcome == memory.AuditBusy || outcome == memory.AuditUnauthorized || outcome == memory.AuditForbidden ||
		outcome == AuditTooLarge || outcome == memory.AuditInvalid || strings.HasPrefix(outcome, "refused"):
		return 2
	}
	return 3
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
