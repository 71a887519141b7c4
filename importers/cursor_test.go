package importers

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// testdata/cursor is hand-made (README): Cursor does not install here, and
// real state.vscdb files in public repositories are people's own. Its
// databases have Cursor's schema and keys, its values the shapes of each
// version.
const (
	cursorGlobal    = "cursor/User/globalStorage/state.vscdb"
	cursorWorkspace = "cursor/User/workspaceStorage/5f3a9c0d1e2b4a6f8c7d9e0a1b2c3d4e/state.vscdb"
	cursorModern    = "b4c1e2f0-6a7d-4e59-9c3b-2d8f1a0e7c51"
	cursorTxDir     = "cursor/projects/home-ana-src-plant-control/agent-transcripts"
	cursorTxMain    = "6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e"
)

// The global database: a 3.x composer (headers, bubbles in their own rows,
// thinking, tool calls with results, a Lexical-only prompt, a header whose
// bubble was never written), a 0.4x inline one, one with conversationMap,
// a sub-composer; composers in a workspace take its folder; an empty
// composer is no conversation.
func TestCursorGlobalDB(t *testing.T) {
	p := parseFile(t, ParseCursorDB, testdata(cursorGlobal))
	if p.err != nil || len(p.sessions) != 4 || len(p.skipped) > 0 {
		t.Fatalf("err %v, %d sessions, skipped %v", p.err, len(p.sessions), p.skipped)
	}
	s := sessionByID(t, p.sessions, cursorModern)
	checkTurns(t, s, []want{
		{"u1-7a1c", "2026-09-14T08:30:02.114Z", "user", []funes.Block{txt("Why does the K-2 pressure test fail on CI?")}},
		{"a1-9f20", "", "assistant", []funes.Block{think("The test reads a fixture by a relative path.")}},
		{"a2-1c33", "", "assistant", []funes.Block{use("run_terminal_cmd", `{"command":"go test ./k2/ -run Pressure","is_background":false}`)}},
		{"a2-1c33-result", "", "tool", []funes.Block{result("run_terminal_cmd", `{"output":"--- FAIL: TestPressure (0.00s)\n    k2_test.go:14: open testdata/k2.json: no such file or directory\n","exitCode":1}`)}},
		{"a3-55e0", "", "assistant", []funes.Block{txt("The fixture moved to `internal/k2/testdata`; the test still opens `testdata/k2.json`.")}},
		{"u2-0b71", "2026-09-14T08:31:40Z", "user", []funes.Block{txt("Fix it and rerun")}},
		{"a4-73aa", "", "assistant", []funes.Block{use("mcp_ireneo_recall", `{"query":"K-2 fixture moved"}`)}},
		{"a4-73aa-result", "", "tool", []funes.Block{result("mcp_ireneo_recall", `[ireneo-result] Past conversations matching "K-2 fixture moved" (1 of 1):`)}},
		{"a5-8d12", "", "assistant", []funes.Block{txt("Fixed the path; `go test ./k2/` passes.")}},
	})
	if s.Title != "K-2 pressure test on CI" || s.Workdir != "/home/ana/src/plant-control" || s.Project != "plant-control" || s.Harness != funes.HarnessCursor {
		t.Errorf("title %q workdir %q project %q harness %s", s.Title, s.Workdir, s.Project, s.Harness)
	}
	sub := sessionByID(t, p.sessions, "d2e3f4a5-0000-4b6c-8d7e-9f0a1b2c3d4e")
	if sub.Title != "Sub-agent: Find every test that opens testdata/k2.json" || sub.Project != "plant-control" {
		t.Errorf("sub-composer title %q project %q", sub.Title, sub.Project)
	}
	if got := roleSeq(sessionByID(t, p.sessions, "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b")); got != "user:text assistant:text" {
		t.Errorf("inline composer %s", got)
	}
	if got := roleSeq(sessionByID(t, p.sessions, "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f")); got != "user:text assistant:text" {
		t.Errorf("conversationMap composer %s", got)
	}
}

