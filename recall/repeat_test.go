package recall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/importers/transcripttest"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// Issue 27's repeated question, end to end: a conversation says "the heron
// migration uses port 6412"; the person asks "what port does the heron
// migration use?" in three agent sessions, and each agent calls Ireneo's
// real MCP server and answers from what it got. Each session is written in
// the client's own transcript format and imported by the real importers. On
// the fourth ask the answer, not an earlier copy of the question, is first.

const (
	heronAsk    = "what port does the heron migration use?"
	heronAnswer = "6412"
)

var heronDay0 = time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)

func TestRepeatedQuestionFindsTheAnswer(t *testing.T) {
	for _, client := range []string{funes.HarnessClaudeCode, funes.HarnessCodex} {
		t.Run(client, func(t *testing.T) {
			ctx := context.Background()
			m, err := memory.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			if _, err := m.Ingest(ctx, heronMemory(), memory.IngestOptions{}); err != nil {
				t.Fatal(err)
			}
			c := mcpClient(t, m)
			dir := t.TempDir()
			// The agents pass the question on as it was asked, or cut to
			// its key words: both, as real agents do.
			queries := []string{heronAsk, "heron migration port", heronAsk}
			for i, q := range queries {
				answer := callRecall(t, c, q)
				said := "Recall found nothing useful."
				if first := firstPassage(answer); strings.Contains(first, heronAnswer) {
					said = "The heron migration uses port " + heronAnswer + ", per your earlier conversation."
				}
				at := heronDay0.AddDate(0, 0, 7*(i+1))
				var path string
				if client == funes.HarnessCodex {
					path = codexSession(t, dir, i+1, heronAsk, q, answer, said, at)
				} else {
					path = claudeCodeSession(t, dir, i+1, heronAsk, q, answer, said, at)
				}
				sum, err := importers.Run(ctx, m, []string{path}, importers.Options{})
				if err != nil || sum.New != 1 {
					t.Fatalf("import session %d: %v %+v", i+1, err, sum)
				}
			}
			// The fourth ask, for the same question and for its key words.
			for _, q := range []string{heronAsk, "heron migration port"} {
				for _, k := range []int{3, 10} {
					res, err := recall.Recall(ctx, m, recall.Options{Query: q, K: k})
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Text, heronAnswer) {
						t.Fatalf("%q, K %d: first hit %+v, want the answer", q, k, res.Hits)
					}
					asked := 0
					for _, h := range res.Hits {
						if strings.EqualFold(strings.TrimSpace(h.Text), heronAsk) {
							asked++
						}
					}
					if asked > 1 {
						t.Errorf("%q, K %d: the question shown %d times, want it once with its copies", q, k, asked)
					}
				}
			}
			// Control: without the stage the person's copies come first.
			tn := recall.DefaultTuning
			tn.Echo, tn.FoldCopies = 0, false
			res, err := recall.Recall(ctx, m, recall.Options{Query: heronAsk, K: 3, Tuning: &tn})
			if err != nil || len(res.Hits) == 0 || strings.Contains(res.Hits[0].Text, heronAnswer) {
				t.Fatalf("control: %v, first hit %+v", err, res.Hits)
			}
		})
	}
}

