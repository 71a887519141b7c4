package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/plumbing"
	"github.com/ireneo-app/ireneo/recall"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// The scenario of issue 20, end to end: facts said once; agents in Claude
// Code (server "ireneo", and "memory") and Codex (mcp__ireneo__recall) ask
// Ireneo's real server about each, over HTTP and stdio, and get text and
// structured answers; their transcripts, written in the harnesses' own
// formats, are imported by the real importers, one after the other as the
// watcher would. Recall must still put each fact's own turn first or second,
// with no call or answer of Ireneo's in the top five, while src/ keeps them.

// copyFacts: the agents ask in other words than the person did and answer
// as agents do, quoting the date; Ireneo's answer repeats the fact's words.
var copyFacts = []struct{ query, ask, said, agentAsk, answer string }{
	{"MT-4471 K-2 compressor", "Any news on the compressor ticket?", "MT-4471 is still open: the K-2 compressor trips on start, and Priya owns it.",
		"Is MT-4471 still open? Who has it?", "Yes: per your notes of 1 March, MT-4471 is still open and Priya owns it."},
	{"PX-208 valve supplier", "Did purchasing decide on the valves?", "For PX-208 we switched the valve supplier to Hallberg; Tomasz signed it off.",
		"What did we decide for PX-208?", "On 2 March you settled PX-208 with Hallberg, signed off by Tomasz."},
	{"QA-93 firmware rollback", "When does the rollback happen?", "QA-93: the firmware rollback to 4.2.1 is set for Friday and Ines runs it.",
		"When is QA-93 happening, and who runs it?", "Your notes of 3 March say QA-93 is on Friday and Ines runs it."},
}

