package answer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerminal(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\n\twith a tab":                 "plain text\n\twith a tab",
		"café · 東京 🎉 ‹tool_use› ▁▂ ← …":            "café · 東京 🎉 ‹tool_use› ▁▂ ← …",
		"\x1b[2Jcleared":                           `\x1b[2Jcleared`,
		"\x1b]52;c;ZXZpbA==\x07":                   `\x1b]52;c;ZXZpbA==\a`,
		"over\rwrite":                              `over\rwrite`,
		"del\x7f nul\x00 bs\b":                     `del\x7f nul\x00 bs\b`,
		"c1 csi \u009b2J":                          `c1 csi \u009b2J`,
		"bad \xff\xfe byte, cut \xe6\x9d":          `bad \xff\xfe byte, cut \xe6\x9d`,
		"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\": `\x1b]8;;http://x\x1b\link\x1b]8;;\x1b\`,
	} {
		got := Terminal(in)
		if got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
		for i := 0; i < len(got); i++ {
			if unsafeByte(got[i]) {
				t.Errorf("Terminal(%q) still holds %q", in, got[i])
			}
		}
		if !utf8.ValidString(got) {
			t.Errorf("Terminal(%q) is not UTF-8", in)
		}
	}
}

// A turn holding an OSC 52 clipboard write and a screen clear, and a title
// holding ESC, reach the CLI's text answers escaped, their --json as
// stored (JSON escapes them), and the stored text unchanged.
func TestCLITextAnswersAreTerminalSafe(t *testing.T) {
	payload := "copy this \x1b]52;c;cm0gLXJmIH4=\x07 and \x1b[2J\x1b[H gone \u009b31m"
	title := "Title \x1b[31mred\x1b[0m"
	w := &Window{Session: Conversation{SessionID: "c-1", Source: "chatgpt", Title: title, Projects: []string{"p\x1bq"}, Turns: 1}, Focus: 0,
		Turns: []Turn{{TurnUUID: "t-1", TS: t0, Role: "user", Blocks: []Block{{Type: BlockText, Text: payload}}}}}
	hit := Hit{SessionID: "c-1", TurnUUID: "t-1", TS: t0, Role: "user", Source: "chatgpt", Title: title, Text: payload,
		Neighbors: []Neighbor{{Seq: 1, Role: "assistant", Text: "\x1b[2J"}}}
	res := FitRecall("q", []Hit{hit}, 4000, countTokens)
	texts := map[string]string{
		"recall":   CLIRecall(res),
		"get":      CLIGet(w),
		"sessions": CLISessions([]Conversation{w.Session}, 1),
		"projects": CLIProjects([]ProjectCount{{"p\x1b]52;c;x\x07", 1}}, 0),
		"audit":    CLIAudit([]AuditEntry{{TS: t0, Client: "a\x1b[2J", Tool: "recall", Args: `{"query":"` + payload + `"}`}}),
		"insights": CLIInsights(&Insights{BySource: []WeekSeries{{Name: "s\x1b[2J", Conversations: []int{1}}}, Agents: []AgentSeries{{Client: "c\x1b[2J", Answered: []int{1}, NoMatch: []int{0}, Refused: []int{0}, Failed: []int{0}}}}),
		"forget":   CLIForget(&ForgetReport{Sessions: []ForgottenSession{{SessionID: "c-1", Source: "chatgpt", Title: title, File: "src/x\x1b"}}}),
	}
	for name, text := range texts {
		if strings.ContainsAny(text, "\x1b\x07\r\u009b") {
			t.Errorf("%s prints control characters raw:\n%q", name, text)
		}
		if !Is(text) {
			t.Errorf("%s is no longer known for Ireneo's", name)
		}
	}
	if !strings.Contains(texts["get"], `copy this \x1b]52;c;cm0gLXJmIH4=\a and \x1b[2J\x1b[H gone \u009b31m`) {
		t.Errorf("get does not show the payload escaped:\n%s", texts["get"])
	}
	js := cliJSON(CLIGetJSON(w)) + cliJSON(res)
	if strings.ContainsAny(js, "\x1b\x07") || !strings.Contains(js, `\u001b]52;c;cm0gLXJmIH4=\u0007`) {
		t.Errorf("--json does not escape the payload as JSON does:\n%s", js)
	}
	if w.Turns[0].Blocks[0].Text != payload || res.Hits[0].Text != payload {
		t.Error("the stored text changed")
	}
}
