package memory

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// benchAgentSession is an agent's session as imports meet it: file reads,
// a large JSON tool output, and recall answers quoting five conversations
// each, none of them forgotten.
func benchAgentSession() *funes.Session {
	s := &funes.Session{ID: "agent-bench", Harness: funes.HarnessClaudeCode, Title: "Bench"}
	file := strings.Repeat("   12→func main() { fmt.Println(\"hello, world\") }\n", 400)
	js := "{\"items\":[" + strings.Repeat(`{"id":"a1","session_id":"x","name":"pump seal","qty":4},`, 300) + `{}]}`
	var hits []quoteHit
	for i := range 5 {
		hits = append(hits, quoteHit{SessionID: fmt.Sprintf("kept-%d", i), TurnUUID: "t", Date: "2026-03-02 09:00 UTC", Source: funes.HarnessChatGPT,
			Role: funes.RoleUser, Text: strings.Repeat("The pump was replaced on Monday. ", 20)})
	}
	answer := mcpRecallText(hits)
	for i := range 40 {
		var b funes.Block
		switch i % 4 {
		case 0:
			b = funes.Block{Type: funes.BlockToolResult, Text: file, ToolName: "Read"}
		case 1:
			b = funes.Block{Type: funes.BlockToolResult, Text: js, ToolName: "mcp__github__search"}
		case 2:
			b = funes.Block{Type: funes.BlockToolResult, Text: answer, ToolName: "mcp__ireneo__recall"}
		default:
			b = funes.Block{Type: funes.BlockText, Text: strings.Repeat("The compressor trips because the seal is worn. ", 30)}
		}
		s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("t%d", i), Seq: i, TS: day0, Role: funes.RoleTool, Blocks: []funes.Block{b}})
	}
	return s
}

// BenchmarkImportForgottenQuotes is what an import pays per session to
// keep forgotten conversations' quotes out (with a tombstone in the
// memory, so receipts are looked up); compare it with
// BenchmarkImportForgottenQuotesFloor, the encoding every import does of
// the same session. The session is a bad case: another tool's JSON that
// names a session_id 300 times in each of ten results. On 2 busy cores
// (load 2.5): 0.20 ms against the floor's 1.41 ms, 14%; it was 0.53 ms
// (39%) before mayQuoteGone, classifying that JSON. Reading the CLI's text
// answers too (cliMayQuoteGone) costs 4%: 0.200-0.208 ms before, 0.209-0.217
// after, interleaved, against the floor's 1.68 ms (load 4.8).
func BenchmarkImportForgottenQuotes(b *testing.B) {
	m := openTest(b)
	mustIngest(b, m, conv("gone-1", funes.HarnessChatGPT, "Valve", "", day0, goneSaid))
	if _, err := m.Forget(context.Background(), []string{"gone-1"}, nil); err != nil {
		b.Fatal(err)
	}
	s := benchAgentSession()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.eraseForgottenQuotes(context.Background(), m.db, s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkImportForgottenQuotesFloor(b *testing.B) {
	s := benchAgentSession()
	for b.Loop() {
		if _, err := funes.MarshalSession(s); err != nil {
			b.Fatal(err)
		}
	}
}
