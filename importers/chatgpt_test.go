package importers

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/plumbing"
)

func TestChatGPTHandmade(t *testing.T) {
	p := parseFile(t, ParseChatGPT, testdata("chatgpt", "conversations.json"))
	if p.err != nil {
		t.Fatal(p.err)
	}
	if len(p.sessions) != 3 {
		t.Fatalf("%d sessions, want 3", len(p.sessions))
	}
	// conv-bad (mapping is a string) and conv-empty are skipped and named;
	// the rest of the export is imported.
	if len(p.skipped) != 2 || !strings.Contains(p.skipped[0], "conv-bad") || !strings.Contains(p.skipped[0], `wrong shape: field "mapping" is a string, not an object`) ||
		!strings.Contains(p.skipped[1], "conv-empty") || !strings.Contains(p.skipped[1], "no visible messages") {
		t.Errorf("skipped = %q", p.skipped)
	}

	s := sessionByID(t, p.sessions, "conv-branch")
	if s.Harness != funes.HarnessChatGPT || s.Title != "Branches and blocks" || s.Project != "" {
		t.Errorf("session = %q %q %q", s.Harness, s.Title, s.Project)
	}
	// The branch is current_node's: the abandoned "OLD ANSWER" is not on it.
	// Hidden system nodes, custom instructions, the empty placeholder, a
	// tool node with null content and a message with null parts are left out.
	checkTurns(t, s, []want{
		{"u1", "2023-11-14T22:13:20Z", "user", []funes.Block{txt("What is the tallest mountain?"), txt("[attachment: notes.pdf]")}},
		{"th1", "2023-11-14T22:13:45Z", "assistant", []funes.Block{think("Recall facts\n\nEverest is 8849 m.")}},
		{"rr1", "2023-11-14T22:13:50Z", "assistant", []funes.Block{think("Thought for 7s")}},
		// Citation markup stripped, entity kept by name; update_time earlier
		// than create_time and a missing status are tolerated.
		{"a2", "2023-11-14T22:14:00Z", "assistant", []funes.Block{txt("Mount Everest is the tallest. I like the Kia Optima.")}},
		// No create_time: the previous turn's time. Image and audio become
		// placeholders; the audio transcription is the person's words.
		{"u2", "2023-11-14T22:14:00Z", "user", []funes.Block{txt("[image]"), txt("Draw it"), txt("spoken words here"), txt("[audio]")}},
		{"c1", "2023-11-14T22:14:10Z", "assistant", []funes.Block{use("python", "print(8849)")}},
		{"o1", "2023-11-14T22:14:11Z", "tool", []funes.Block{result("python", "8849")}},
		{"img1", "2023-11-14T22:14:20Z", "tool", []funes.Block{txt("[generated image]")}},
		{"cv1", "2023-11-14T22:14:30Z", "assistant", []funes.Block{use("canmore.create_textdoc", "doc\n\nCanvas body")}},
		{"a3", "2023-11-14T22:15:00Z", "assistant", []funes.Block{txt("Done.")}},
	})
	for _, tu := range s.Turns {
		for _, b := range tu.Blocks {
			if strings.Contains(b.Text, "SECRET-INSTRUCTIONS") || strings.Contains(b.Text, "OLD ANSWER") || strings.ContainsRune(b.Text, '\ue200') {
				t.Errorf("turn %d holds %q", tu.Seq, b.Text)
			}
		}
	}

	// current_node missing from the mapping: the newest leaf; null title:
	// the first user words; a ChatGPT Project: a placeholder project.
	s = sessionByID(t, p.sessions, "conv-nocurrent")
	if s.Title != "Plan a trip to Lisbon next spring please" || s.Project != "chatgpt-project-01234567" {
		t.Errorf("title %q project %q", s.Title, s.Project)
	}
	checkTurns(t, s, []want{
		{"q", "", "user", []funes.Block{txt("Plan a trip to Lisbon next spring please")}},
		{"aB", "", "assistant", []funes.Block{txt("Answer B")}},
	})

	// A custom GPT is not a project; old-style citations are stripped.
	s = sessionByID(t, p.sessions, "conv-gpt")
	if s.Project != "" {
		t.Errorf("custom GPT project %q", s.Project)
	}
	checkTurns(t, s, []want{
		{"h", "", "user", []funes.Block{txt("Hello GPT")}},
		{"g", "", "assistant", []funes.Block{txt("Hi there【11†source】!")}},
	})
}

