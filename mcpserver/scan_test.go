package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/o200k"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// scanMemory is the fixture memory plus 30 conversations that each say
// ERR_CONN_RESET a known number of times (one alpha, one beta, one
// untagged in turn; on several turns and twice on one line), one of them
// an agent's with Ireneo's own answer quoting it (which scan must pass
// over), and a long line. wantMatches is how many a scan of the whole
// memory finds.
func scanMemory(t testing.TB) (*memory.Memory, int, map[string]int) {
	t.Helper()
	m := newFixtureMemory(t)
	t0 := time.Date(2025, 11, 3, 8, 0, 0, 0, time.UTC)
	var ss []*funes.Session
	want, byProject := 0, map[string]int{}
	for i := range 30 {
		project := []string{"alpha", "beta", ""}[i%3]
		s := &funes.Session{ID: fmt.Sprintf("conv-net-%02d", i), Harness: []string{funes.HarnessCodex, funes.HarnessGeminiCLI, funes.HarnessCursor}[i%3],
			Title: fmt.Sprintf("Network flake %d", i), Project: project}
		texts := []string{
			fmt.Sprintf("The client dies with ERR_CONN_RESET after %d requests.", 10+i),
			"Seen it: ERR_CONN_RESET, then ERR_CONN_RESET again on retry.\nNo other error.",
			"Lowercase err_conn_reset is not the same token.",
		}
		n := 3
		if i == 7 {
			texts = append(texts, strings.Repeat("padding ", 200)+"ERR_CONN_RESET"+strings.Repeat(" trailing", 200))
			n++
		}
		for j, tx := range texts {
			role := []string{funes.RoleUser, funes.RoleAssistant}[j%2]
			s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("n%02d-%d", i, j), Seq: j, TS: t0.AddDate(0, 0, i).Add(time.Duration(j) * time.Minute),
				Role: role, Blocks: []funes.Block{{Type: funes.BlockText, Text: tx}}})
		}
		if i == 4 {
			// An agent's recall of it: Ireneo's answer quotes the words, and
			// stays out of a scan as it stays out of the index.
			s.Turns = append(s.Turns,
				funes.Turn{TurnUUID: "n04-call", Seq: 3, TS: t0.AddDate(0, 0, i).Add(4 * time.Minute), Role: funes.RoleAssistant,
					Blocks: []funes.Block{{Type: funes.BlockToolUse, ToolName: "mcp__ireneo__recall", Text: `{"query":"ERR_CONN_RESET"}`}}},
				funes.Turn{TurnUUID: "n04-result", Seq: 4, TS: t0.AddDate(0, 0, i).Add(5 * time.Minute), Role: funes.RoleTool,
					Blocks: []funes.Block{{Type: funes.BlockToolResult, ToolName: "mcp__ireneo__recall", Text: "[ireneo-result] Past conversations matching \"ERR_CONN_RESET\": 1 passage(s), best first.\n\n[1] ERR_CONN_RESET quoted"}}})
		}
		want += n
		byProject[project] += n
		ss = append(ss, s)
	}
	if _, err := m.Ingest(context.Background(), ss, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return m, want, byProject
}

