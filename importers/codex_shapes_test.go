package importers

import (
	"context"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// A Codex Desktop rollout in a git worktree whose repository has no remote,
// with a shell call that failed with empty output (EXPORT-FORMATS.md §3:
// legacy shell outputs are a JSON string {"output", "metadata"}).
const codexFailedCall = `{"timestamp":"2026-04-01T08:00:00.000Z","type":"session_meta","payload":{"id":"0196b000-0000-7000-8000-0000000000f1","timestamp":"2026-04-01T08:00:00.000Z","cwd":"/home/ana/src/ireneo-fix-scrub","originator":"Codex Desktop","cli_version":"0.104.0","source":"vscode","model_provider":"openai","git":{"commit_hash":"abc","branch":"fix-scrub"}}}
{"timestamp":"2026-04-01T08:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Run the scrub tests","images":[]}}
{"timestamp":"2026-04-01T08:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./scrub/\"]}","call_id":"call_F1"}}
{"timestamp":"2026-04-01T08:00:09.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_F1","output":"{\"output\":\"\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":6.9}}"}}
{"timestamp":"2026-04-01T08:00:10.000Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_F2","name":"apply_patch","input":"*** Begin Patch\n*** End Patch"}}
{"timestamp":"2026-04-01T08:00:11.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_F2","output":""}}
{"timestamp":"2026-04-01T08:00:12.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The tests did not build."}]}}
`

func TestCodexFailedCallKeepsResult(t *testing.T) {
	p := parseString(t, ParseCodex, "rollout-2026-04-01T10-00-00-0196b000-0000-7000-8000-0000000000f1.jsonl", codexFailedCall)
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	checkTurns(t, s, []want{
		{"", "2026-04-01T08:00:01Z", "user", []funes.Block{txt("Run the scrub tests")}},
		{"", "", "assistant", []funes.Block{use("shell", `{"command":["bash","-lc","go test ./scrub/"]}`)}},
		{"", "2026-04-01T08:00:09Z", "tool", []funes.Block{result("shell", "(no output; exit code 2)")}},
		{"", "", "assistant", []funes.Block{use("apply_patch", "*** Begin Patch\n*** End Patch")}},
		{"", "", "tool", []funes.Block{result("apply_patch", "(no output)")}},
		{"", "", "assistant", []funes.Block{txt("The tests did not build.")}},
	})
	// A worktree named <repo>-<branch> is its repository's project.
	if s.Project != "ireneo" {
		t.Errorf("project %q", s.Project)
	}
}

// A Codex sub-agent (source.subagent.thread_spawn) takes the project of the
// thread that spawned it when the memory holds it.
func TestCodexSubagentProject(t *testing.T) {
	const child = `{"timestamp":"2026-04-01T08:05:00.000Z","type":"session_meta","payload":{"id":"0196b000-0000-7000-8000-0000000000f2","timestamp":"2026-04-01T08:05:00.000Z","cwd":"/home/ana/src/ireneo/docs","originator":"codex_cli_rs","cli_version":"0.135.0","source":{"subagent":{"thread_spawn":{"parent_thread_id":"0196b000-0000-7000-8000-0000000000f1","depth":1,"agent_nickname":"scout","agent_role":"explorer"}}},"agent_nickname":"scout","model_provider":"openai"}}
{"timestamp":"2026-04-01T08:05:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Find the scrub docs"}]}}
{"timestamp":"2026-04-01T08:05:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"docs/scrub.md"}]}}
`
	ctx := context.Background()
	m := newMemory(t)
	var parent *funes.Session
	parseFn := func(data string, look Lookup) *funes.Session {
		var got *funes.Session
		err := ParseCodex(ctx, strings.NewReader(data), "r.jsonl", Handler{Lookup: look, Session: func(s *funes.Session) error { got = s; return nil }})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	parent = parseFn(codexFailedCall, nil)
	if _, err := m.Ingest(ctx, []*funes.Session{parent}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := parseFn(child, nil); s.Project != "docs" || !strings.HasPrefix(s.Title, "Sub-agent scout: ") {
		t.Errorf("alone: %q %q", s.Project, s.Title)
	}
	if s := parseFn(child, m); s.Project != "ireneo" {
		t.Errorf("with its parent stored: %q", s.Project)
	}
}
