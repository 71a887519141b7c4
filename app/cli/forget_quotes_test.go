package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers/transcripttest"
	"github.com/ireneo-app/ireneo/memory"
)

// What a forget erases includes Ireneo's own answers that quoted the
// conversation: an agent that recalled it over MCP has the answer in its
// transcript, and the transcript is imported too. End to end: the real
// server answers, the answers are written into a Claude Code 2.1 and a
// Codex 0.104 transcript as those harnesses record them, the real
// importers bring them in, `ireneo forget` erases the conversation, and no
// file of the memory holds its words.

const (
	// Lowercase and one token, so the index (which lowercases) would show
	// it too if it kept it.
	forgetQToken = "azimuthquotegone"
	keptQToken   = "borealquotekept"
	agentOwn     = "Per your notes the K-2 compressor needs a new seal and the spare is ordered. AGENTOWNWORDS"
)

func quotesSeed(t *testing.T, dir string) {
	t.Helper()
	ts := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	ss := []*funes.Session{
		chatSession("conv-gone", "Compressor seal", "", ts, "The K-2 compressor seal is worn; the code for the spare is "+forgetQToken+" and Priya orders it."),
		chatSession("conv-kept", "Compressor spare", "", ts.AddDate(0, 0, 1), "The K-2 compressor spare is "+keptQToken+", ordered on Monday."),
	}
	storeSessions(t, dir, ss...)
}

func callIreneo(t *testing.T, c *client.Client, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("%s %v: %v %+v", tool, args, err, res)
	}
	return res
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ccTranscript is an agent session as Claude Code 2.1.7 records it: the
// person's question, the tool_use of mcp__ireneo__recall, the tool_result
// whose content list holds Ireneo's text answer (and the same in
// toolUseResult), a get for one hit, the CLI's `recall --json` run through
// Bash, and the agent's own answer.
func ccTranscript(t *testing.T, dir, sid, recallAnswer, getAnswer, cliAnswer string, at time.Time) string {
	c := transcripttest.NewClaudeCode(t, sid, "/home/ana/plant", at)
	c.User("What did we settle about the K-2 compressor seal?", nil)
	c.ToolCall("msg_01a", "toolu_01", "mcp__ireneo__recall", map[string]any{"query": "K-2 compressor"}, recallAnswer)
	c.ToolCall("msg_01b", "toolu_02", "mcp__ireneo__get", map[string]any{"session_id": "conv-gone", "turn_uuid": "conv-gone-0"}, getAnswer)
	bashRun(c, "msg_01d", "toolu_03", shellRun{"ireneo recall --json K-2 compressor", cliAnswer}, "Search memory")
	c.Assistant("msg_01c", transcripttest.Text(agentOwn))
	return c.Write(filepath.Join(dir, "claude", "projects"), "-home-ana-plant")
}

