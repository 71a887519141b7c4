package importers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

const copilot10 = "copilot-cli/1.0/session-state/3e2a61be-75c7-4cbe-a3b6-4acc266ce68b/events.jsonl"

// The real events.jsonl Copilot CLI 1.0.102 wrote against the stand-in
// model: the session and its inline sub-agent, every prompt, reply,
// reasoning, call and result in order.
func TestCopilotCLIReal(t *testing.T) {
	p := parseFile(t, ParseCopilotCLI, testdata(copilot10))
	if p.err != nil || len(p.sessions) != 2 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s, a := p.sessions[0], p.sessions[1]
	if got, want := roleSeq(s), "user:text assistant:thinking,text,tool_use tool:tool_result assistant:thinking,text,tool_use tool:tool_result assistant:text"; got != want {
		t.Fatalf("turns\n got %s\nwant %s", got, want)
	}
	if s.ID != "3e2a61be-75c7-4cbe-a3b6-4acc266ce68b" || s.Harness != funes.HarnessCopilotCLI || s.Workdir != "/tmp/cp/proj" || s.Project != "proj" {
		t.Errorf("id %s harness %s workdir %q project %q", s.ID, s.Harness, s.Workdir, s.Project)
	}
	checkTurns(t, s, []want{
		{"e6206b09-7e54-40f5-b493-f032ec8b4941", "2026-12-01T19:58:46.534Z", "user", []funes.Block{txt("Run echo ireneo-stand-in and tell me what it printed")}},
		{"5f072144-cda0-4ce0-9a2e-90f708c8bcb9", "2026-12-01T19:58:46.784Z", "assistant", []funes.Block{think("I will call bash."), txt("Calling bash."),
			use("bash", `{"command":"echo ireneo-stand-in","description":"Print the word"}`)}},
		{"868635a5-ae18-449a-8287-5d4c9ffac4f5", "2026-12-01T19:58:46.87Z", "tool", []funes.Block{result("bash", "ireneo-stand-in\n<shellId: 0 completed with exit code 0>")}},
		{"", "", "assistant", []funes.Block{think("I will call task."), txt("Calling task."),
			use("task", `{"agent_type":"explore","description":"Find the word","name":"finder","prompt":"Find where ireneo-stand-in comes from.","subagent_type":"general"}`)}},
		{"", "", "tool", []funes.Block{result("task", "The command printed ireneo-stand-in. Done.")}},
		{"", "", "assistant", []funes.Block{txt("The command printed ireneo-stand-in. Done.")}},
	})
	if a.ID != s.ID+"-agent-782b9e9a-226b-4222-9cbf-b7f53a36f998" || a.Title != "Sub-agent finder: Find where ireneo-stand-in comes from." || a.Project != "proj" {
		t.Errorf("sub-agent id %s title %q project %q", a.ID, a.Title, a.Project)
	}
	if got, want := roleSeq(a), "user:text assistant:thinking,text,tool_use tool:tool_result assistant:text"; got != want {
		t.Errorf("sub-agent turns\n got %s\nwant %s", got, want)
	}
}

