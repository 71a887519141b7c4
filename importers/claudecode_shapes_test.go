package importers

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// Real shapes of Claude Code transcripts the older tests did not cover,
// written from issue 12 and EXPORT-FORMATS.md §4 (testdata/claudecode-shapes).

const (
	shapes2x = "5e55a0b1-2c3d-4e5f-8a9b-000000000021"
	shapes1x = "1a0b0c0d-1e2f-4a5b-8c9d-000000000108"
)

// A parallel call of three tools: every call and every result is kept,
// results in the order they were written; the prompt the person edited
// away is not.
func TestClaudeCodeParallelCalls(t *testing.T) {
	p := parseFile(t, ParseClaudeCode, testdata("claudecode-shapes", shapes2x+".jsonl"))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	checkTurns(t, s, []want{
		{"p-u1", "2026-06-02T09:00:00Z", "user", []funes.Block{txt("Find where the importer drops tool results")}},
		{"p-a1", "2026-06-02T09:00:02.1Z", "assistant", []funes.Block{
			txt("I'll search three places at once."),
			use("Grep", `{"pattern":"chain\\("}`),
			use("Read", `{"file_path":"importers/claudecode.go"}`),
			use("WebFetch", `{"url":"https://example.com/format"}`)}},
		{"p-r2", "2026-06-02T09:00:03Z", "tool", []funes.Block{result("Read", "func (p *ccParse) chain() []*ccNode {")}},
		{"p-r1", "2026-06-02T09:00:03.1Z", "tool", []funes.Block{result("Grep", "importers/claudecode.go:210: func (p *ccParse) chain()")}},
		{"p-r3", "2026-06-02T09:00:04Z", "tool", []funes.Block{result("WebFetch", "Each tool_result is a child of its own tool_use.")}},
		{"p-a2", "2026-06-02T09:00:06Z", "assistant", []funes.Block{txt("chain() follows only the newest leaf.")}},
		{"p-u2", "2026-06-02T09:02:00Z", "user", []funes.Block{txt("Fix it in Go instead")}},
		{"p-a3", "2026-06-02T09:02:04Z", "assistant", []funes.Block{txt("Fixed: every sibling of a parallel call is kept.")}},
	})
	// A Claude Code worktree is its repository's project.
	if s.Project != "ireneo" || s.Workdir != "/home/ana/src/ireneo/.claude/worktrees/fix-import" {
		t.Errorf("project %q workdir %q", s.Project, s.Workdir)
	}
}

// The real 2.1.7 sub-agent file has four parallel rounds: each of its
// tool_use blocks keeps its result.
func TestClaudeCodeRealParallelSubagent(t *testing.T) {
	p := parseFile(t, ParseClaudeCode, testdata("real", "claude-code", "nested-subagents", "subagents", "agent-a485154.jsonl"))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	calls, results := map[string]int{}, 0
	for _, tu := range p.sessions[0].Turns {
		for _, b := range tu.Blocks {
			switch b.Type {
			case funes.BlockToolUse:
				calls[b.ToolName]++
			case funes.BlockToolResult:
				results++
			}
		}
	}
	total := 0
	for _, n := range calls {
		total += n
	}
	// 20 tool_use blocks and 20 tool_result blocks in the file.
	if total != 20 || results != 20 {
		t.Errorf("%d calls %v, %d results", total, calls, results)
	}
}

// 1.0.x: sub-agents written inline as isSidechain records become sub-agent
// conversations linked to the session, each with every turn; the session
// started with a slash command is titled by it.
func TestClaudeCodeInlineSubagents(t *testing.T) {
	p := parseFile(t, ParseClaudeCode, testdata("claudecode-shapes", shapes1x+".jsonl"))
	if p.err != nil || len(p.sessions) != 3 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	main := p.sessions[0]
	if main.ID != shapes1x || main.Title != "/review the importer docs" || main.Project != "ireneo" {
		t.Errorf("main %q %q %q", main.ID, main.Title, main.Project)
	}
	checkTurns(t, main, []want{
		{"o-u1", "", "user", []funes.Block{txt("<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>the importer docs</command-args>")}},
		{"o-a1", "", "assistant", []funes.Block{txt("I'll send two agents."),
			use("Task", `{"description":"Read docs","prompt":"Summarise importers/doc.go"}`),
			use("Task", `{"description":"Read formats","prompt":"Summarise EXPORT-FORMATS.md section 4"}`)}},
		{"o-r1", "", "tool", []funes.Block{result("Task", "doc.go says what the package owns."), result("Task", "Section 4 describes sub-agent files.")}},
		{"o-a2", "", "assistant", []funes.Block{txt("Both documents agree.")}},
	})
	x := p.sessions[1]
	if x.ID != shapes1x+"-agent-x-u1" || x.Title != "Sub-agent: Summarise importers/doc.go" || x.Project != "ireneo" {
		t.Errorf("sub-agent %q %q %q", x.ID, x.Title, x.Project)
	}
	checkTurns(t, x, []want{
		{"x-u1", "2026-03-10T14:00:04Z", "user", []funes.Block{txt("Summarise importers/doc.go")}},
		{"x-a1", "", "assistant", []funes.Block{use("Read", `{"file_path":"importers/doc.go"}`)}},
		{"x-r1", "", "tool", []funes.Block{result("Read", "// Package importers turns ...")}},
		{"x-a2", "", "assistant", []funes.Block{txt("doc.go says what the package owns.")}},
	})
	y := p.sessions[2]
	if y.ID != shapes1x+"-agent-y-u1" || !strings.HasPrefix(y.Title, "Sub-agent: Summarise EXPORT-FORMATS.md") {
		t.Errorf("sub-agent %q %q", y.ID, y.Title)
	}
	checkTurns(t, y, []want{
		{"y-u1", "", "user", []funes.Block{txt("Summarise EXPORT-FORMATS.md section 4")}},
		{"y-a1", "", "assistant", []funes.Block{use("Grep", `{"pattern":"## 4"}`)}},
		{"y-r1", "", "tool", []funes.Block{result("Grep", "## 4. Claude Code transcripts")}},
		{"y-a2", "", "assistant", []funes.Block{txt("Section 4 describes sub-agent files.")}},
	})
}

