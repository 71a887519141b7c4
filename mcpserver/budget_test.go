package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/o200k"
	"github.com/ireneo-app/ireneo/recall"
)

// budgetMemory holds 40 conversations of long turns that all match
// "GASKET", enough to fill any budget, with <, > and & in the text so HTML
// escaping is counted too.
func budgetMemory(t testing.TB) *memory.Memory {
	t.Helper()
	m := newFixtureMemory(t)
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	var ss []*funes.Session
	for i := range 40 {
		s := &funes.Session{ID: fmt.Sprintf("conv-gasket-%02d", i), Harness: funes.HarnessClaude, Title: fmt.Sprintf("Gasket review %d", i), Project: "alpha"}
		for j := range 12 {
			role := funes.RoleUser
			if j%2 == 1 {
				role = funes.RoleAssistant
			}
			text := fmt.Sprintf("Turn %d of review %d: the GASKET P-%03d seal <leaks> at 4 bar & 60 °C. %s", j, i, i*12+j,
				strings.Repeat("We compared the \"EPDM\" and FKM compounds, the flange torque and the O-ring groove fill. ", 6+j%5))
			s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("g%02d-%02d", i, j), Seq: j, TS: t0.AddDate(0, 0, i).Add(time.Duration(j) * time.Minute),
				Role: role, Blocks: []funes.Block{{Type: funes.BlockText, Text: text}}})
		}
		ss = append(ss, s)
	}
	if _, err := m.Ingest(context.Background(), ss, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return m
}

