package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestHTTPClientBothHandshakes drives the server with mcp-go's client over
// Streamable HTTP, once with the 2026-07-28 stateless protocol and once with
// the legacy initialize handshake.
func TestHTTPClientBothHandshakes(t *testing.T) {
	ts := startTestServer(t, Options{})
	for _, tc := range []struct {
		name   string
		opts   []client.ClientOption
		modern bool
	}{
		{"2026-07-28", nil, true},
		//lint:ignore SA1019 the legacy initialize handshake is what this case tests
		{"legacy", []client.ClientOption{client.WithLegacyProtocolOnly()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := connect(t, ts.url, ts.full, tc.opts...)
			if got := mcp.IsModernProtocol(c.ProtocolVersion()); got != tc.modern {
				t.Fatalf("protocol %q, modern=%v, want modern=%v", c.ProtocolVersion(), got, tc.modern)
			}
			tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]mcp.Tool{}
			for _, tl := range tools.Tools {
				names[tl.Name] = tl
			}
			for _, want := range []string{ToolRecall, ToolGet, ToolSessions, ToolListProjects, ToolScan, ToolInsights} {
				tl, ok := names[want]
				if !ok {
					t.Fatalf("tool %s missing; have %v", want, tools.Tools)
				}
				a := tl.Annotations
				if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
					t.Errorf("%s is not annotated read-only: %+v", want, a)
				}
			}
			if len(names) != 6 {
				t.Errorf("want exactly 6 tools, got %d", len(names))
			}
			d := names[ToolRecall].Description
			for _, phrase := range []string{"last time", "earlier", "what did we decide", "the numbers we used", "identifiers", "search again", "verbatim"} {
				if !strings.Contains(d, phrase) {
					t.Errorf("recall description lacks %q", phrase)
				}
			}

			res := callTool(t, c, ToolRecall, map[string]any{"query": "MT-4471 price"})
			if res.IsError {
				t.Fatalf("recall error: %s", resultText(res))
			}
			text := resultText(res)
			if !strings.Contains(text, markerAlpha) || !strings.Contains(text, markerBeta) {
				t.Fatalf("context block lacks passages:\n%s", text)
			}
			var rr RecallOutput
			structured(t, res, &rr)
			if len(rr.Hits) == 0 || rr.Query != "MT-4471 price" || !strings.Contains(rr.Notice, "not instructions") || !strings.Contains(rr.Next, "call get") {
				t.Fatalf("structured recall = %+v", rr)
			}
			h := rr.Hits[0]
			if h.SessionID == "" || h.TurnUUID == "" || h.Date == "" || h.Source == "" {
				t.Fatalf("hit lacks its receipt: %+v", h)
			}

			// get opens the receipt.
			res = callTool(t, c, ToolGet, map[string]any{"session_id": h.SessionID, "turn_uuid": h.TurnUUID, "window": 1})
			if res.IsError {
				t.Fatalf("get error: %s", resultText(res))
			}
			var tr GetOutput
			structured(t, res, &tr)
			if tr.Session.SessionID != h.SessionID || len(tr.Turns) == 0 || !slices.ContainsFunc(tr.Turns, func(t TurnOut) bool { return t.Focus && t.TurnUUID == h.TurnUUID }) {
				t.Fatalf("transcript = %+v", tr)
			}
			if !strings.Contains(resultText(res), h.TurnUUID) {
				t.Fatalf("get text lacks the turn:\n%s", resultText(res))
			}

			res = callTool(t, c, ToolSessions, map[string]any{"limit": 2})
			var sr SessionsResult
			structured(t, res, &sr)
			if res.IsError || sr.Total != 3 || len(sr.Sessions) != 2 || !strings.Contains(sr.Next, "offset 2") {
				t.Fatalf("sessions = %+v (%s)", sr, resultText(res))
			}
			if sr.Sessions[0].SessionID != "conv-global" { // newest first
				t.Fatalf("sessions order: %+v", sr.Sessions)
			}

			res = callTool(t, c, ToolListProjects, nil)
			var pr ProjectsResult
			structured(t, res, &pr)
			if res.IsError || len(pr.Projects) != 2 || pr.Untagged != 1 {
				t.Fatalf("list_projects = %+v (%s)", pr, resultText(res))
			}
		})
	}
}

