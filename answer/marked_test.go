package answer

import (
	"strings"
	"testing"
	"time"
)

// Every text answer, the no-match and over-budget ones included, begins
// with the marker and ends with a newline: printed after other shell
// output, it is still known for Ireneo's, and what the shell prints next
// begins on a line of its own.
func TestEveryTextAnswerIsMarkedAndEnded(t *testing.T) {
	ts := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	hit := Hit{SessionID: "c-1", TurnUUID: "t-1", TS: ts, Role: "user", Source: "chatgpt", Title: "Valve", Text: "the valve leaks"}
	w := &Window{Session: Conversation{SessionID: "c-1", Source: "chatgpt", Title: "Valve", Turns: 1}, Focus: 0,
		Turns: []Turn{{TurnUUID: "t-1", TS: ts, Role: "user", Blocks: []Block{{Type: BlockText, Text: "the valve leaks"}}}}}
	empty := &Window{Session: w.Session, Focus: -1}
	answers := map[string]string{
		"cli recall":              CLIRecall(FitRecall("valve", []Hit{hit}, 2000, countTokens)),
		"cli recall, no match":    CLIRecall(FitRecall("flamingo rollout", nil, 2000, countTokens)),
		"cli recall, over budget": CLIRecall(FitRecall("valve", []Hit{hit}, 5, countTokens)),
		"cli get":                 CLIGet(w),
		"cli get, no turns":       CLIGet(empty),
		"cli sessions":            CLISessions([]Conversation{w.Session}, 1),
		"cli sessions, none":      CLISessions(nil, 0),
		"cli projects":            CLIProjects([]ProjectCount{{"plant", 1}}, 2),
		"cli projects, none":      CLIProjects(nil, 0),
		"cli audit":               CLIAudit([]AuditEntry{{TS: ts, Client: "agent", Tool: "recall", Args: `{"query":"valve"}`}}),
		"cli audit, none":         CLIAudit(nil),
		"cli insights":            CLIInsights(&Insights{}),
		"cli forget":              CLIForget(&ForgetReport{Sessions: []ForgottenSession{{SessionID: "c-1", Source: "chatgpt", Title: "Valve"}}, Files: 1}),
	}
	res := FitRecall("valve", []Hit{hit}, 2000, countTokens)
	_, answers["mcp recall"] = MCPRecall("valve", res, nil, 2000, countTokens)
	_, answers["mcp recall, no match"] = MCPRecall("flamingo", &RecallResult{}, nil, 2000, countTokens)
	_, answers["mcp recall, over budget"] = MCPRecall("valve", res, nil, 30, countTokens)
	_, answers["mcp get"] = MCPGet(w, nil, 2000, countTokens)
	_, answers["mcp get, no turns"] = MCPGet(empty, nil, 2000, countTokens)
	_, answers["mcp sessions"] = MCPSessions([]Conversation{w.Session}, 1, 0, nil, 2000, countTokens)
	_, answers["mcp sessions, none"] = MCPSessions(nil, 0, 0, nil, 2000, countTokens)
	_, answers["mcp sessions, none at offset"] = MCPSessions(nil, 3, 5, nil, 2000, countTokens)
	_, answers["mcp projects"] = MCPProjects([]ProjectCount{{"plant", 1}}, 2)
	_, answers["mcp projects, none"] = MCPProjects(nil, 0)
	for name, text := range answers {
		if !strings.HasPrefix(text, Marker+" ") && !strings.HasPrefix(text, Marker+"\n") {
			t.Errorf("%s does not begin with the marker:\n%s", name, text)
		}
		if !strings.HasSuffix(text, "\n") {
			t.Errorf("%s does not end with a newline: %q", name, text)
		}
		if !Is(text) || Within("checking\n"+text) != len("checking\n") {
			t.Errorf("%s is not known for Ireneo's, alone or after other output:\n%s", name, text)
		}
	}
}
