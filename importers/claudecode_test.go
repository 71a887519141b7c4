package importers

import (
	"errors"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/plumbing"
)

func TestClaudeCodeHandmade(t *testing.T) {
	p := parseFile(t, ParseClaudeCode, testdata("claudecode", "projects", "-home-ana-llama-cpp", "7d0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b.jsonl"))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	// The project comes from the records' cwd, not the lossy folder name
	// ("llama.cpp", not "llama-cpp"); the title from the one summary whose
	// leafUuid is in this file.
	if s.ID != "7d0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b" || s.Harness != funes.HarnessClaudeCode ||
		s.Workdir != "/home/ana/llama.cpp" || s.Project != "llama.cpp" || s.Title != "Fixing the llama build" {
		t.Errorf("session %s %s %q %q %q", s.ID, s.Harness, s.Workdir, s.Project, s.Title)
	}
	// Three lines of one API response are one turn; <system-reminder> text
	// is kept verbatim (the index leaves it out: plumbing); the meta caveat, NUL and corrupt lines, the repeated record,
	// the sidechain, the compaction summary and the abandoned /rewind branch
	// are not turns; the chain crosses the compaction boundary.
	checkTurns(t, s, []want{
		{"u-1", "2026-05-01T10:00:00Z", "user", []funes.Block{txt("Why is the build failing?<system-reminder>The user opened CMakeLists.txt in the IDE.</system-reminder>")}},
		{"a-1a", "2026-05-01T10:00:01Z", "assistant", []funes.Block{think("Check CMake"), txt("Let me look."), use("Bash", `{"command":"make"}`)}},
		{"u-2", "2026-05-01T10:00:03Z", "tool", []funes.Block{result("Bash", "error: missing ggml.h\n<system-reminder>\nWhenever you read a file, check for malware.\n</system-reminder>\n")}},
		{"a-2", "2026-05-01T10:00:05Z", "assistant", []funes.Block{txt("The header is missing.")}},
		{"u-4", "2026-05-01T10:02:00Z", "user", []funes.Block{txt("Use cmake -B build instead")}},
		{"a-4", "2026-05-01T10:02:05Z", "assistant", []funes.Block{txt("Building with cmake.")}},
		{"u-5", "2026-05-01T10:04:00Z", "user", []funes.Block{txt("Now run the tests")}},
		{"a-5", "2026-05-01T10:04:05Z", "assistant", []funes.Block{txt("All tests pass."), txt("[image]")}},
	})
	for i, want := range map[int]string{0: "Why is the build failing?", 2: "error: missing ggml.h"} {
		b := s.Turns[i].Blocks[0]
		if got := plumbing.SaidText(s.Turns[i].Role, b.Type, b.ToolName, b.Text); got != want {
			t.Errorf("turn %d: searched text %q, want %q", i, got, want)
		}
	}
}

func TestClaudeCodeSnapshotsOnly(t *testing.T) {
	p := parseFile(t, ParseClaudeCode, testdata("claudecode", "projects", "-home-ana-llama-cpp", "0a0b0c0d-0000-4000-8000-00000000000e.jsonl"))
	if !errors.Is(p.err, errNoConversation) {
		t.Fatalf("err = %v", p.err)
	}
}

func TestClaudeCodeRealFlat(t *testing.T) {
	dir := testdata("real", "claude-code", "flat-layout", "-tmp-private")
	p := parseFile(t, ParseClaudeCode, dir+"/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	if s.Title != "create hello.py, md and js" || s.Project != "private" || s.Workdir != "/tmp/private" {
		t.Errorf("session %q %q %q", s.Title, s.Project, s.Workdir)
	}
	// Lines 2–5 of the file share message.id: one turn with a text and
	// three Write calls; each tool result names its tool.
	if len(s.Turns) != 15 {
		t.Fatalf("%d turns", len(s.Turns))
	}
	first := s.Turns[1]
	if first.Role != "assistant" || len(first.Blocks) != 4 || first.Blocks[0].Type != funes.BlockText ||
		first.Blocks[1].ToolName != "Write" || first.Blocks[3].ToolName != "Write" {
		t.Errorf("merged turn %+v", first)
	}
	if r := s.Turns[2]; r.Role != "tool" || r.Blocks[0].ToolName != "Write" ||
		!strings.HasPrefix(r.Blocks[0].Text, "File created successfully at: /tmp/private/hello.py") {
		t.Errorf("tool result %+v", r)
	}
	if last := s.Turns[14]; last.Blocks[0].Text != "Done! I've deleted hello.js." {
		t.Errorf("last %+v", last)
	}
	// Both sub-agents here are "Warmup" agents: not imported.
	for _, a := range []string{"agent-36541525.jsonl", "agent-50243ee8.jsonl"} {
		if p := parseFile(t, ParseClaudeCode, dir+"/"+a); !errors.Is(p.err, errNoConversation) {
			t.Errorf("%s: err %v, %d sessions", a, p.err, len(p.sessions))
		}
	}
}

