package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// insights over HTTP: the counts per month and per week by source and
// project, the agents' calls, the filters; a scoped token counts only its
// projects and its own calls.
func TestInsightsOverHTTP(t *testing.T) {
	m, _, _ := scanMemory(t)
	s := New(m, tokenstore.NewMemoryTokenStore(), Options{Logger: quietLogger(), validateOutput: true})
	ctx := context.Background()
	full, _, _ := s.Tokens().Create(ctx, "full", nil)
	scoped, _, _ := s.Tokens().Create(ctx, "scoped", []string{"alpha"})
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := connect(t, s.URL(), full)
	sc := connect(t, s.URL(), scoped)
	for range 3 {
		callTool(t, c, ToolRecall, map[string]any{"query": "ERR_CONN_RESET"})
	}
	callTool(t, sc, ToolRecall, map[string]any{"query": "no-such-thing-anywhere"})
	// The audit log is written in the background: wait for the calls.
	deadline := time.Now().Add(10 * time.Second)
	for {
		es, _ := auditlog.List(ctx, m, auditlog.Query{Tool: ToolRecall})
		if len(es) >= 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}

	var in InsightsOutput
	res := callTool(t, c, ToolInsights, map[string]any{})
	if res.IsError {
		t.Fatal(resultText(res))
	}
	structured(t, res, &in)
	// 30 conversations from 2025-11-03, one a day, and the 3 fixtures of
	// October 2026.
	if in.Period != "month" || in.Totals.Conversations != 33 || in.Periods[0] != "2025-11" || in.Periods[len(in.Periods)-1] < "2026-10" {
		t.Fatalf("totals %+v periods %v", in.Totals, in.Periods)
	}
	counts := map[string]int{}
	for _, sr := range in.BySource {
		counts[sr.Name] = sr.Total.Conversations
		if len(sr.Conversations) != len(in.Periods) {
			t.Errorf("%s: %d values for %d periods", sr.Name, len(sr.Conversations), len(in.Periods))
		}
	}
	if counts["codex"] != 11 || counts["gemini_cli"] != 10 || counts["cursor"] != 10 || counts["chatgpt"] != 1 || counts["claude"] != 1 {
		t.Errorf("by source %v", counts)
	}
	if in.BySource[0].Name != "codex" || in.BySource[0].Conversations[0] != 10 {
		t.Errorf("codex's November: %+v", in.BySource[0])
	}
	agents := map[string]int{}
	for _, a := range in.Agents {
		agents[a.Client] = a.Total
	}
	if agents["full"] != 3 || agents["scoped"] != 1 {
		t.Errorf("agent access %v", agents)
	}
	text := resultText(res)
	if !strings.HasPrefix(text, "[ireneo-result] Insights per month") || !strings.Contains(text, "- gemini_cli: ") {
		t.Errorf("text:\n%s", text)
	}

	// Weeks, one source, a range.
	res = callTool(t, c, ToolInsights, map[string]any{"period": "week", "source": "cursor", "since": "2025-11-01", "until": "2025-11-30"})
	structured(t, res, &in)
	if in.Period != "week" || in.Totals.Conversations != 9 || len(in.BySource) != 1 || in.Periods[0] != "2025-10-27" || len(in.Agents) != 0 {
		t.Errorf("week, cursor, November: totals %+v periods %v sources %d agents %d", in.Totals, in.Periods, len(in.BySource), len(in.Agents))
	}

	// The scoped token: alpha's conversations, its own calls.
	res = callTool(t, sc, ToolInsights, map[string]any{})
	structured(t, res, &in)
	j := resultJSON(t, res)
	if in.Totals.Conversations != 11 || strings.Contains(j, `"beta"`) || strings.Contains(j, `"full"`) || strings.Contains(j, "(untagged)") {
		t.Errorf("scoped: totals %+v\n%s", in.Totals, j)
	}

	// A small budget cuts projects, then the oldest months, and says so.
	res = callTool(t, c, ToolInsights, map[string]any{"period": "week", "token_budget": 400})
	structured(t, res, &in)
	if st, tt := measure(t, res); !strings.Contains(in.Cut, "oldest") || st > 400 || tt > 400 {
		t.Errorf("budget 400: cut %q, %d and %d tokens", in.Cut, st, tt)
	}
	// Bad arguments.
	for args, want := range map[string]string{`{"period":"fortnight"}`: "not week or month", `{"since":"yesterday"}`: "is not a date"} {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		res := callTool(t, c, ToolInsights, a)
		if !res.IsError || !strings.Contains(resultText(res), want) {
			t.Errorf("%s: %q", args, resultText(res))
		}
	}
}
