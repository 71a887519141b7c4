package importers

import (
	"errors"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/plumbing"
)

func codexFile(name string) string { return testdata("codex", "sessions", name) }

func TestCodexEnvelope(t *testing.T) {
	p := parseFile(t, ParseCodex, codexFile("2026/03/01/rollout-2026-03-01T10-00-00-0195a000-0000-7000-8000-000000000001.jsonl"))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	if s.ID != "0195a000-0000-7000-8000-000000000001" || s.Harness != funes.HarnessCodex ||
		s.Workdir != "/home/ana/src/ireneo" || s.Project != "ireneo" || s.Title != "Fix the flaky test in store_test.go" {
		t.Errorf("session %s %s %q %q %q", s.ID, s.Harness, s.Workdir, s.Project, s.Title)
	}
	id := func(n string) string { return s.ID + "-" + n }
	// Harness context the person never typed (user instructions, AGENTS.md,
	// environment) is kept verbatim as one turn, which the index leaves out
	// (plumbing), with an id of its own so the other turns keep theirs;
	// developer permissions are not kept; the person's words
	// come once, from the
	// user_message event; each reply once, from the response item; the
	// encrypted-only reasoning, the replayed line and the truncated line add
	// nothing; the call without output stays; the resumed segment follows.
	checkTurns(t, s, []want{
		{s.ID + "-context-1", "2026-03-01T09:00:00.2Z", "user", []funes.Block{txt("<user_instructions>Always write tests.</user_instructions>"),
			txt("# AGENTS.md instructions for /home/ana/src/ireneo\n\nUse gofmt."), txt("<environment_context>\n  <cwd>/home/ana/src/ireneo</cwd>\n</environment_context>")}},
		{id("0"), "2026-03-01T09:00:01Z", "user", []funes.Block{txt("Fix the flaky test in store_test.go")}},
		{id("1"), "2026-03-01T09:00:02Z", "assistant", []funes.Block{think("Looking at the test")}},
		{id("2"), "2026-03-01T09:00:03Z", "assistant", []funes.Block{txt("I'll run the tests first.")}},
		{id("3"), "2026-03-01T09:00:04Z", "assistant", []funes.Block{use("shell", `{"command":["go","test","./..."]}`)}},
		{id("4"), "2026-03-01T09:00:05Z", "tool", []funes.Block{result("shell", "ok  \tireneo/memory\t0.3s")}},
		{id("5"), "2026-03-01T09:00:06Z", "assistant", []funes.Block{use("apply_patch", "*** Begin Patch\n*** Update File: store_test.go\n*** End Patch")}},
		{id("6"), "2026-03-01T09:00:07Z", "tool", []funes.Block{result("apply_patch", "Success. Updated the following files:\nM store_test.go\n")}},
		{id("7"), "2026-03-01T09:00:08Z", "assistant", []funes.Block{use("shell", `{"command":["go","test","-count=5","./..."]}`)}},
		{id("8"), "2026-03-01T09:00:09Z", "assistant", []funes.Block{txt("Fixed: the test now waits for the WAL checkpoint.")}},
		{id("9"), "2026-03-01T11:00:01Z", "user", []funes.Block{txt("Thanks! Also add a comment."), txt("[image]")}},
		{id("10"), "2026-03-01T11:00:02Z", "assistant", []funes.Block{txt("Added.")}},
	})
	for _, b := range s.Turns[0].Blocks {
		if said := plumbing.SaidText(s.Turns[0].Role, b.Type, b.ToolName, b.Text); said != "" {
			t.Errorf("harness context %q would be searched as %q", b.Text, said)
		}
	}
}

func TestCodexPaginated(t *testing.T) {
	p := parseFile(t, ParseCodex, codexFile("2026/03/01/rollout-2026-03-01T13-00-00-0195a000-0000-7000-8000-000000000002.jsonl"))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	checkTurns(t, p.sessions[0], []want{
		{"", "", "user", []funes.Block{txt("List the files")}},
		{"", "", "assistant", []funes.Block{think("Need ls")}},
		{"", "", "assistant", []funes.Block{use("shell", "ls")}},
		{"", "", "tool", []funes.Block{result("shell", "a.go\nb.go")}},
		{"", "", "assistant", []funes.Block{txt("Two files: a.go and b.go")}},
	})
}