// A workspace database of 0.4x: its chat panel's tabs and a composer with
// its conversation inline, in the workspace's folder; the composers it only
// lists are the global database's.
func TestCursorWorkspaceDB(t *testing.T) {
	p := parseFile(t, ParseCursorDB, testdata(cursorWorkspace))
	if p.err != nil || len(p.sessions) != 2 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	tab := sessionByID(t, p.sessions, "f0e1d2c3-b4a5-4968-8776-655443322110")
	checkTurns(t, tab, []want{
		{"t1", "2024-04-05T06:53:20Z", "user", []funes.Block{txt("What does valve_timing() return?")}},
		{"t2", "2024-04-05T06:53:20Z", "assistant", []funes.Block{txt("The opening angle in degrees.")}},
	})
	if tab.Title != "Valve timing" || tab.Project != "plant-control" {
		t.Errorf("tab title %q project %q", tab.Title, tab.Project)
	}
	if c := sessionByID(t, p.sessions, "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"); c.Title != "Pump curve" || roleSeq(c) != "user:text assistant:text" {
		t.Errorf("inline composer %q %s", c.Title, roleSeq(c))
	}
	// A workspace database with no conversation is recognised by nothing
	// (VS Code's own state.vscdb looks the same).
	if _, err := Detect(context.Background(), testdata("cursor/User/workspaceStorage/0a1b2c3d4e5f60718293a4b5c6d7e8f9/state.vscdb")); err == nil {
		t.Error("a state.vscdb without Cursor's keys was recognised")
	}
}

// The agent's transcripts: the .jsonl with <timestamp>s and a sub-agent,
// and the older .txt; the folder from the paths they mention that encode
// to their project folder's name.
func TestCursorTranscripts(t *testing.T) {
	p := parseFile(t, ParseCursorTranscript, testdata(cursorTxDir, cursorTxMain, cursorTxMain+".jsonl"))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	if got, want := roleSeq(s), "user:text assistant:text,tool_use,tool_use user:text assistant:text,tool_use system:text"; got != want {
		t.Fatalf("turns\n got %s\nwant %s", got, want)
	}
	if s.ID != cursorTxMain || s.Workdir != "/home/ana/src/plant-control" || s.Project != "plant-control" ||
		s.Title != "Why is the K-2 sensor reading zero after the refactor?" {
		t.Errorf("id %s workdir %q project %q title %q", s.ID, s.Workdir, s.Project, s.Title)
	}
	if got := s.Turns[0].TS.Format("2006-01-02T15:04Z07:00"); got != "2026-09-21T07:14Z" || !s.Turns[1].TS.Equal(s.Turns[0].TS) {
		t.Errorf("times %v %v (9:14 at UTC+2)", s.Turns[0].TS, s.Turns[1].TS)
	}
	sub := parseFile(t, ParseCursorTranscript, testdata(cursorTxDir, cursorTxMain, "subagents", "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9.jsonl"))
	if sub.err != nil || len(sub.sessions) != 1 || !strings.HasPrefix(sub.sessions[0].Title, "Sub-agent: Find every caller") {
		t.Fatalf("sub-agent: err %v %v", sub.err, sub.sessions)
	}
	txt := parseFile(t, ParseCursorTranscript, testdata(cursorTxDir, "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d.txt"))
	if txt.err != nil || len(txt.sessions) != 1 {
		t.Fatalf(".txt: err %v %v", txt.err, txt.sessions)
	}
	if got, want := roleSeq(txt.sessions[0]), "user:text assistant:thinking,text,tool_use tool:tool_result assistant:text user:text"; got != want {
		t.Errorf(".txt turns\n got %s\nwant %s", got, want)
	}
	if r := txt.sessions[0].Turns[2].Blocks[0]; r != result("Write", "Wrote 12 lines.") {
		t.Errorf(".txt result %+v", r)
	}
}

