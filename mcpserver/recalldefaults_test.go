package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/recall"
)

// TestRecallDefaultsFromOptions: recall without top_k or token_budget
// returns the configured defaults, SetRecallDefaults changes them on a
// running server, and the tool's schema states the numbers in force.
func TestRecallDefaultsFromOptions(t *testing.T) {
	t.Parallel()
	ts := startTestServer(t, Options{DefaultTopK: 1, DefaultTokenBudget: 300})
	c := connect(t, ts.url, ts.full)
	type result struct {
		Hits   []json.RawMessage `json:"hits"`
		Budget int               `json:"token_budget"`
	}
	callRecall := func() result {
		t.Helper()
		var res result
		structured(t, callTool(t, c, ToolRecall, map[string]any{"query": "MT-4471"}), &res)
		return res
	}
	schemaOf := func(tool string) string {
		t.Helper()
		tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools.Tools {
			if tl.Name == tool {
				b, _ := json.Marshal(tl)
				return string(b)
			}
		}
		t.Fatalf("no %s tool", tool)
		return ""
	}
	schema := func() string { t.Helper(); return schemaOf(ToolRecall) }
	if res := callRecall(); len(res.Hits) != 1 || res.Budget != 300 {
		t.Errorf("DefaultK 1, DefaultBudget 300: %d hits, budget %d", len(res.Hits), res.Budget)
	}
	if s := schema(); !strings.Contains(s, "(default 1, at most") || !strings.Contains(s, "(default 300, at least") {
		t.Errorf("schema does not state the defaults: %s", s)
	}
	ts.SetRecallDefaults(3, 5000)
	if res := callRecall(); len(res.Hits) != 3 || res.Budget != 5000 {
		t.Errorf("after SetRecallDefaults(3, 5000): %d hits, budget %d", len(res.Hits), res.Budget)
	}
	if s := schema(); !strings.Contains(s, "(default 3, at most") || !strings.Contains(s, "(default 5000, at least") {
		t.Errorf("schema after SetRecallDefaults: %s", s)
	}
	if s := schemaOf(ToolSessions); !strings.Contains(s, "(default 5000, at least") {
		t.Errorf("sessions' schema after SetRecallDefaults: %s", s)
	}
	var res result
	structured(t, callTool(t, c, ToolRecall, map[string]any{"query": "MT-4471", "top_k": 2}), &res)
	if len(res.Hits) != 2 {
		t.Errorf("an agent's top_k 2 beats the default: %d hits", len(res.Hits))
	}
	if d := (Options{}).withDefaults().recallDefaults(); d.k != recall.DefaultK || d.budget != recall.DefaultBudget {
		t.Errorf("zero options: %+v, want recall's defaults", d)
	}
}