func TestCodexLegacy(t *testing.T) {
	p := parseFile(t, ParseCodex, codexFile("2025/08/11/rollout-2025-08-11T09-00-00-5f1c2d3e-0000-4000-8000-000000000003.jsonl"))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	// No cwd in the header: it comes from <environment_context>, which is
	// kept as the first turn, plumbing, not searched. No times
	// per line: the session's. The legacy shell output's JSON is unwrapped.
	if s.Workdir != "/home/ana/legacy-tool" || s.Project != "legacy-tool" || s.Title != "Why does the build fail?" {
		t.Errorf("session %q %q %q", s.Workdir, s.Project, s.Title)
	}
	at := "2025-08-11T07:00:00Z"
	checkTurns(t, s, []want{
		{"", at, "user", []funes.Block{txt("<environment_context>\n  <cwd>/home/ana/legacy-tool</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>")}},
		{"", at, "user", []funes.Block{txt("Why does the build fail?")}},
		{"", at, "assistant", []funes.Block{think("Check the Makefile")}},
		{"", at, "assistant", []funes.Block{use("shell", `{"command":["make"]}`)}},
		{"", at, "tool", []funes.Block{result("shell", "make: *** No rule to make target\n")}},
		{"", at, "assistant", []funes.Block{txt("The Makefile has no default target.")}},
	})
}

func TestCodexReal(t *testing.T) {
	for name, c := range map[string]struct {
		turns int
		last  string
	}{
		// Ends on a function_call with no output: an interrupted session.
		"rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl": {4, funes.BlockToolUse},
		"rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl": {23, funes.BlockText},
	} {
		p := parseFile(t, ParseCodex, testdata("real", "codex", name))
		if p.err != nil || len(p.sessions) != 1 {
			t.Fatalf("%s: err %v, %d sessions", name, p.err, len(p.sessions))
		}
		s := p.sessions[0]
		if len(s.Turns) != c.turns || s.Turns[len(s.Turns)-1].Blocks[0].Type != c.last {
			t.Errorf("%s: %d turns, last %+v", name, len(s.Turns), s.Turns[len(s.Turns)-1])
		}
		// The person's words come from the user_message event only: the
		// redacted response items (AGENTS.md, environment, a second copy of
		// the prompt) are not imported.
		users := 0
		for _, tu := range s.Turns {
			if tu.Role == funes.RoleUser {
				users++
				if !strings.HasPrefix(tu.Blocks[0].Text, "[REDACTED_MESSAGE") {
					t.Errorf("%s: user turn %q", name, tu.Blocks[0].Text)
				}
			}
			if tu.Role == funes.RoleAssistant && tu.Blocks[0].Type == funes.BlockText &&
				strings.HasPrefix(tu.Blocks[0].Text, "[REDACTED_MESSAGE") {
				t.Errorf("%s: agent_message event imported beside its response item", name)
			}
		}
		if users != 1 || s.Workdir == "" || s.Project == "" {
			t.Errorf("%s: %d user turns, workdir %q project %q", name, users, s.Workdir, s.Project)
		}
	}
}

func TestCodexEdges(t *testing.T) {
	meta := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"0195a000-0000-7000-8000-00000000000a","cwd":"/w/x","source":{"subagent":{"thread_spawn":{"parent_thread_id":"p","depth":1}}},"agent_nickname":"scout"}}`
	user := `{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"find the bug"}}`
	t.Run("subagent", func(t *testing.T) {
		p := parseString(t, ParseCodex, "x.jsonl", meta+"\n"+user+"\n")
		if p.err != nil || p.sessions[0].Title != "Sub-agent scout: find the bug" {
			t.Fatalf("%v %+v", p.err, p.sessions)
		}
	})
	t.Run("id from file name", func(t *testing.T) {
		p := parseString(t, ParseCodex, "/s/rollout-2026-01-01T00-00-00-0195A000-0000-7000-8000-00000000000B.jsonl", user+"\n")
		if p.err != nil || p.sessions[0].ID != "0195a000-0000-7000-8000-00000000000b" {
			t.Fatalf("%v %+v", p.err, p.sessions)
		}
	})
	t.Run("no turns", func(t *testing.T) {
		p := parseString(t, ParseCodex, "x.jsonl", meta+"\n")
		if !errors.Is(p.err, errNoConversation) {
			t.Fatalf("err = %v", p.err)
		}
	})
	t.Run("all lines bad", func(t *testing.T) {
		p := parseString(t, ParseCodex, "x.jsonl", "not json\n\xff\xfe\n")
		if p.err == nil || !strings.Contains(p.err.Error(), "no readable line") {
			t.Fatalf("err = %v", p.err)
		}
	})
	t.Run("output as content items", func(t *testing.T) {
		out := `{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"line one"},{"type":"input_image","image_url":"data:"}]}}`
		p := parseString(t, ParseCodex, "x.jsonl", meta+"\n"+user+"\n"+out+"\n")
		if p.err != nil || fmtBlocks(p.sessions[0].Turns[1].Blocks) != fmtBlocks([]funes.Block{result("", "line one\n[image]")}) {
			t.Fatalf("%v %+v", p.err, p.sessions[0].Turns)
		}
	})
}

func fmtBlocks(bs []funes.Block) string {
	var b strings.Builder
	for _, x := range bs {
		b.WriteString(x.Type + "/" + x.ToolName + ":" + x.Text + "|")
	}
	return b.String()
}
