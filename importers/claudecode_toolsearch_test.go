package importers

import (
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/plumbing"
)

// Claude Code 2.1.3xx defers MCP tools: the model calls ToolSearch, whose
// result is a list of tool_reference blocks and no text (the shape of the
// real records, issue 29), then the tool it loaded. Before, the result was
// dropped at import while the call was kept.
func TestClaudeCodeToolSearchResult(t *testing.T) {
	const rec = `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/ana/src/plant","sessionId":"7c3e0a61-5d2b-4e8f-9a1c-000000000301","version":"2.1.318","gitBranch":"main","type":"user","message":{"role":"user","content":"what did we decide about the K-2 compressor?"},"uuid":"ts-u1","timestamp":"2026-11-20T10:16:15.100Z"}
{"parentUuid":"ts-u1","isSidechain":false,"userType":"external","cwd":"/home/ana/src/plant","sessionId":"7c3e0a61-5d2b-4e8f-9a1c-000000000301","version":"2.1.318","gitBranch":"main","message":{"model":"claude-opus-4-5","id":"msg_01TS","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01TS","name":"ToolSearch","input":{"query":"select:mcp__ireneo__recall","max_results":1},"caller":{"type":"direct"}}],"stop_reason":"tool_use"},"requestId":"req_01TS","type":"assistant","uuid":"ts-a1","timestamp":"2026-11-20T10:16:17.900Z"}
{"parentUuid":"ts-a1","isSidechain":false,"userType":"external","cwd":"/home/ana/src/plant","sessionId":"7c3e0a61-5d2b-4e8f-9a1c-000000000301","version":"2.1.318","gitBranch":"main","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01TS","content":[{"type":"tool_reference","tool_name":"mcp__ireneo__recall"}]}]},"uuid":"ts-r1","timestamp":"2026-11-20T10:16:18.302Z","toolUseResult":{"matches":["mcp__ireneo__recall"],"query":"select:mcp__ireneo__recall","total_deferred_tools":14},"sourceToolAssistantUUID":"ts-a1"}
{"parentUuid":"ts-r1","isSidechain":false,"userType":"external","cwd":"/home/ana/src/plant","sessionId":"7c3e0a61-5d2b-4e8f-9a1c-000000000301","version":"2.1.318","gitBranch":"main","message":{"model":"claude-opus-4-5","id":"msg_02TS","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_02TS","name":"mcp__ireneo__recall","input":{"query":"K-2 compressor decision"},"caller":{"type":"direct"}}],"stop_reason":"tool_use"},"requestId":"req_02TS","type":"assistant","uuid":"ts-a2","timestamp":"2026-11-20T10:16:20.000Z"}
{"parentUuid":"ts-a2","isSidechain":false,"userType":"external","cwd":"/home/ana/src/plant","sessionId":"7c3e0a61-5d2b-4e8f-9a1c-000000000301","version":"2.1.318","gitBranch":"main","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_02TS","content":[{"type":"text","text":"[ireneo-result] Past conversations matching \"K-2 compressor decision\"…"}]}]},"uuid":"ts-r2","timestamp":"2026-11-20T10:16:21.000Z"}
{"parentUuid":"ts-r2","isSidechain":false,"userType":"external","cwd":"/home/ana/src/plant","sessionId":"7c3e0a61-5d2b-4e8f-9a1c-000000000301","version":"2.1.318","gitBranch":"main","message":{"model":"claude-opus-4-5","id":"msg_03TS","type":"message","role":"assistant","content":[{"type":"text","text":"On 12 October you chose the two-stage K-2."}],"stop_reason":"end_turn"},"requestId":"req_03TS","type":"assistant","uuid":"ts-a3","timestamp":"2026-11-20T10:16:25.000Z"}
`
	p := parseString(t, ParseClaudeCode, "7c3e0a61-5d2b-4e8f-9a1c-000000000301.jsonl", rec)
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	checkTurns(t, s, []want{
		{"ts-u1", "", "user", []funes.Block{txt("what did we decide about the K-2 compressor?")}},
		{"ts-a1", "", "assistant", []funes.Block{use("ToolSearch", `{"query":"select:mcp__ireneo__recall","max_results":1}`)}},
		{"ts-r1", "", "tool", []funes.Block{result("ToolSearch", "[tool_reference mcp__ireneo__recall]")}},
		{"ts-a2", "", "assistant", []funes.Block{use("mcp__ireneo__recall", `{"query":"K-2 compressor decision"}`)}},
		{"ts-r2", "", "tool", []funes.Block{result("mcp__ireneo__recall", "[ireneo-result] Past conversations matching \"K-2 compressor decision\"…")}},
		{"ts-a3", "", "assistant", []funes.Block{txt("On 12 October you chose the two-stage K-2.")}},
	})
	// The loading of Ireneo's tool is the harness at work, not a recall:
	// it stays searchable as any tool result; the recall and its answer
	// stay out of the index.
	b := s.Turns[4].Blocks[0]
	if !plumbing.Plumbing(s.Turns[4].Role, b.Type, b.ToolName, b.Text) {
		t.Errorf("Ireneo's answer after ToolSearch is searchable")
	}
	if u := s.Turns[3].Blocks[0]; !plumbing.Plumbing(s.Turns[3].Role, u.Type, u.ToolName, u.Text) {
		t.Errorf("the recall call after ToolSearch is searchable")
	}
	// A result mixing text and references keeps both, in order.
	mixed := contentText([]byte(`[{"type":"text","text":"Loaded:"},{"type":"tool_reference","tool_name":"Agent"},{"type":"text","text":"Use it for child work."}]`))
	if mixed != "Loaded:\n[tool_reference Agent]\nUse it for child work." || strings.Contains(mixed, "{") {
		t.Errorf("mixed result: %q", mixed)
	}
}