func TestClaudeCodeRealNested(t *testing.T) {
	dir := testdata("real", "claude-code", "nested-subagents")
	p := parseFile(t, ParseClaudeCode, dir+"/session.jsonl")
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	// The file was renamed from turn-1.jsonl, so its id comes from the
	// records. Its summary line's leafUuid is not in the file: not trusted.
	if s.ID != "e9fb405b-169f-40eb-9396-7e75076f045d" || s.Project != "codemie-code" ||
		s.Title == "Metrics Calculations Verification and Discrepancy Analysis" {
		t.Errorf("session %s %q %q", s.ID, s.Project, s.Title)
	}
	// 23 message lines; 7 message.ids are split over 2–3 lines each.
	if len(s.Turns) != 14 {
		t.Fatalf("%d turns", len(s.Turns))
	}
	for i, tu := range s.Turns {
		if i%2 == 1 && (tu.Role != "assistant" || tu.Blocks[0].Type != funes.BlockThinking) {
			t.Errorf("turn %d: %+v", i, tu)
		}
		if i%2 == 0 && i > 0 && tu.Role != "tool" {
			t.Errorf("turn %d: role %s", i, tu.Role)
		}
	}
	if tu := s.Turns[2]; tu.Blocks[0].ToolName != "Task" {
		t.Errorf("Task result %+v", tu.Blocks[0])
	}

	// The sub-agent is its own session, named for its parent and agent id.
	p = parseFile(t, ParseClaudeCode, dir+"/subagents/agent-a485154.jsonl")
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	a := p.sessions[0]
	if a.ID != "e9fb405b-169f-40eb-9396-7e75076f045d-agent-a485154" || !strings.HasPrefix(a.Title, "Sub-agent: Analyze the existing CLI") ||
		a.Project != "codemie-code" || a.Turns[0].Role != "user" {
		t.Errorf("sub-agent %s %q %q", a.ID, a.Title, a.Project)
	}
	if last := a.Turns[len(a.Turns)-1]; last.Role != "assistant" || !strings.HasPrefix(last.Blocks[0].Text, "Perfect! Now I have a comprehensive understanding") {
		t.Errorf("sub-agent last turn %+v", last)
	}
}

func TestClaudeCodeEdges(t *testing.T) {
	line := func(typ, uuid, parent, ts, content string, extra string) string {
		role := typ
		return `{"type":"` + typ + `","uuid":"` + uuid + `","parentUuid":` + parent + `,"sessionId":"s","cwd":"/w/p","timestamp":"` + ts +
			`","message":{"role":"` + role + `","id":"` + uuid + `m","content":` + content + `}` + extra + `}`
	}
	u1 := line("user", "u1", "null", "2026-01-01T00:00:00Z", `"hello there"`, "")
	a1 := line("assistant", "a1", `"u1"`, "2026-01-01T00:00:01Z", `[{"type":"text","text":"hi"}]`, "")
	t.Run("custom title wins", func(t *testing.T) {
		p := parseString(t, ParseClaudeCode, "/p/x.jsonl", u1+"\n"+a1+"\n"+`{"type":"custom-title","customTitle":"My title","sessionId":"s"}`+"\n")
		if p.err != nil || p.sessions[0].Title != "My title" || p.sessions[0].ID != "s" {
			t.Fatalf("%v %+v", p.err, p.sessions)
		}
	})
	t.Run("broken parent link keeps earlier turns", func(t *testing.T) {
		a2 := line("assistant", "a2", `"lost"`, "2026-01-01T00:00:02Z", `[{"type":"text","text":"after a corrupt line"}]`, "")
		p := parseString(t, ParseClaudeCode, "/p/x.jsonl", u1+"\n"+a1+"\n{\"uuid\":\"lost\",\"parentU\n"+a2+"\n")
		if p.err != nil || len(p.sessions[0].Turns) != 3 {
			t.Fatalf("%v %+v", p.err, p.sessions)
		}
	})
	t.Run("warmup agent", func(t *testing.T) {
		w := `{"type":"user","uuid":"w1","parentUuid":null,"isSidechain":true,"agentId":"abc","sessionId":"s","message":{"role":"user","content":"Warmup"}}`
		if p := parseString(t, ParseClaudeCode, "/p/agent-abc.jsonl", w+"\n"); !errors.Is(p.err, errNoConversation) {
			t.Fatalf("err %v", p.err)
		}
	})
	t.Run("only bad lines", func(t *testing.T) {
		p := parseString(t, ParseClaudeCode, "/p/x.jsonl", "\x00\x00\x00\n{broken\n")
		if p.err == nil || !strings.Contains(p.err.Error(), "no readable line") {
			t.Fatalf("err %v", p.err)
		}
	})
}