// scanAll pages scan through call until it says it is complete, checking
// each page fits its budget; it returns every match's session_id/turn and
// text in order.
func scanAll(t *testing.T, call func(map[string]any) (string, string, bool), args map[string]any) []string {
	t.Helper()
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatal("scan did not complete in 100 pages")
		}
		a := map[string]any{}
		for k, v := range args {
			a[k] = v
		}
		if cursor != "" {
			a["cursor"] = cursor
		}
		st, text, isErr := call(a)
		if isErr {
			t.Fatalf("scan %v: %s", a, text)
		}
		var out ScanOutput
		if err := json.Unmarshal([]byte(st), &out); err != nil {
			t.Fatal(err)
		}
		if b, ok := a["token_budget"].(int); ok && (o200k.Count(st) > b || o200k.Count(text) > b) {
			t.Errorf("page %d over its budget %d: structured %d, text %d tokens", page, b, o200k.Count(st), o200k.Count(text))
		}
		if !strings.HasPrefix(text, "[ireneo-result] ") || out.Marker != "[ireneo-result]" {
			t.Errorf("page %d is not marked: %q", page, text[:min(60, len(text))])
		}
		for _, mt := range out.Matches {
			if !strings.Contains(mt.Line, mt.Match) {
				t.Errorf("match %q not on its line %q", mt.Match, mt.Line)
			}
			got = append(got, mt.SessionID+"/"+mt.TurnUUID+" "+mt.Match)
		}
		if out.Complete {
			if out.Cursor != "" || out.Scanned != out.InScope {
				t.Errorf("complete with cursor %q, %d of %d scanned", out.Cursor, out.Scanned, out.InScope)
			}
			return got
		}
		if out.Cursor == "" {
			t.Fatalf("page %d: not complete and no cursor", page)
		}
		cursor = out.Cursor
	}
}

func mcpgoCall(t *testing.T, c *client.Client) func(map[string]any) (string, string, bool) {
	return func(a map[string]any) (string, string, bool) {
		res := callTool(t, c, ToolScan, a)
		b, _ := json.Marshal(res.StructuredContent)
		return string(b), resultText(res), res.IsError
	}
}

// scan over HTTP with mcp-go's client: every match, in order, across
// pages small enough to cut conversations in the middle, within the
// budget; exact, case-folded and RE2; a scoped token's matches only in its
// projects and untagged ones; one conversation; a bad expression a tool
// error.
func TestScanOverHTTP(t *testing.T) {
	m, want, byProject := scanMemory(t)
	s := New(m, tokenstore.NewMemoryTokenStore(), Options{Logger: quietLogger(), validateOutput: true})
	ctx := context.Background()
	full, _, _ := s.Tokens().Create(ctx, "full", nil)
	scoped, _, _ := s.Tokens().Create(ctx, "scoped", []string{"alpha"})
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := connect(t, s.URL(), full)

	all := scanAll(t, mcpgoCall(t, c), map[string]any{"pattern": "ERR_CONN_RESET", "limit": 7, "token_budget": 600})
	if len(all) != want {
		t.Fatalf("%d matches across pages, want %d", len(all), want)
	}
	seen := map[string]bool{}
	for _, g := range all {
		if seen[g] && !strings.Contains(g, "-1 ") {
			t.Errorf("match %s twice", g)
		}
		seen[g] = true
		if strings.Contains(g, "n04-result") || strings.Contains(g, "n04-call") {
			t.Errorf("scan matched Ireneo's own traffic: %s", g)
		}
	}
	// In one page, the same list.
	if one := scanAll(t, mcpgoCall(t, c), map[string]any{"pattern": "ERR_CONN_RESET", "limit": 200, "token_budget": 16000}); strings.Join(one, "\n") != strings.Join(all, "\n") {
		t.Errorf("one page and many differ:\n%s\n---\n%s", strings.Join(one, "\n"), strings.Join(all, "\n"))
	}
	if got := scanAll(t, mcpgoCall(t, c), map[string]any{"pattern": "err_conn_reset", "ignore_case": true, "limit": 200, "token_budget": 16000}); len(got) != want+30 {
		t.Errorf("ignore_case: %d matches, want %d", len(got), want+30)
	}
	if got := scanAll(t, mcpgoCall(t, c), map[string]any{"pattern": `ERR_CONN_RESET after 1[0-4] requests`, "regexp": true, "limit": 200}); len(got) != 5 {
		t.Errorf("regexp: %d matches, want 5: %v", len(got), got)
	}
	if got := scanAll(t, mcpgoCall(t, c), map[string]any{"pattern": "ERR_CONN_RESET", "session_id": "conv-net-07"}); len(got) != 4 {
		t.Errorf("one conversation: %d matches, want 4", len(got))
	}
	if got := scanAll(t, mcpgoCall(t, c), map[string]any{"pattern": "ERR_CONN_RESET", "source": "gemini_cli", "limit": 200}); len(got) != 31 {
		t.Errorf("source: %d matches, want 31", len(got))
	}
	// The scoped token: alpha's conversations only.
	sc := connect(t, s.URL(), scoped)
	sgot := scanAll(t, mcpgoCall(t, sc), map[string]any{"pattern": "ERR_CONN_RESET", "limit": 5, "token_budget": 500})
	if len(sgot) != byProject["alpha"] {
		t.Errorf("scoped: %d matches, want %d", len(sgot), byProject["alpha"])
	}
	res := callTool(t, sc, ToolScan, map[string]any{"pattern": "42 EUR", "limit": 200})
	if j := resultJSON(t, res); strings.Contains(j, markerBeta) || strings.Contains(j, `"beta"`) || !strings.Contains(j, markerAlpha) {
		t.Errorf("scoped scan leaks or misses: %s", j)
	}
	// Bad input: a clear tool error each.
	for args, wantErr := range map[string]string{
		`{"pattern":"ERR_(CONN","regexp":true}`: "not a valid RE2 regular expression",
		`{"pattern":"(?<=x)y","regexp":true}`:   "not a valid RE2 regular expression",
		`{"pattern":""}`:                        "pattern is empty",
		`{"pattern":"x","cursor":"nonsense"}`:   "is not one scan gave",
		`{"pattern":"x","source":"bard"}`:       "not one of",
	} {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		res := callTool(t, c, ToolScan, a)
		if !res.IsError || !strings.Contains(resultText(res), wantErr) {
			t.Errorf("scan %s: error=%v %q, want %q", args, res.IsError, resultText(res), wantErr)
		}
	}
	// Audited, as every call is.
	s.Close()
	entries, err := auditlog.List(ctx, m, auditlog.Query{Tool: ToolScan, Limit: 10000})
	if err != nil || len(entries) < 10 {
		t.Errorf("audit: %v, %d scan entries", err, len(entries))
	}
}