func TestChatGPTTopLevelShapes(t *testing.T) {
	one := `{"title":"T","create_time":1700000000,"mapping":{"r":{"id":"r","message":null,"parent":null,"children":["u"]},` +
		`"u":{"id":"u","message":{"id":"u","author":{"role":"user"},"create_time":1700000001,"content":{"content_type":"text","parts":["hi"]}},"parent":"r","children":[]}},` +
		`"current_node":"u","id":"c1"}`
	for name, data := range map[string]string{
		"array":   "[" + one + "]",
		"wrapped": `{"export":"x","conversations":[` + one + `],"extra":[1,2]}`,
		"single":  one,
		"bom":     "\ufeff[" + one + "]",
	} {
		t.Run(name, func(t *testing.T) {
			p := parseString(t, ParseChatGPT, name, data)
			if p.err != nil || len(p.sessions) != 1 || p.sessions[0].ID != "c1" || p.sessions[0].Turns[0].Blocks[0].Text != "hi" {
				t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
			}
		})
	}
}

func TestChatGPTBadInput(t *testing.T) {
	for name, c := range map[string]struct{ data, want string }{
		"truncated":    {`[{"title":"T","mapping":{"r":{"id":"r"`, "offset 38: unexpected end of JSON (the file is truncated)"},
		"syntax":       {`[{"title":"T",,}]`, "invalid JSON"},
		"not a list":   {`"just a string"`, "wrong shape"},
		"numbers":      {`[1,2,3]`, "wrong shape: no readable ChatGPT conversation in 3 entries"},
		"other object": {`{"user":"ana"}`, "wrong shape"},
		"empty file":   {``, "wrong shape: the file is empty"},
		"non-UTF-8":    {"[{\"title\":\"caf\xe9\",\"mapping\":{}}]", "offset 14: not UTF-8"},
		"trailing":     {`[] []`, "data after the end"},
	} {
		t.Run(name, func(t *testing.T) {
			p := parseString(t, ParseChatGPT, name, c.data)
			if p.err == nil || !strings.Contains(p.err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", p.err, c.want)
			}
		})
	}
	// An empty list is a well-formed, empty export: no error, no sessions.
	if p := parseString(t, ParseChatGPT, "empty", "[]"); p.err != nil || len(p.sessions) != 0 {
		t.Errorf("[] gave %v, %d sessions", p.err, len(p.sessions))
	}
}

func TestChatGPTConversationCap(t *testing.T) {
	defer func(v int64) { maxConversationBytes = v }(maxConversationBytes)
	maxConversationBytes = 1 << 16
	big := `[{"title":"` + strings.Repeat("a", 1<<18) + `","mapping":{}}]`
	p := parseString(t, ParseChatGPT, "big", big)
	if p.err == nil || !strings.Contains(p.err.Error(), "larger than") {
		t.Fatalf("err = %v", p.err)
	}
}

func TestStripCitations(t *testing.T) {
	for in, out := range map[string]string{
		"plain":                                  "plain",
		"a\ue200filecite\ue202turn0file0\ue201b": "ab",
		"x \ue200entity\ue202[\"city\",\"Lisbon\"]\ue201 y": "x Lisbon y",
		"open \ue200 never closed":                          "open  never closed",
		"old【3:0†source】 style【12†report.pdf】":              "old【3:0†source】 style【12†report.pdf】",
		"L0: # 【0†Tallest mountains†example.com】":           "L0: # 【0†Tallest mountains†example.com】",
	} {
		if got := stripCitations(in); got != out {
			t.Errorf("stripCitations(%q) = %q, want %q", in, got, out)
		}
	}
}

// Hostile text must cost linear time: a quadratic scan of these would take
// minutes, so a regression shows as a hung test, not a flaky timing.
func TestTextCleanersAreLinear(t *testing.T) {
	opens := strings.Repeat("\ue200x", 1<<18)
	if got := stripCitations(opens); got != strings.Repeat("x", 1<<18) {
		t.Errorf("unclosed markers: %d bytes left", len(got))
	}
	pairs := strings.Repeat("\ue200cite\ue202t\ue201", 1<<17)
	if got := stripCitations("a" + pairs + "b"); got != "ab" {
		t.Errorf("closed markers: %q", got[:min(len(got), 40)])
	}
	rem := strings.Repeat("<system-reminder>", 1<<16) + "text"
	if got := plumbing.SaidText("user", "text", "", rem); !strings.HasSuffix(got, "text") {
		t.Errorf("unclosed reminders lost the text")
	}
	if got := stripCitations(strings.Repeat("【1†", 1<<16)); got == "" {
		t.Errorf("old-style opens lost the text")
	}
}

func TestPlainJSONString(t *testing.T) {
	for _, raw := range []string{`"plain"`, `""`, `"with \"quote\""`, `"tab\there"`, `"é ✓ \u00e9"`, `"\\"`, `7`, `{}`} {
		var want string
		wantOK := json.Unmarshal([]byte(raw), &want) == nil
		got, ok := plainJSONString(json.RawMessage(raw))
		if ok && (!wantOK || got != want) {
			t.Errorf("plainJSONString(%s) = %q, want %q", raw, got, want)
		}
	}
}
