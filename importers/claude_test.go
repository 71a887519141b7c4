package importers

import (
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

func TestClaudeHandmade(t *testing.T) {
	p := parseFile(t, ParseClaude, testdata("claude", "conversations.json"))
	if p.err != nil {
		t.Fatal(p.err)
	}
	if len(p.sessions) != 3 {
		t.Fatalf("%d sessions, want 3", len(p.sessions))
	}
	if len(p.skipped) != 1 || !strings.Contains(p.skipped[0], `conversation c-4 ("Broken")`) {
		t.Errorf("skipped = %q", p.skipped)
	}

	// content[] is indexed, not message.text (which glues the thinking onto
	// the answer); attachments' extracted content is a labelled text block;
	// an artifact is kept as its title and content.
	s := sessionByID(t, p.sessions, "c-1")
	if s.Harness != funes.HarnessClaude || s.Title != "Thinking and tools" {
		t.Errorf("session %q %q", s.Harness, s.Title)
	}
	checkTurns(t, s, []want{
		{"m1", "2026-03-02T09:00:00.5Z", "user", []funes.Block{
			txt("Summarize the attached file"),
			txt("[attachment: report.txt]\nQuarterly revenue grew 12%."),
			txt("[file: photo.png]"),
		}},
		{"m2", "2026-03-02T09:00:10Z", "assistant", []funes.Block{
			think("I should read it."),
			txt("The report says revenue grew."),
			use("web_search", `{"query":"revenue growth"}`),
			result("web_search", "Result one"),
			txt("Confirmed."),
		}},
		{"m3", "2026-03-02T09:01:00Z", "user", []funes.Block{txt("Make an artifact")}},
		{"m4", "2026-03-02T09:01:05Z", "assistant", []funes.Block{use("artifacts", "Plan\n\n# Plan\nStep 1")}},
	})

	// parent_message_uuid: the branch that reaches the last message; the
	// regenerated answer and the abandoned edit are not on it. No name: the
	// first user words.
	s = sessionByID(t, p.sessions, "c-2")
	if s.Title != "Which database should we use for the catalog?" {
		t.Errorf("title %q", s.Title)
	}
	checkTurns(t, s, []want{
		{"p1", "", "user", []funes.Block{txt("Which database should we use for the catalog?")}},
		{"p3", "", "assistant", []funes.Block{txt("Use Postgres.")}},
		{"p4", "", "user", []funes.Block{txt("Why Postgres?")}},
		{"p5", "", "assistant", []funes.Block{txt("Because of concurrency.")}},
	})

	// Old exports: text when content is empty or missing; a missing
	// created_at takes the previous time; a file without a uuid or name is
	// a bare placeholder; a voice note is text.
	s = sessionByID(t, p.sessions, "c-3")
	checkTurns(t, s, []want{
		{"o1", "2024-05-01T08:01:00Z", "user", []funes.Block{txt("Old style text only")}},
		{"o2", "2024-05-01T08:01:00Z", "assistant", []funes.Block{txt("Old answer"), txt("[file]")}},
		{"o3", "2024-05-01T08:05:00Z", "user", []funes.Block{txt("Memo\n\nSpoken memo text")}},
	})
}

func TestClaudeAPIShape(t *testing.T) {
	p := parseFile(t, ParseClaude, testdata("real", "claude-ai-conversation-api", "claude-bakery-chat.json"))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	if s.ID != "8006a434-8b0b-43df-8e6d-c0a7aeb2e6b3" || s.Title != "Interactive Bakery Comparison Visualization" {
		t.Errorf("session %s %q", s.ID, s.Title)
	}
	// Top-level text is "" while content[] holds the words; the image the
	// person attached is a placeholder.
	if len(s.Turns) != 4 || s.Turns[0].Role != "user" || s.Turns[1].Role != "assistant" ||
		!strings.HasPrefix(s.Turns[0].Blocks[0].Text, "Make an interactive visualization") ||
		s.Turns[0].Blocks[1] != txt("[image]") ||
		!strings.Contains(s.Turns[1].Blocks[0].Text, "<antArtifact") ||
		s.Turns[3].TurnUUID != "47e6dd5f-0e09-4063-8ab3-f155765ac9a1" ||
		s.Turns[0].TS.Format("2006-01-02T15:04:05.999999Z07:00") != "2024-10-29T15:59:38.340028Z" {
		t.Errorf("turns: %+v", s.Turns)
	}
}

func TestClaudeBadInput(t *testing.T) {
	for name, c := range map[string]struct{ data, want string }{
		"truncated":  {`[{"uuid":"a","chat_messages":[{"uuid":"m","text":"hi`, "unexpected end of JSON"},
		"wrong list": {`[{"a":1},{"b":2}]`, "wrong shape: no readable Claude conversation in 2 entries"},
		"memories":   {`{"conversations_memory":"x","account_uuid":"y"}`, "wrong shape"},
		"non-UTF-8":  {"[{\"uuid\":\"a\",\"name\":\"\xff\xfe\"}]", "not UTF-8"},
	} {
		t.Run(name, func(t *testing.T) {
			p := parseString(t, ParseClaude, name, c.data)
			if p.err == nil || !strings.Contains(p.err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", p.err, c.want)
			}
		})
	}
}