// scan over stdio: in process with mcp-go's client, and the real `ireneo
// mcp` started by mcp-go's stdio client.
func TestScanOverStdio(t *testing.T) {
	m, want, _ := scanMemory(t)
	s := New(m, nil, Options{Logger: quietLogger()})
	defer s.Close()
	c := stdioPipeClient(t, s)
	if got := scanAll(t, mcpgoCall(t, c), map[string]any{"pattern": "ERR_CONN_RESET", "limit": 9, "token_budget": 700}); len(got) != want {
		t.Fatalf("stdio in process: %d matches, want %d", len(got), want)
	}
	bin := buildIreneo(t)
	bc, err := client.NewStdioMCPClient(bin, []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, "--memory", m.Dir(), "mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bc.Close() })
	ictx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := bc.Initialize(ictx, initRequest()); err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, mcpgoCall(t, bc), map[string]any{"pattern": "ERR_CONN_RESET", "limit": 11, "token_budget": 800}); len(got) != want {
		t.Fatalf("ireneo mcp: %d matches, want %d", len(got), want)
	}
	// insights over the same two stdio connections: every conversation
	// counted, within the budget asked for.
	total, err := m.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, cl := range map[string]*client.Client{"in process": c, "ireneo mcp": bc} {
		res := callTool(t, cl, ToolInsights, map[string]any{"period": "week", "token_budget": 1500})
		if res.IsError {
			t.Fatalf("insights over stdio (%s): %s", name, resultText(res))
		}
		var in InsightsOutput
		structured(t, res, &in)
		if in.Totals.Conversations != total.Conversations || len(in.Periods) == 0 {
			t.Errorf("insights over stdio (%s): %d conversations of %d, periods %v", name, in.Totals.Conversations, total.Conversations, in.Periods)
		}
		if n := o200k.Count(resultText(res)); n > 1500 {
			t.Errorf("insights over stdio (%s): %d tokens over a budget of 1500", name, n)
		}
	}
}