// Shapes beyond the sample: a failed call, an attachment, an error, an
// abort, a resume; workspace.yaml's name, summary (folded as the CLI's
// YAML writer folds long text) and repository.
func TestCopilotCLIShapes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session-state", "c0p1-0000")
	os.MkdirAll(dir, 0o755)
	events := `{"type":"session.start","id":"e1","timestamp":"2026-10-01T09:00:00Z","parentId":null,"data":{"sessionId":"c0p1-0000","copilotVersion":"1.0.90","context":{"cwd":"/home/a/src/plant/sub","gitRoot":"/home/a/src/plant","branch":"feature/k2"}}}
{"type":"user.message","id":"e2","timestamp":"2026-10-01T09:00:01Z","data":{"content":"Why does the K-2 test fail?","transformedContent":"<current_datetime>x</current_datetime>\n\nWhy does the K-2 test fail?","attachments":[{"type":"file","path":"/home/a/src/plant/k2_test.go","displayName":"k2_test.go"},{"type":"image","displayName":"screenshot.png"}]}}
{"type":"system.message","id":"e3","timestamp":"2026-10-01T09:00:01Z","data":{"role":"system","content":"You are the GitHub Copilot CLI…"}}
{"type":"assistant.reasoning","id":"e4","timestamp":"2026-10-01T09:00:02Z","data":{"content":"The test reads a fixture."}}
{"type":"assistant.message","id":"e5","timestamp":"2026-10-01T09:00:03Z","data":{"content":"","toolRequests":[{"toolCallId":"t1","name":"view","arguments":{"path":"k2_test.go"}},{"toolCallId":"t2","name":"ireneo-recall","arguments":{"query":"K-2 fixture"}}]}}
{"type":"tool.execution_complete","id":"e6","timestamp":"2026-10-01T09:00:04Z","data":{"toolCallId":"t1","success":false,"error":{"message":"file not found","code":"ENOENT"}}}
{"type":"tool.execution_complete","id":"e7","timestamp":"2026-10-01T09:00:05Z","data":{"toolCallId":"t2","success":true,"result":{"content":"[ireneo-result] Past conversations matching \"K-2 fixture\"","detailedContent":"…"}}}
{"type":"session.error","id":"e8","timestamp":"2026-10-01T09:00:06Z","data":{"errorType":"rate_limit","message":"Rate limit exceeded"}}
{"type":"abort","id":"e9","timestamp":"2026-10-01T09:00:07Z","data":{"reason":"user initiated"}}
{"type":"session.resume","id":"e10","timestamp":"2026-10-02T08:00:00Z","data":{"context":{"cwd":"/elsewhere"}}}
{"type":"user.message","id":"e11","timestamp":"2026-10-02T08:00:01Z","data":{"content":"try again"}}
{"type":"assistant.message","id":"e12","timestamp":"2026-10-02T08:00:02Z","data":{"content":"The fixture moved to testdata/k2."}}
{"type":"user.message","id":"e13","timestamp":"2026-10-02T08:01:00Z","data":{"content":"a prompt the person rewinds"}}
{"type":"assistant.message","id":"e14","timestamp":"2026-10-02T08:01:02Z","data":{"content":"an answer rewound with it"}}
{"type":"session.snapshot_rewind","id":"e15","timestamp":"2026-10-02T08:02:00Z","data":{"upToEventId":"e12","eventsRemoved":2,"eventIds":["e13","e14"]}}
{"type":"session.title_changed","id":"e16","timestamp":"2026-10-02T08:02:01Z","data":{"title":"K-2 fixture moved"}}
`
	os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(events), 0o644)
	os.WriteFile(filepath.Join(dir, "workspace.yaml"), []byte(`id: c0p1-0000
cwd: /home/a/src/plant/sub
git_root: /home/a/src/plant
repository: ana/plant-control
branch: feature/k2
name: Why does the K-2 test fail?
user_named: false
summary: >-
  Fixing the K-2 compressor test after its fixture moved: a long summary the
  writer folds over lines
`), 0o644)
	p := parseFile(t, ParseCopilotCLI, filepath.Join(dir, "events.jsonl"))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	checkTurns(t, s, []want{
		{"e2", "", "user", []funes.Block{txt("Why does the K-2 test fail?"), txt("[file: /home/a/src/plant/k2_test.go]"), txt("[image: screenshot.png]")}},
		{"e4", "", "assistant", []funes.Block{think("The test reads a fixture.")}},
		{"e5", "", "assistant", []funes.Block{use("view", `{"path":"k2_test.go"}`), use("ireneo-recall", `{"query":"K-2 fixture"}`)}},
		{"e6", "", "tool", []funes.Block{result("view", "Error: file not found")}},
		{"e7", "", "tool", []funes.Block{result("ireneo-recall", `[ireneo-result] Past conversations matching "K-2 fixture"`)}},
		{"e8", "", "system", []funes.Block{txt("Rate limit exceeded")}},
		{"e9", "", "system", []funes.Block{txt("(aborted: user initiated)")}},
		{"e11", "2026-10-02T08:00:01Z", "user", []funes.Block{txt("try again")}},
		{"e12", "", "assistant", []funes.Block{txt("The fixture moved to testdata/k2.")}},
	})
	if s.Project != "plant-control" || s.Workdir != "/home/a/src/plant/sub" {
		t.Errorf("project %q workdir %q (the repository names it)", s.Project, s.Workdir)
	}
	if s.Title != "K-2 fixture moved" {
		t.Errorf("title %q, want the one the session was given", s.Title)
	}

	// A workspace.yaml Ireneo cannot read fails the session, naming it.
	os.WriteFile(filepath.Join(dir, "workspace.yaml"), []byte("id: [unclosed\n"), 0o644)
	p = parseFile(t, ParseCopilotCLI, filepath.Join(dir, "events.jsonl"))
	if p.err == nil || !strings.Contains(p.err.Error(), "workspace.yaml") {
		t.Fatalf("bad workspace.yaml: err %v", p.err)
	}
	// Without one (as inside an archive) the events alone do.
	p = parseString(t, ParseCopilotCLI, "events.jsonl", events)
	if p.err != nil || len(p.sessions) != 1 || p.sessions[0].Project != "plant" {
		t.Fatalf("no workspace.yaml: err %v %v", p.err, p.sessions)
	}
}