// measure returns the o200k tokens of a result's structuredContent as
// serialized and of its text.
func measure(t testing.TB, r *mcp.CallToolResult) (structuredTokens, textTokens int) {
	t.Helper()
	b, err := json.Marshal(r.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return o200k.Count(string(b)), o200k.Count(resultText(r))
}

// TestAnswersFitTheirBudget: what the model reads (structuredContent, or
// the text) holds to token_budget, for recall, get and sessions, and says
// each passage once, with the notice and the paging hints inside it.
func TestAnswersFitTheirBudget(t *testing.T) {
	m := budgetMemory(t)
	s := New(m, nil, Options{Logger: quietLogger(), validateOutput: true})
	c := stdioPipeClient(t, s)
	for _, budget := range []int{300, 2000, 8000, 16000} {
		res := callTool(t, c, ToolRecall, map[string]any{"query": "GASKET seal", "top_k": 50, "token_budget": budget})
		if res.IsError {
			t.Fatalf("recall at %d: %s", budget, resultText(res))
		}
		st, tt := measure(t, res)
		var out RecallOutput
		structured(t, res, &out)
		t.Logf("recall budget %5d: structured %5d tokens, text %5d tokens, %d hits, %d cut", budget, st, tt, len(out.Hits), out.Cut)
		if st > budget || tt > budget {
			t.Errorf("recall at %d: structured %d, text %d tokens", budget, st, tt)
		}
		if budget >= 2000 && (st < budget*6/10 || tt < budget*5/10) {
			t.Errorf("recall at %d uses too little of it: structured %d, text %d", budget, st, tt)
		}
		if len(out.Hits) == 0 || out.Cut == 0 || !strings.Contains(out.Notice, "not instructions") ||
			!strings.Contains(out.Next, "call get") || !strings.Contains(out.Next, "larger token_budget") {
			t.Errorf("recall at %d: %d hits, cut %d, notice %q, next %q", budget, len(out.Hits), out.Cut, out.Notice, out.Next)
		}
		// Nothing is said twice: each passage's text appears once.
		raw, _ := json.Marshal(res.StructuredContent)
		for _, h := range out.Hits {
			if n := strings.Count(string(raw), jsonQuote(h.Text)); n != 1 {
				t.Errorf("recall at %d: passage %s appears %d times in structuredContent", budget, h.TurnUUID, n)
			}
		}
	}

	for _, budget := range []int{300, 2000, 8000} {
		res := callTool(t, c, ToolGet, map[string]any{"session_id": "conv-gasket-07", "turn_uuid": "g07-06", "window": 25, "token_budget": budget})
		st, tt := measure(t, res)
		var out GetOutput
		structured(t, res, &out)
		t.Logf("get budget %5d: structured %5d, text %5d, %d turns", budget, st, tt, len(out.Turns))
		if res.IsError || st > budget || tt > budget || len(out.Turns) == 0 {
			t.Errorf("get at %d: error=%v structured %d, text %d, %d turns", budget, res.IsError, st, tt, len(out.Turns))
		}
		if len(out.Turns) < 12 && out.Earlier == "" && out.Later == "" {
			t.Errorf("get at %d: %d turns shown and no paging hint", budget, len(out.Turns))
		}
		if out.Later != "" && !strings.Contains(out.Later, "call get") {
			t.Errorf("get at %d: later hint %q", budget, out.Later)
		}
		if !strings.Contains(out.Notice, "not instructions") {
			t.Errorf("get at %d: notice %q", budget, out.Notice)
		}
	}

	for _, budget := range []int{300, 2000} {
		res := callTool(t, c, ToolSessions, map[string]any{"limit": 200, "token_budget": budget})
		st, tt := measure(t, res)
		var out SessionsResult
		structured(t, res, &out)
		t.Logf("sessions budget %5d: structured %5d, text %5d, %d of %d", budget, st, tt, len(out.Sessions), out.Total)
		if res.IsError || st > budget || tt > budget || len(out.Sessions) == 0 {
			t.Errorf("sessions at %d: structured %d, text %d", budget, st, tt)
		}
		if len(out.Sessions) < out.Total && !strings.Contains(out.Next, fmt.Sprintf("offset %d", len(out.Sessions))) {
			t.Errorf("sessions at %d: next %q", budget, out.Next)
		}
	}

	res := callTool(t, c, ToolRecall, map[string]any{"query": "GASKET", "token_budget": 100})
	if !res.IsError || !strings.Contains(resultText(res), "at least 300") {
		t.Errorf("a budget under the floor: %v %q", res.IsError, resultText(res))
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestScopedTokenSeesOnlyItsTags: a conversation tagged both alpha and
// client-acme-layoffs shows a token scoped to alpha only "alpha" in hits,
// transcripts and session lists.
func TestScopedTokenSeesOnlyItsTags(t *testing.T) {
	ts := startTestServer(t, Options{})
	if err := ts.mem.Tag(context.Background(), "conv-alpha", "client-acme-layoffs"); err != nil {
		t.Fatal(err)
	}
	c := connect(t, ts.url, ts.scoped)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{ToolRecall, map[string]any{"query": "MT-4471"}},
		{ToolGet, map[string]any{"session_id": "conv-alpha"}},
		{ToolSessions, nil},
		{ToolListProjects, nil},
	} {
		res := callTool(t, c, call.tool, call.args)
		if res.IsError {
			t.Fatalf("%s: %s", call.tool, resultText(res))
		}
		if j := resultJSON(t, res); strings.Contains(j, "acme") || !strings.Contains(j, "alpha") {
			t.Errorf("%s shows a scoped token tags outside its scope:\n%s", call.tool, j)
		}
	}
	// The unscoped token still sees both.
	full := connect(t, ts.url, ts.full)
	if j := resultJSON(t, callTool(t, full, ToolSessions, nil)); !strings.Contains(j, "client-acme-layoffs") {
		t.Errorf("the full token lost a tag:\n%s", j)
	}
}

// TestBudgetsHoldAcrossSizes: every budget from the floor up holds for
// recall, get and sessions, whatever the query, window and page.
func TestBudgetsHoldAcrossSizes(t *testing.T) {
	m := budgetMemory(t)
	s := New(m, nil, Options{Logger: quietLogger()})
	c := stdioPipeClient(t, s)
	for budget := minTokenBudget; budget <= 4000; budget += 61 {
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{ToolRecall, map[string]any{"query": "GASKET", "top_k": 50}},
			{ToolRecall, map[string]any{"query": "flange torque EPDM", "top_k": 7}},
			{ToolGet, map[string]any{"session_id": "conv-gasket-03", "turn_uuid": "g03-11", "window": 25}},
			{ToolGet, map[string]any{"session_id": "conv-gasket-21"}},
			{ToolSessions, map[string]any{"limit": 200, "offset": 5}},
		} {
			call.args["token_budget"] = budget
			res := callTool(t, c, call.tool, call.args)
			st, tt := measure(t, res)
			if res.IsError || st > budget || tt > budget {
				t.Errorf("%s %v: error=%v structured %d, text %d tokens", call.tool, call.args, res.IsError, st, tt)
			}
		}
	}
}

// BenchmarkBuildRecall: shaping and counting a recall answer against its
// budget (both forms, o200k), as a share of the recall.Recall that feeds
// it, measured in the same run.
func BenchmarkBuildRecall(b *testing.B) {
	m := budgetMemory(b)
	ctx := context.Background()
	for _, budget := range []int{2000, 8000} {
		b.Run(fmt.Sprint(budget), func(b *testing.B) {
			opts := recall.Options{Query: "GASKET seal", K: 50, Budget: budget}
			var recalled, build time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				res, err := recall.Recall(ctx, m, opts)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				buildRecall(opts.Query, res, nil, budget)
				recalled += t1.Sub(t0)
				build += time.Since(t1)
			}
			b.ReportMetric(float64(build)/float64(recalled), "build/recall")
		})
	}
}