// A compaction agent is labelled as one: not a sub-agent, and its
// instruction is Claude Code's, not the person's.
func TestClaudeCodeCompactionAgent(t *testing.T) {
	p := parseFile(t, ParseClaudeCode, testdata("claudecode-shapes", shapes2x, "subagents", "agent-acompact-7f3e21.jsonl"))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	if s.ID != shapes2x+"-agent-acompact-7f3e21" || s.Title != "Compaction summary: 1. Primary Request: find where tool results are dropped." || s.Project != "ireneo" {
		t.Errorf("%q %q %q", s.ID, s.Title, s.Project)
	}
	if len(s.Turns) != 2 || s.Turns[0].Role != funes.RoleSystem || s.Turns[1].Role != funes.RoleAssistant {
		t.Errorf("turns %+v", s.Turns)
	}
}

// A sub-agent that ran in a sub-folder takes its parent's project when the
// memory holds the parent, and its worktree's repository otherwise.
func TestClaudeCodeSubagentProject(t *testing.T) {
	path := testdata("claudecode-shapes", shapes2x, "subagents", "agent-a9d04c1.jsonl")
	p := parseFile(t, ParseClaudeCode, path)
	if p.err != nil || len(p.sessions) != 1 || p.sessions[0].Project != "ireneo" {
		t.Fatalf("err %v, %d sessions %+v", p.err, len(p.sessions), p.sessions)
	}
	m := newMemory(t)
	ctx := context.Background()
	parent := &funes.Session{ID: shapes2x, Harness: funes.HarnessClaudeCode, Title: "t", Project: "renamed-repo",
		Turns: []funes.Turn{{TurnUUID: "p-u1", Role: funes.RoleUser, Blocks: []funes.Block{txt("hi")}}}}
	if _, err := m.Ingest(ctx, []*funes.Session{parent}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []*funes.Session
	f := openFile(t, path)
	err := ParseClaudeCode(ctx, f, path, Handler{Lookup: m, Session: func(s *funes.Session) error { got = append(got, s); return nil }})
	if err != nil || len(got) != 1 || got[0].Project != "renamed-repo" {
		t.Fatalf("err %v %+v", err, got)
	}
}

func TestRepoProject(t *testing.T) {
	for _, c := range []struct{ cwd, branch, want string }{
		{"/home/ana/src/ireneo", "main", "ireneo"},
		{"/home/ana/src/ireneo/.claude/worktrees/fix-import", "fix-import", "ireneo"},
		{"/home/ana/src/ireneo/.worktrees/a", "a", "ireneo"},
		{"/home/ana/src/ireneo-feature-login", "feature/login", "ireneo"},
		{"/home/ana/src/ireneo.fix", "fix", "ireneo"},
		{"/home/ana/src/api-main", "main", "api-main"},
		{"/work/wt-importers", "importers", "wt-importers"},
		{`C:\src\ireneo`, "", "ireneo"},
		{"", "x", ""},
	} {
		if got := repoProject(c.cwd, c.branch); got != c.want {
			t.Errorf("repoProject(%q, %q) = %q, want %q", c.cwd, c.branch, got, c.want)
		}
	}
}

func openFile(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// A folder walk visits <session>/subagents/ before <session>.jsonl; Detect
// puts sessions first, so a sub-agent finds its parent stored.
func TestDetectSessionsBeforeSubagents(t *testing.T) {
	ins, err := Detect(context.Background(), testdata("claudecode-shapes"))
	if err != nil {
		t.Fatal(err)
	}
	seenAgent := false
	for _, in := range ins {
		agent := strings.HasPrefix(filepath.Base(in.Path), "agent-")
		if seenAgent && !agent {
			t.Errorf("session %s comes after a sub-agent", in.Path)
		}
		seenAgent = seenAgent || agent
	}
	if !seenAgent || len(ins) != 5 {
		t.Errorf("%d inputs", len(ins))
	}
}