// When the memory holds the IDE's copy of a conversation (its turns are
// bubbles), its transcript leaves it unchanged; a transcript stored before
// is replaced by its grown self, and by the IDE's copy.
func TestCursorTranscriptDefersToIDE(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tx := filepath.Join(dir, "projects", "home-ana-src-plant-control", "agent-transcripts", cursorModern+".jsonl")
	os.MkdirAll(filepath.Dir(tx), 0o755)
	os.WriteFile(tx, []byte(`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nWhy does the K-2 pressure test fail on CI?\n</user_query>"}]}}`+"\n"), 0o644)
	m := newMemory(t)
	if sum, err := Run(ctx, m, []string{tx}, Options{}); err != nil || sum.New != 1 {
		t.Fatalf("transcript alone: %v %+v", err, sum)
	}
	os.WriteFile(tx, []byte(`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nWhy does the K-2 pressure test fail on CI?\n</user_query>"}]}}`+"\n"+
		`{"role":"assistant","message":{"content":[{"type":"text","text":"Looking."}]}}`+"\n"), 0o644)
	if sum, err := Run(ctx, m, []string{tx}, Options{}); err != nil || sum.Updated != 1 {
		t.Fatalf("grown transcript: %v %+v", err, sum)
	}
	if sum, err := Run(ctx, m, []string{testdata(cursorGlobal)}, Options{}); err != nil || sum.Updated != 1 {
		t.Fatalf("the IDE's copy: %v %+v", err, sum)
	}
	sum, err := Run(ctx, m, []string{tx}, Options{})
	if err != nil || sum.Updated+sum.New != 0 || sum.Unchanged != 1 {
		t.Fatalf("transcript after the IDE's copy: %v %+v", err, sum)
	}
	s, ok, _ := m.StoredSession(ctx, funes.HarnessCursor, cursorModern)
	if !ok || len(s.Turns) != 9 {
		t.Fatalf("stored: %v %d turns", ok, len(s.Turns))
	}
}

// Bad input: a damaged database fails whole with the memory unchanged; a
// value too large or not UTF-8 costs its conversation only, named.
func TestCursorBadDB(t *testing.T) {
	ctx := context.Background()
	data, _ := os.ReadFile(testdata(cursorGlobal))
	dir := filepath.Join(t.TempDir(), "globalStorage")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "state.vscdb")
	os.WriteFile(path, data, 0o644)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE cursorDiskKV SET value = CAST(X'7b2274657874223a2263616699227d' AS BLOB) WHERE key = 'bubbleId:` + cursorModern + `:a3-55e0'`,
		`UPDATE cursorDiskKV SET value = '{"_v":2,"composerId":"7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b","conversation":[{"type":1,"text":"` + strings.Repeat("x", 5000) + `"}]}' WHERE key = 'composerData:7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	old := maxRowBytes
	maxRowBytes = 4000
	defer func() { maxRowBytes = old }()
	p := parseFile(t, ParseCursorDB, path)
	if p.err != nil || len(p.sessions) != 2 || len(p.skipped) != 2 {
		t.Fatalf("bad values: err %v, %d sessions, skipped %q", p.err, len(p.sessions), p.skipped)
	}
	if !strings.Contains(p.skipped[0], "composer "+cursorModern+": bubble a3-55e0: its value is not UTF-8") ||
		!strings.Contains(p.skipped[1], "larger than the 3 KiB") {
		t.Errorf("skipped %q", p.skipped)
	}

	m := newMemory(t)
	before := snapshot(t, m)
	for i := 4096; i < len(data); i++ {
		data[i] ^= 0x5a
	}
	os.WriteFile(path, data, 0o644)
	sum, err := Run(ctx, m, []string{path}, Options{})
	if err == nil || sum.Failed != 1 || !strings.Contains(sum.Failures[0].Path, "state.vscdb") {
		t.Fatalf("damaged: err %v, summary %+v", err, sum)
	}
	if snapshot(t, m) != before {
		t.Fatal("a damaged database changed the memory")
	}
}