// checkSDKScan reads sdkscan.mjs's lines: the scan pages hold every match
// within their budget; the calls after are checked by the caller.
func checkSDKScan(t *testing.T, lines []sdkLine, want, budget int) []sdkLine {
	t.Helper()
	n := 0
	var rest []sdkLine
	for _, l := range lines {
		if l.Event != "call" {
			continue
		}
		if l.Name != ToolScan || l.Arguments["regexp"] != nil { // the pages scan no expression
			rest = append(rest, l)
			continue
		}
		if l.IsError || l.Structured == nil {
			t.Fatalf("scan page: %s", l.Text)
		}
		if st, tt := o200k.Count(*l.Structured), o200k.Count(l.Text); st > budget || tt > budget {
			t.Errorf("scan page over %d: %d, %d", budget, st, tt)
		}
		var out ScanOutput
		json.Unmarshal([]byte(*l.Structured), &out)
		n += len(out.Matches)
	}
	if n != want {
		t.Errorf("the SDK paged %d matches, want %d", n, want)
	}
	return rest
}

// scan and insights through the official TypeScript SDK, over HTTP and
// over stdio (the real `ireneo mcp`).
func TestScanAndInsightsTypeScriptSDK(t *testing.T) {
	node, dir := sdkDir(t)
	m, want, _ := scanMemory(t)
	scan, _ := json.Marshal(map[string]any{"pattern": "ERR_CONN_RESET", "limit": 8, "token_budget": 650})
	calls, _ := json.Marshal([]map[string]any{
		{"name": ToolScan, "arguments": map[string]any{"pattern": "ERR_(", "regexp": true}},
		{"name": ToolInsights, "arguments": map[string]any{"period": "month", "token_budget": 2000}},
	})
	run := func(env map[string]string) []sdkLine {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "sdkscan.mjs"))
		cmd.Env = append(os.Environ(), "IRENEO_SDK="+dir, "SCAN="+string(scan), "CALLS="+string(calls))
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("sdkscan: %v\n%s\n%s", err, out, stderr.String())
		}
		var lines []sdkLine
		for _, ln := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var l sdkLine
			if err := json.Unmarshal([]byte(ln), &l); err != nil {
				t.Fatalf("line %q: %v", ln, err)
			}
			lines = append(lines, l)
		}
		return lines
	}
	check := func(how string, lines []sdkLine) {
		rest := checkSDKScan(t, lines, want, 650)
		if len(rest) != 2 {
			t.Fatalf("%s: %d calls after the scan", how, len(rest))
		}
		if !rest[0].IsError || !strings.Contains(rest[0].Text, "not a valid RE2 regular expression") {
			t.Errorf("%s: bad expression: %+v", how, rest[0])
		}
		var in InsightsOutput
		if rest[1].IsError || rest[1].Structured == nil || json.Unmarshal([]byte(*rest[1].Structured), &in) != nil || in.Totals.Conversations != 33 {
			t.Errorf("%s: insights: %+v", how, rest[1])
		}
	}
	s := New(m, tokenstore.NewMemoryTokenStore(), Options{Logger: quietLogger()})
	tok, _, _ := s.Tokens().Create(context.Background(), "sdk", nil)
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	check("http", run(map[string]string{"MODE": "http", "URL": s.URL(), "TOKEN": tok}))
	s.Close()
	bin := buildIreneo(t)
	args, _ := json.Marshal([]string{"--memory", m.Dir(), "mcp"})
	env, _ := json.Marshal(map[string]string{"HOME": t.TempDir(), "PATH": os.Getenv("PATH")})
	check("stdio", run(map[string]string{"MODE": "stdio", "CMD": bin, "ARGS": string(args), "ENV": string(env)}))
}
