package mcpserver

import (
	"strings"
	"testing"
)

// TestScopeNeverLeaks: a token scoped to project alpha sees alpha's
// conversation in every tool and nothing of beta's or the untagged one, and
// get on those answers exactly as for a conversation that does not exist.
func TestScopeNeverLeaks(t *testing.T) {
	ts := startTestServer(t, Options{})
	c := connect(t, ts.url, ts.scoped)
	forbidden := []string{markerBeta, markerGlobal, "Beta pricing", "Global pricing", `"beta"`, "conv-beta", "conv-global"}
	noLeak := func(what string, out string, allow ...string) {
		t.Helper()
		for _, a := range allow {
			out = strings.ReplaceAll(out, a, "")
		}
		for _, f := range forbidden {
			if strings.Contains(out, f) {
				t.Errorf("%s leaks %q:\n%s", what, f, out)
			}
		}
	}

	for _, args := range []map[string]any{
		{"query": "MT-4471"},
		{"query": "MT-4471 price", "top_k": 50, "token_budget": 16000},
		{"query": markerBeta},
		{"query": markerGlobal},
		{"query": "pricing", "project": "beta"},
		{"query": "MT-4471", "source": "claude"},
		{"query": "MT-4471", "source": "codex"},
	} {
		res := callTool(t, c, ToolRecall, args)
		if res.IsError {
			t.Fatalf("recall %v: %s", args, resultText(res))
		}
		noLeak("recall", resultJSON(t, res), args["query"].(string)) // the query is echoed
		var rr RecallOutput
		structured(t, res, &rr)
		for _, h := range rr.Hits {
			if h.SessionID != "conv-alpha" {
				t.Errorf("recall %v returned %s", args, h.SessionID)
			}
		}
	}
	res := callTool(t, c, ToolRecall, map[string]any{"query": "MT-4471"})
	if !strings.Contains(resultText(res), markerAlpha) {
		t.Fatalf("scoped token lost its own project:\n%s", resultText(res))
	}

	// get: out of scope is indistinguishable from absent.
	for _, tc := range []struct{ id, turn string }{
		{"conv-beta", ""}, {"conv-global", ""}, {"claude:conv-beta", ""},
		{"conv-beta", "conv-beta-u1"}, {"conv-global", "conv-global-u0"},
	} {
		got := callTool(t, c, ToolGet, map[string]any{"session_id": tc.id, "turn_uuid": tc.turn})
		absentID := "conv-absent"
		absentTurn := ""
		if tc.turn != "" {
			absentTurn = "absent-turn"
		}
		want := callTool(t, c, ToolGet, map[string]any{"session_id": absentID, "turn_uuid": absentTurn})
		gotText := resultText(got)
		if tc.turn != "" {
			gotText = strings.ReplaceAll(gotText, tc.turn, "TURN")
		}
		gotText = strings.ReplaceAll(gotText, tc.id, "ID")
		wantText := strings.ReplaceAll(strings.ReplaceAll(resultText(want), absentID, "ID"), "absent-turn", "TURN")
		if !got.IsError || got.IsError != want.IsError || gotText != wantText {
			t.Errorf("get %s/%s = %v %q; absent = %v %q", tc.id, tc.turn, got.IsError, gotText, want.IsError, wantText)
		}
		noLeak("get", resultJSON(t, got), tc.turn, tc.id) // the ids asked for are echoed
	}
	if got := callTool(t, c, ToolGet, map[string]any{"session_id": "conv-alpha"}); got.IsError {
		t.Fatalf("get in scope: %s", resultText(got))
	}

	for _, args := range []map[string]any{
		nil, {"query": markerBeta}, {"project": "beta"}, {"source": "claude"}, {"limit": 200},
	} {
		res := callTool(t, c, ToolSessions, args)
		noLeak("sessions", resultJSON(t, res))
		var sr SessionsResult
		structured(t, res, &sr)
		if sr.Total > 1 || len(sr.Sessions) > 1 || (len(sr.Sessions) == 1 && sr.Sessions[0].SessionID != "conv-alpha") {
			t.Errorf("sessions %v = %+v", args, sr)
		}
	}

	res = callTool(t, c, ToolListProjects, nil)
	noLeak("list_projects", resultJSON(t, res))
	var pr ProjectsResult
	structured(t, res, &pr)
	if len(pr.Projects) != 1 || pr.Projects[0].Name != "alpha" || pr.Untagged != 0 {
		t.Fatalf("list_projects = %+v", pr)
	}
}
