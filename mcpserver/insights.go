package mcpserver

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	ans "github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/insights"
	"github.com/ireneo-app/ireneo/o200k"
)

// ToolInsights counts the memory: the numbers the Insights screen draws.
const ToolInsights = "insights"

const insightsDescription = `Count the person's past conversations with AI assistants: conversations, turns and tokens per week or per month, by source (chatgpt, claude, codex, claude_code, gemini_cli, opencode, cursor, copilot_cli) and by project, and how often agents asked this memory (recall and get calls per period, answered or not). A structured answer of numbers; it quotes nothing.

When to use it instead of recall: for questions about how much or how often, and how that changed — "how has my use of Codex changed since June?", "which projects did I work on most this year?", "when did I start using Cursor?", "how many conversations did I have last month?". recall finds what was said; insights counts. Narrow with since, until, source and project; period is month unless asked otherwise.`

// insightsDefaultBudget is insights' token budget when the call gives none.
const insightsDefaultBudget = 3000

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
	var ar insights.AuditReader
	if r, ok := s.mem.(insights.AuditReader); ok { // the memory has it; tests' backends may not
		ar = r
	}
	out, err := insights.Periods(ctx, s.mem, ar, insights.PeriodQuery{Period: period, Since: since, Until: until,
		Source: source, Project: project, Scope: c.Scope, Client: c.Name})
	if err != nil {
		return answer{}, err
	}
	out.Filters = map[string]string{}
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