var copiesDay0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// copiesMemory holds the facts, each in a ChatGPT conversation of its own,
// and other talk that shares their common words.
func copiesMemory(t *testing.T) *memory.Memory {
	t.Helper()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	var ss []*funes.Session
	turn := func(id string, seq int, ts time.Time, role, text string) funes.Turn {
		return funes.Turn{TurnUUID: fmt.Sprintf("%s-%d", id, seq), Seq: seq, TS: ts, Role: role, Blocks: []funes.Block{{Type: funes.BlockText, Text: text}}}
	}
	for i, f := range copyFacts {
		id, ts := fmt.Sprintf("fact-%d", i), copiesDay0.AddDate(0, 0, i)
		ss = append(ss, &funes.Session{ID: id, Harness: funes.HarnessChatGPT, Title: "Plant notes", Turns: []funes.Turn{
			turn(id, 0, ts, funes.RoleUser, f.ask), turn(id, 1, ts.Add(time.Minute), funes.RoleAssistant, f.said)}})
	}
	for i := range 12 {
		id, ts := fmt.Sprintf("other-%d", i), copiesDay0.AddDate(0, 0, 5+i)
		ss = append(ss, &funes.Session{ID: id, Harness: funes.HarnessClaude, Title: "Other work", Turns: []funes.Turn{
			turn(id, 0, ts, funes.RoleUser, fmt.Sprintf("Can you review the compressor pricing sheet %d for the supplier meeting?", i)),
			turn(id, 1, ts.Add(time.Minute), funes.RoleAssistant, "The firmware and valve numbers look fine; the owner of the sheet is still open to change.")}})
	}
	if _, err := m.Ingest(context.Background(), ss, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return m
}

// answerAs is how a harness writes a tool's answer into its transcript.
type answerAs int

const (
	asText       answerAs = iota // the text content
	asStructured                 // the structured content, as JSON
	asWhole                      // the whole result, as JSON (some Codex versions)
)

func renderAnswer(t *testing.T, res *mcp.CallToolResult, as answerAs) string {
	t.Helper()
	var v any
	switch as {
	case asText:
		return resultText(res)
	case asStructured:
		v = res.StructuredContent
	default:
		v = res
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func uuidN(n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n) }

func jsonLine(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// claudeCodeTranscript writes an agent session as Claude Code 2.1 records
// it, harness plumbing included: a reminder block before the person's
// words, a local slash command with its caveat, envelope and output, an
// interruption, the tool_use of mcp__<server>__recall, its tool_result and
// the agent's answer. extra, when set, is one more sentence of the person's.
func claudeCodeTranscript(t *testing.T, dir string, n int, server, query, result, ask, answer, extra string, at time.Time) string {
	t.Helper()
	sid := uuidN(n)
	var b strings.Builder
	prev := any(nil)
	k := 0
	rec := func(typ string, msg map[string]any, more map[string]any) {
		k++
		uuid := fmt.Sprintf("%s-r%02d", sid[:8], k)
		r := map[string]any{"parentUuid": prev, "isSidechain": false, "userType": "external", "cwd": "/home/ana/plant", "sessionId": sid,
			"version": "2.1.7", "gitBranch": "main", "type": typ, "message": msg, "uuid": uuid,
			"timestamp": at.Add(time.Duration(k) * time.Second).Format(time.RFC3339Nano)}
		for key, v := range more {
			r[key] = v
		}
		b.WriteString(jsonLine(t, r))
		prev = uuid
	}
	user := func(content any, more map[string]any) {
		rec("user", map[string]any{"role": "user", "content": content}, more)
	}
	assistant := func(id string, content ...any) {
		rec("assistant", map[string]any{"model": "claude-opus-4-5", "id": id, "type": "message", "role": "assistant", "content": content,
			"stop_reason": nil, "usage": map[string]any{"input_tokens": 12, "output_tokens": 30}}, map[string]any{"requestId": "req_" + id})
	}
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
	user("Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.",
		map[string]any{"isMeta": true})
	user("<command-name>/mcp</command-name>\n            <command-message>mcp</command-message>\n            <command-args></command-args>", nil)
	user("<local-command-stdout>Connected MCP servers: "+server+" ZEPHYRSTDOUT</local-command-stdout>", nil)
	user([]any{text("<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\nThe plant's tickets are tracked in MT, PX and QA ZEPHYRREMINDER.\n</system-reminder>"), text(ask)}, nil)
	toolID := fmt.Sprintf("toolu_%08d", n)
	assistant(fmt.Sprintf("msg_%da", n), map[string]any{"type": "tool_use", "id": toolID, "name": "mcp__" + server + "__recall", "input": map[string]any{"query": query}})
	user([]any{map[string]any{"tool_use_id": toolID, "type": "tool_result", "content": []any{text(result)}}}, map[string]any{"toolUseResult": []any{text(result)}})
	assistant(fmt.Sprintf("msg_%db", n), text(answer))
	user("[Request interrupted by user]", nil)
	if extra != "" {
		user(extra, nil)
		assistant(fmt.Sprintf("msg_%dc", n), text("Claude Code adds those reminders itself; they are not yours."))
	}
	path := filepath.Join(dir, "claude", "projects", "-home-ana-plant", sid+".jsonl")
	writeFile(t, path, b.String())
	return path
}

// codexTranscript writes an agent session as a Codex 0.104 rollout: the
// environment and AGENTS.md preambles, the person's words (as response
// item and as event), a function_call of mcp__ireneo__recall, its
// function_call_output and the answer.
func codexTranscript(t *testing.T, dir string, n int, query, output, ask, answer string, at time.Time) string {
	t.Helper()
	sid := uuidN(n)
	var b strings.Builder
	k := 0
	line := func(typ string, payload map[string]any) {
		k++
		b.WriteString(jsonLine(t, map[string]any{"timestamp": at.Add(time.Duration(k) * time.Second).Format(time.RFC3339Nano), "type": typ, "payload": payload}))
	}
	msg := func(role, kind, text string) map[string]any {
		return map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": kind, "text": text}}}
	}
	line("session_meta", map[string]any{"id": sid, "timestamp": at.Format(time.RFC3339Nano), "cwd": "/home/ana/plant", "originator": "codex_cli_rs",
		"cli_version": "0.104.0", "source": "cli", "model_provider": "openai", "git": map[string]any{"branch": "main", "repository_url": "git@example.com:ana/plant.git"}})
	line("response_item", msg("developer", "input_text", "<permissions instructions>\nFilesystem sandboxing: workspace-write.\n</permissions instructions>"))
	line("response_item", msg("user", "input_text", "# AGENTS.md instructions for /home/ana/plant\n\n<INSTRUCTIONS>\nRun make test before every commit.\n</INSTRUCTIONS>"))
	line("response_item", msg("user", "input_text", "<environment_context>\n  <cwd>/home/ana/plant</cwd>\n  <approval_policy>on-request</approval_policy>\n  <shell>bash</shell>\n</environment_context>"))
	line("response_item", msg("user", "input_text", ask))
	line("event_msg", map[string]any{"type": "user_message", "message": ask, "images": []any{}, "local_images": []any{}, "text_elements": []any{}})
	line("turn_context", map[string]any{"cwd": "/home/ana/plant", "approval_policy": "on-request", "model": "gpt-5-codex"})
	args, _ := json.Marshal(map[string]any{"query": query})
	call := fmt.Sprintf("call_%08d", n)
	line("response_item", map[string]any{"type": "function_call", "name": "mcp__ireneo__recall", "arguments": string(args), "call_id": call})
	line("response_item", map[string]any{"type": "function_call_output", "call_id": call, "output": output})
	line("response_item", msg("assistant", "output_text", answer))
	line("event_msg", map[string]any{"type": "agent_message", "message": answer})
	path := filepath.Join(dir, "codex", "sessions", "2026", "04", fmt.Sprintf("%02d", n), fmt.Sprintf("rollout-2026-04-%02dT10-00-00-%s.jsonl", n, sid))
	writeFile(t, path, b.String())
	return path
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyText reports whether a recalled passage is an agent's call to
// Ireneo or Ireneo's answer (or harness plumbing), not anyone's words.
func copyText(role, text string) bool {
	return role == funes.RoleTool || strings.Contains(text, `{"query"`) || strings.Contains(text, "receipt: session_id=") ||
		strings.Contains(text, plumbing.ResultMarker) || strings.Contains(text, `"hits"`) || strings.Contains(text, "ZEPHYR")
}

func TestAgentsRecallCopiesStayOutOfRecall(t *testing.T) {
	ctx := context.Background()
	m := copiesMemory(t)
	srv := New(m, tokenstore.NewMemoryTokenStore(), Options{Logger: quietLogger(), validateOutput: true})
	tok, _, err := srv.Tokens().Create(ctx, "agent", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	overHTTP := connect(t, srv.URL(), tok)
	stdioSrv := New(m, nil, Options{Logger: quietLogger(), validateOutput: true})
	t.Cleanup(func() { stdioSrv.Close() })
	overStdio := stdioPipeClient(t, stdioSrv)

	dir := t.TempDir()
	n := 0
	imported := 0
	for i, f := range copyFacts {
		agents := []struct {
			harness, server string
			c               *client.Client
			as              answerAs
		}{
			{"claude_code", "ireneo", overHTTP, asText},
			{"claude_code", "memory", overStdio, asStructured},
			{"codex", "ireneo", []*client.Client{overHTTP, overStdio, overHTTP}[i], []answerAs{asText, asWhole, asStructured}[i]},
		}
		for _, a := range agents {
			n++
			res := callTool(t, a.c, ToolRecall, map[string]any{"query": f.query})
			if res.IsError {
				t.Fatalf("recall %q: %s", f.query, resultText(res))
			}
			answer := renderAnswer(t, res, a.as)
			if !strings.Contains(answer, plumbing.ResultMarker) {
				t.Fatalf("an answer without the marker: %.200s", answer)
			}
			at := copiesDay0.AddDate(0, 1, n)
			var path string
			if a.harness == "codex" {
				path = codexTranscript(t, dir, n, f.query, answer, f.agentAsk, f.answer, at)
			} else {
				extra := ""
				if n == 1 {
					extra = "Why does my log show <system-reminder>QUOTEZEPHYR</system-reminder> in the middle of my own message?"
				}
				path = claudeCodeTranscript(t, dir, n, a.server, f.query, answer, f.agentAsk, f.answer, extra, at)
			}
			sum, err := importers.Run(ctx, m, []string{path}, importers.Options{})
			if err != nil || sum.Failed > 0 || sum.New != 1 {
				t.Fatalf("import %s: %+v, %v", path, sum, err)
			}
			imported++
		}
	}
	if imported != 9 {
		t.Fatalf("%d agent sessions imported, want 9", imported)
	}

	for i, f := range copyFacts {
		own := fmt.Sprintf("fact-%d-1", i)
		// What an agent sees, over HTTP: the structured answer.
		var out RecallOutput
		structured(t, callTool(t, overHTTP, ToolRecall, map[string]any{"query": f.query, "top_k": 5}), &out)
		rank := 0
		for j, h := range out.Hits {
			t.Logf("%q %d: %s %s %q", f.query, j+1, h.SessionID, h.Role, h.Text)
			if copyText(h.Role, h.Text) {
				t.Errorf("%q: hit %d is a copy: %s %s %q", f.query, j+1, h.SessionID, h.Role, h.Text)
			}
			if h.TurnUUID == own && rank == 0 {
				rank = j + 1
			}
		}
		if rank < 1 || rank > 2 {
			t.Errorf("%q: the fact's own turn is at rank %d of %d, want 1 or 2", f.query, rank, len(out.Hits))
		}
		// The agents' own answers stay searchable.
		res, err := recall.Recall(ctx, m, recall.Options{Query: f.answer, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range res.Hits {
			found = found || h.Text == f.answer
		}
		if !found {
			t.Errorf("the agents' answer %q is not found", f.answer)
		}
	}

	// Harness plumbing is out of the index; a person quoting it is not.
	for q, want := range map[string]bool{"ZEPHYRREMINDER": false, "ZEPHYRSTDOUT": false, "QUOTEZEPHYR": true} {
		res, err := recall.Recall(ctx, m, recall.Options{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.Hits) > 0; got != want {
			t.Errorf("recall %q: %d hits, want found=%v", q, len(res.Hits), want)
		}
	}

	// src/ keeps every call and answer verbatim.
	var src strings.Builder
	err = filepath.WalkDir(filepath.Join(m.Dir(), memory.SrcDir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		src.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	all := src.String()
	for what, want := range map[string]int{
		plumbing.ResultMarker: 9, `"tool_name":"mcp__ireneo__recall"`: 12, `"tool_name":"mcp__memory__recall"`: 6,
		"ZEPHYRREMINDER": 6, "ZEPHYRSTDOUT": 6, "<environment_context>": 0,
	} {
		if got := strings.Count(all, what); got < want {
			t.Errorf("src/ holds %q %d times, want at least %d", what, got, want)
		}
	}
}

// plumbing knows Ireneo's tools by name and argument shape without
// importing this package: its list must be the tools' real arguments.
func TestPlumbingKnowsTheTools(t *testing.T) {
	for tool, args := range map[string]any{ToolRecall: RecallArgs{}, ToolGet: GetArgs{}, ToolSessions: SessionsArgs{}, ToolListProjects: ListProjectsArgs{}, ToolScan: ScanArgs{}, ToolInsights: InsightsArgs{}} {
		var names, required []string
		rt := reflect.TypeOf(args)
		for i := range rt.NumField() {
			name, opts, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			names = append(names, name)
			if opts != "omitempty" {
				required = append(required, name)
			}
		}
		got, n, ok := plumbing.ToolArguments(tool)
		if !ok {
			t.Errorf("plumbing does not know %s", tool)
			continue
		}
		slices.Sort(names)
		sorted := slices.Sorted(slices.Values(got))
		if !slices.Equal(sorted, names) || !slices.Equal(got[:n], required) {
			t.Errorf("%s: plumbing has %v (%d required), the tool takes %v (required %v)", tool, got, n, names, required)
		}
	}
}

// Every answer of every tool, text and structured, is known as Ireneo's.
func TestEveryAnswerIsMarked(t *testing.T) {
	ts := startTestServer(t, Options{})
	c := connect(t, ts.url, ts.full)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{ToolRecall, map[string]any{"query": "MT-4471"}},
		{ToolRecall, map[string]any{"query": "nothing-like-this-anywhere"}},
		{ToolGet, map[string]any{"session_id": "conv-alpha", "turn_uuid": "conv-alpha-u1"}},
		{ToolSessions, map[string]any{}},
		{ToolSessions, map[string]any{"query": "nothing-like-this-anywhere"}},
		{ToolListProjects, map[string]any{}},
	} {
		res := callTool(t, c, call.tool, call.args)
		if res.IsError {
			t.Fatalf("%s: %s", call.tool, resultText(res))
		}
		name := "mcp__anyname__" + call.tool
		args, _ := json.Marshal(call.args)
		if k := plumbing.Classify("assistant", "tool_use", name, string(args)); len(k) != 1 || k[0].Kind != plumbing.RecallCall {
			t.Errorf("%s %s: the call is not known: %+v", call.tool, args, k)
		}
		for as, text := range map[string]string{"text": renderAnswer(t, res, asText), "structured": renderAnswer(t, res, asStructured), "whole": renderAnswer(t, res, asWhole)} {
			if !strings.Contains(text, plumbing.ResultMarker) {
				t.Errorf("%s %s answer has no marker: %.120s", call.tool, as, text)
			}
			for _, tool := range []string{name, "", "Bash"} { // the name is no signal
				if k := plumbing.Classify("tool", "tool_result", tool, text); len(k) != 1 || k[0].Kind != plumbing.RecallResult {
					t.Errorf("%s %s answer (tool name %q) is not known as Ireneo's: %+v", call.tool, as, tool, k)
				}
			}
		}
	}
}

// get shows an agent's session with Ireneo's earlier answer and the
// harness plumbing collapsed to a line each, the call and the words as
// written.
func TestGetCollapsesPlumbing(t *testing.T) {
	ctx := context.Background()
	m := copiesMemory(t)
	s := New(m, nil, Options{Logger: quietLogger(), validateOutput: true})
	t.Cleanup(func() { s.Close() })
	c := stdioPipeClient(t, s)
	f := copyFacts[0]
	answer := resultText(callTool(t, c, ToolRecall, map[string]any{"query": f.query}))
	path := claudeCodeTranscript(t, t.TempDir(), 1, "ireneo", f.query, answer, f.agentAsk, f.answer, "", copiesDay0.AddDate(0, 1, 0))
	if _, err := importers.Run(ctx, m, []string{path}, importers.Options{}); err != nil {
		t.Fatal(err)
	}
	res := callTool(t, c, ToolGet, map[string]any{"session_id": uuidN(1), "window": 0, "token_budget": 4000})
	if res.IsError {
		t.Fatal(resultText(res))
	}
	var out GetOutput
	structured(t, res, &out)
	var all strings.Builder
	for _, tu := range out.Turns {
		all.WriteString(tu.Text + "\n")
	}
	text := all.String()
	t.Logf("get:\n%s", text)
	for _, want := range []string{"[recall result, not shown]", "[harness note, not shown]", `{"query":"` + f.query + `"}`, f.agentAsk, f.answer} {
		if !strings.Contains(text, want) {
			t.Errorf("get lacks %q:\n%s", want, text)
		}
	}
	for _, gone := range []string{"receipt: session_id=", "ZEPHYRREMINDER", "ZEPHYRSTDOUT"} {
		if strings.Contains(text, gone) {
			t.Errorf("get shows %q:\n%s", gone, text)
		}
	}
}