// bashRun appends a Bash tool_use and its tool_result as Claude Code 2.1
// records a shell run: the stdout as the result's content, and in
// toolUseResult.
func bashRun(c *transcripttest.ClaudeCode, msgID, toolID string, r shellRun, description string) {
	c.Assistant(msgID, map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": map[string]any{"command": r.command, "description": description}})
	c.User([]any{map[string]any{"tool_use_id": toolID, "type": "tool_result", "content": r.stdout, "is_error": false}},
		map[string]any{"toolUseResult": map[string]any{"stdout": r.stdout, "stderr": "", "interrupted": false, "isImage": false}})
}

// codexRollout is an agent session as a Codex 0.104 rollout, whose
// function_call_output holds the whole MCP result as JSON (text content
// and structuredContent both quote the conversation).
func codexRollout(t *testing.T, dir, sid, output string, at time.Time) string {
	c := transcripttest.NewCodex(t, sid, "/home/ana/plant", at, nil)
	c.Ask("Which spare did we order for the K-2 compressor?")
	c.Line("turn_context", map[string]any{"cwd": "/home/ana/plant", "approval_policy": "on-request", "model": "gpt-5-codex"})
	c.Call("call_01", "mcp__ireneo__recall", `{"query":"K-2 compressor"}`, output)
	c.Answer(agentOwn)
	return c.Write(filepath.Join(dir, "codex", "sessions", "2026", "04", "02", "rollout-2026-04-02T10-00-00-"+sid+".jsonl"))
}

func TestForgetErasesQuotesInAgentTranscripts(t *testing.T) {
	_, mem := mcpEnv(t)
	quotesSeed(t, mem)
	m := "--memory=" + mem
	code, out, errs := ireneo(t, m, "token", "create", "agent", "--json", "--token-store", "file")
	if code != 0 {
		t.Fatalf("create: %s", errs)
	}
	var created struct{ Secret string }
	json.Unmarshal([]byte(out), &created)
	c := mcpClient(t, startServe(t, m, "--token-store", "file"), created.Secret)

	res := callIreneo(t, c, "recall", map[string]any{"query": "K-2 compressor"})
	recallAnswer := toolText(res)
	if !strings.Contains(recallAnswer, forgetQToken) || !strings.Contains(recallAnswer, keptQToken) {
		t.Fatalf("recall should quote both conversations:\n%s", recallAnswer)
	}
	getAnswer := toolText(callIreneo(t, c, "get", map[string]any{"session_id": "conv-gone", "turn_uuid": "conv-gone-0"}))
	code, cliAnswer, errs := ireneo(t, m, "recall", "--json", "K-2 compressor")
	if code != 0 || !strings.Contains(cliAnswer, forgetQToken) {
		t.Fatalf("ireneo recall --json: %d %s %s", code, cliAnswer, errs)
	}
	whole, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}

	harness := t.TempDir()
	at := time.Date(2026, 4, 2, 10, 0, 0, 0, time.UTC)
	ccSID, cxSID := "5d1f0c7e-1111-4222-8333-444455556666", "019c8a70-dda7-7f33-98ea-f30553347322"
	paths := []string{ccTranscript(t, harness, ccSID, recallAnswer, getAnswer, cliAnswer, at), codexRollout(t, harness, cxSID, string(whole), at)}
	if code, out, errs := ireneo(t, append([]string{m, "import", "--no-scrub"}, paths...)...); code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	if found := grepMemory(t, mem, forgetQToken); len(found) < 2 {
		t.Fatalf("before the forget the token should be in the agents' files too, found in %v", found)
	}

	code, out, errs = ireneo(t, m, "forget", "--yes", "conv-gone")
	if code != 0 {
		t.Fatalf("forget: %d %s %s", code, out, errs)
	}
	// In Claude Code's: recall's hit, get's answer, and the CLI's hit and
	// its context block's copy; in Codex's: the text and the structured
	// copy of the hit.
	if !strings.Contains(out, "erased 6 quotes of them from 2 other conversations") {
		t.Fatalf("forget output does not say what it erased from other conversations:\n%s", out)
	}
	if found := grepMemory(t, mem, forgetQToken); len(found) > 0 {
		t.Fatalf("the forgotten conversation's text is still in %v", found)
	}
	// The positive control: the same grep finds the kept conversation's
	// token in each agent's file, quoted in the same answer.
	kept := grepMemory(t, mem, keptQToken)
	for _, sid := range []string{ccSID, cxSID} {
		inFile := false
		for _, p := range kept {
			if strings.Contains(p, string(filepath.Separator)+memory.SrcDir+string(filepath.Separator)) && strings.Contains(filepath.Base(p), sid[:8]) {
				inFile = true
				data, _ := os.ReadFile(p)
				if !bytes.Contains(data, []byte(agentOwn)) {
					t.Errorf("%s lost the agent's own words", p)
				}
			}
		}
		if !inFile {
			t.Errorf("the kept conversation's quote is gone from %s's file too (found in %v)", sid, kept)
		}
	}

	// The watcher imports the transcripts again as the harnesses keep
	// them, with the original answers: the quotes stay erased.
	if code, out, errs := ireneo(t, append([]string{m, "import", "--no-scrub"}, paths...)...); code != 0 {
		t.Fatalf("re-import: %d %s %s", code, out, errs)
	}
	if found := grepMemory(t, mem, forgetQToken); len(found) > 0 {
		t.Fatalf("a re-import brought the forgotten text back in %v", found)
	}
	// The agents' own words are still found.
	if _, out, _ := ireneo(t, m, "recall", "AGENTOWNWORDS"); !strings.Contains(out, "AGENTOWNWORDS") {
		t.Fatalf("recall of the agent's words:\n%s", out)
	}
}