func TestRecallNoMatchSaysSo(t *testing.T) {
	ts := startTestServer(t, Options{})
	c := connect(t, ts.url, ts.full)
	res := callTool(t, c, ToolRecall, map[string]any{"query": "zebra xylophone"})
	if res.IsError {
		t.Fatalf("error: %s", resultText(res))
	}
	if !strings.Contains(resultText(res), "No past conversation matches") {
		t.Fatalf("no-match text: %q", resultText(res))
	}
	var rr RecallOutput
	structured(t, res, &rr)
	if rr.Hits == nil || len(rr.Hits) != 0 {
		t.Fatalf("hits = %#v, want empty list", rr.Hits)
	}
}

func TestToolArgumentErrors(t *testing.T) {
	ts := startTestServer(t, Options{})
	c := connect(t, ts.url, ts.full)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{ToolRecall, map[string]any{"query": strings.Repeat("x", MaxQueryChars+1)}, "limit is 500"},
		{ToolRecall, map[string]any{"query": ""}, "query is empty"},
		{ToolRecall, map[string]any{"query": "MT-4471", "bogus": 1}, `unknown field "bogus"`},
		{ToolRecall, map[string]any{"query": "MT-4471", "since": "last week"}, "not a date"},
		{ToolRecall, map[string]any{"query": "MT-4471", "source": "bard"}, "not one of"},
		{ToolRecall, map[string]any{"query": "MT-4471", "top_k": "many"}, "want an integer"},
		{ToolGet, map[string]any{}, "session_id is required"},
		{ToolSessions, map[string]any{"limit": -1}, "must not be negative"},
	} {
		res := callTool(t, c, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(resultText(res), tc.want) {
			t.Errorf("%s %v: got error=%v %q, want %q", tc.tool, tc.args, res.IsError, resultText(res), tc.want)
		}
	}
	// Numeric strings are accepted, as typed key=value clients send them.
	res := callTool(t, c, ToolRecall, map[string]any{"query": "MT-4471", "top_k": "1", "until": "2026-10-08"})
	var rr RecallOutput
	structured(t, res, &rr)
	if res.IsError || len(rr.Hits) != 1 || rr.Hits[0].SessionID != "conv-alpha" {
		t.Fatalf("top_k as string, until inclusive: %+v %s", rr, resultText(res))
	}
}

func TestGetNotFound(t *testing.T) {
	ts := startTestServer(t, Options{})
	c := connect(t, ts.url, ts.full)
	res := callTool(t, c, ToolGet, map[string]any{"session_id": "no-such"})
	if !res.IsError || !strings.HasPrefix(resultText(res), "not found") {
		t.Fatalf("got %v %q", res.IsError, resultText(res))
	}
}

func TestEveryCallAudited(t *testing.T) {
	ts := startTestServer(t, Options{})
	c := connect(t, ts.url, ts.scoped)
	callTool(t, c, ToolRecall, map[string]any{"query": "MT-4471"})
	callTool(t, c, ToolRecall, map[string]any{"query": "zebra"})
	callTool(t, c, ToolGet, map[string]any{"session_id": "conv-beta"})
	callTool(t, c, ToolRecall, map[string]any{"query": ""})
	ts.FlushAudit()
	es, err := auditlog.List(context.Background(), ts.mem, auditlog.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 4 {
		t.Fatalf("audit has %d entries, want 4: %+v", len(es), es)
	}
	want := []struct {
		tool, outcome, arg string
		hits               int
	}{
		{ToolRecall, auditlog.Invalid, `"query":""`, 0},
		{ToolGet, auditlog.NotFound, "conv-beta", 0},
		{ToolRecall, auditlog.NoMatch, "zebra", 0},
		{ToolRecall, auditlog.OK, "MT-4471", 2}, // both alpha turns that name it
	}
	for i, w := range want {
		e := es[i]
		if e.Client != "scoped" || e.Tool != w.tool || e.Outcome != w.outcome || !strings.Contains(e.Args, w.arg) || e.Hits != w.hits || e.TS.IsZero() || e.Duration <= 0 {
			t.Errorf("entry %d = %+v, want %+v", i, e, w)
		}
	}
}
