package importers

import (
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// A 2024 Claude.ai bulk export: chat_messages (no parent links) stored out
// of time order, a question and its answer sharing one created_at.
const claudeOutOfOrder = `[{"uuid":"0f1e2d3c-0000-4000-8000-00000000c024","name":"Sourdough schedule",
"created_at":"2024-04-02T08:00:00.000000Z","updated_at":"2024-04-02T08:30:00.000000Z",
"account":{"uuid":"acc-1"},"chat_messages":[
{"uuid":"m-3","text":"","content":[{"type":"text","text":"Feed it at 8 pm.","start_timestamp":"2024-04-02T08:10:00.000000Z"}],"sender":"assistant","created_at":"2024-04-02T08:10:00.000000Z","updated_at":"2024-04-02T08:10:00.000000Z","attachments":[],"files":[]},
{"uuid":"m-1","text":"","content":[{"type":"text","text":"When do I feed the starter?"}],"sender":"human","created_at":"2024-04-02T08:00:00.000000Z","updated_at":"2024-04-02T08:00:00.000000Z","attachments":[],"files":[]},
{"uuid":"m-4","text":"","content":[{"type":"text","text":"Thanks, and the bake?"}],"sender":"human","created_at":"2024-04-02T08:20:00.000000Z","updated_at":"2024-04-02T08:20:00.000000Z","attachments":[],"files":[]},
{"uuid":"m-2","text":"","content":[{"type":"text","text":"Evening or morning?"}],"sender":"human","created_at":"2024-04-02T08:10:00.000000Z","updated_at":"2024-04-02T08:10:00.000000Z","attachments":[],"files":[]},
{"uuid":"m-5","text":"","content":[{"type":"text","text":"Bake at 9 am."}],"sender":"assistant","created_at":"2024-04-02T08:21:00.000000Z","updated_at":"2024-04-02T08:21:00.000000Z","attachments":[],"files":[]},
{"uuid":"m-0","text":"","content":[{"type":"text","text":"Hello."}],"sender":"assistant","created_at":"2024-04-02T08:00:00.000000Z","updated_at":"2024-04-02T08:00:00.000000Z","attachments":[],"files":[]}
]}]`

func TestClaudeTimeOrder(t *testing.T) {
	p := parseString(t, ParseClaude, "conversations.json", claudeOutOfOrder)
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	checkTurns(t, s, []want{
		{"m-1", "2024-04-02T08:00:00Z", "user", []funes.Block{txt("When do I feed the starter?")}},
		{"m-0", "2024-04-02T08:00:00Z", "assistant", []funes.Block{txt("Hello.")}},
		{"m-2", "2024-04-02T08:10:00Z", "user", []funes.Block{txt("Evening or morning?")}},
		{"m-3", "2024-04-02T08:10:00Z", "assistant", []funes.Block{txt("Feed it at 8 pm.")}},
		{"m-4", "2024-04-02T08:20:00Z", "user", []funes.Block{txt("Thanks, and the bake?")}},
		{"m-5", "2024-04-02T08:21:00Z", "assistant", []funes.Block{txt("Bake at 9 am.")}},
	})
	if !s.Started().Equal(time.Date(2024, 4, 2, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("started %v", s.Started())
	}
}