// heronMemory is the conversation that settled the port, among other
// work talk that shares the question's words.
func heronMemory() []*funes.Session {
	turn := func(id string, seq int, at time.Time, role, text string) funes.Turn {
		return funes.Turn{TurnUUID: fmt.Sprintf("%s-%d", id, seq), Seq: seq, TS: at, Role: role, Blocks: []funes.Block{{Type: funes.BlockText, Text: text}}}
	}
	ss := []*funes.Session{{ID: "heron-plan", Harness: funes.HarnessClaude, Title: "Heron migration", Turns: []funes.Turn{
		turn("heron-plan", 0, heronDay0, funes.RoleUser, "Let's settle the details of the heron migration before Friday: the window, the port and who watches it."),
		turn("heron-plan", 1, heronDay0.Add(time.Minute), funes.RoleAssistant, "Here is the plan. The heron migration uses port 6412, it runs after the nightly backup, and Ines watches the first hour."),
	}}}
	topics := []string{"the billing export", "a flaky test", "the release notes", "the staging database", "the on-call rota",
		"the port forwarding on my laptop", "the data migration for the reports", "which port the metrics agent listens on"}
	for i := range 160 {
		id, at := fmt.Sprintf("work-%03d", i), heronDay0.AddDate(0, 0, -60).Add(time.Duration(i)*7*time.Hour)
		tp := topics[i%len(topics)]
		ss = append(ss, &funes.Session{ID: id, Harness: funes.HarnessChatGPT, Title: "Work", Turns: []funes.Turn{
			turn(id, 0, at, funes.RoleUser, fmt.Sprintf("What does the team use for %s, and what should I check first?", tp)),
			turn(id, 1, at.Add(time.Minute), funes.RoleAssistant, fmt.Sprintf("For %s the usual first step is to see what changed last, then check the logs and the dashboards.", tp)),
		}})
	}
	return ss
}

// mcpClient is a real MCP client connected over loopback HTTP to a real
// Ireneo server over m.
func mcpClient(t *testing.T, m *memory.Memory) *client.Client {
	t.Helper()
	srv := mcpserver.New(m, tokenstore.NewMemoryTokenStore(), mcpserver.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	tok, _, err := srv.Tokens().Create(context.Background(), "agent", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	tr, err := transport.NewStreamableHTTP(srv.URL(), transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "ireneo-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

// callRecall asks the recall tool, as an agent would, and returns the text
// the agent's transcript records.
func callRecall(t *testing.T, c *client.Client, q string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = mcpserver.ToolRecall
	req.Params.Arguments = map[string]any{"query": q, "top_k": 3}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("recall %q: %v %+v", q, err, res)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// firstPassage is the first hit's part of a recall answer's text: what an
// agent reads first.
func firstPassage(answer string) string {
	if i := strings.Index(answer, "\n[2]"); i > 0 {
		return answer[:i]
	}
	return answer
}

// claudeCodeSession writes one agent session as Claude Code 2.1 records it:
// the person's prompt, the assistant's tool_use of mcp__ireneo__recall, the
// tool_result with Ireneo's answer, and the agent's reply.
func claudeCodeSession(t *testing.T, dir string, n int, ask, query, result, reply string, at time.Time) string {
	t.Helper()
	c := transcripttest.NewClaudeCode(t, transcripttest.UUID(n), "/home/ana/heron", at)
	c.User(ask, nil)
	c.ToolCall(fmt.Sprintf("msg_%da", n), fmt.Sprintf("toolu_%08d", n), "mcp__ireneo__recall", map[string]any{"query": query}, result)
	c.Assistant(fmt.Sprintf("msg_%db", n), transcripttest.Text(reply))
	return c.Write(filepath.Join(dir, ".claude", "projects"), "-home-ana-heron")
}

// codexSession writes one agent session as a Codex rollout: the session
// meta, the environment preamble, the person's prompt (as response item and
// as event), a function_call of mcp__ireneo__recall, its output and the
// agent's reply (as response item and as event).
func codexSession(t *testing.T, dir string, n int, ask, query, result, reply string, at time.Time) string {
	t.Helper()
	sid := transcripttest.UUID(n)
	c := transcripttest.NewCodex(t, sid, "/home/ana/heron", at, nil)
	c.Message("user", "input_text", "<environment_context>\n  <cwd>/home/ana/heron</cwd>\n  <shell>bash</shell>\n</environment_context>")
	c.Ask(ask)
	c.Line("turn_context", map[string]any{"cwd": "/home/ana/heron", "approval_policy": "on-request", "model": "gpt-5-codex"})
	args, _ := json.Marshal(map[string]any{"query": query})
	c.Call(fmt.Sprintf("call_%08d", n), "mcp__ireneo__recall", string(args), result)
	c.Answer(reply)
	day := at.Format("2006/01/02")
	return c.Write(filepath.Join(dir, ".codex", "sessions", filepath.FromSlash(day), fmt.Sprintf("rollout-%s-%s.jsonl", at.Format("2006-01-02T15-04-05"), sid)))
}
