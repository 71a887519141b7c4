package capture

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
)

// The hook inputs of Gemini CLI, Cursor, Copilot CLI and Ireneo's opencode
// plugin, in the shapes each sends (Gemini's and Copilot's as their 0.61
// and 1.0 releases sent them to a test hook here).

func touch(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func env(home string, vars map[string]string) Env {
	return Env{Home: home, Getenv: func(k string) string { return vars[k] }}
}

func TestParseGeminiCLI(t *testing.T) {
	home := t.TempDir()
	tp := touch(t, filepath.Join(home, ".gemini", "tmp", "proj", "chats", "session-2026-12-01T19-54-7e832400.jsonl"))
	in := `{"session_id":"7e832400-ac0f-47d2-b7e7-fc08e8a714ea","transcript_path":"` + tp + `","cwd":"/home/ana/plant-control","hook_event_name":"SessionEnd","timestamp":"2026-12-01T19:55:00.000Z","reason":"exit"}`
	e, err := ParseGeminiCLI(strings.NewReader(in))
	if err != nil || e.Harness != GeminiCLI || e.Transcript != tp || e.Reason != "exit" || e.Throttled() {
		t.Fatalf("%+v %v", e, err)
	}
	after := strings.Replace(in, "SessionEnd", "AfterAgent", 1)
	if e, err := ParseGeminiCLI(strings.NewReader(after)); err != nil || !e.Throttled() {
		t.Fatalf("AfterAgent: %+v %v", e, err)
	}
	legacy := touch(t, filepath.Join(home, "session-old.json"))
	if _, err := ParseGeminiCLI(strings.NewReader(strings.Replace(in, tp, legacy, 1))); err != nil {
		t.Fatalf("a pre-0.3x .json session: %v", err)
	}
	for _, bad := range []string{``, `[]`, `{"session_id":"../x","transcript_path":"` + tp + `","hook_event_name":"SessionEnd"}`,
		strings.Replace(in, tp, "relative.jsonl", 1), strings.Replace(in, tp, "/etc/passwd", 1), strings.Replace(in, `"SessionEnd"`, `""`, 1),
		strings.Replace(in, tp, filepath.Join(home, "missing.jsonl"), 1)} {
		if _, err := ParseGeminiCLI(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if _, err := ParseGeminiCLI(strings.NewReader(strings.Repeat(" ", maxInput+1))); err == nil {
		t.Error("accepted an oversized input")
	}
}

func TestParseCursor(t *testing.T) {
	home := t.TempDir()
	id := "6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e"
	nested := touch(t, filepath.Join(home, ".cursor", "projects", "home-ana-src", "agent-transcripts", id, id+".jsonl"))
	// The IDE names the transcript; the CLI sends null, and the id finds it.
	in := `{"conversation_id":"` + id + `","generation_id":"g1","model":"x","hook_event_name":"stop","cursor_version":"3.7.21","workspace_roots":["/home/ana/src"],"user_email":null,"transcript_path":null,"status":"completed","loop_count":0}`
	e, err := ParseCursor(strings.NewReader(in), env(home, nil))
	if err != nil || e.Transcript != nested || e.Cwd != "/home/ana/src" || !e.Throttled() {
		t.Fatalf("CLI stop: %+v %v", e, err)
	}
	flat := touch(t, filepath.Join(home, "elsewhere", id+".jsonl"))
	named := strings.Replace(strings.Replace(in, `"transcript_path":null`, `"transcript_path":"`+flat+`"`, 1), `"stop"`, `"sessionEnd"`, 1)
	if e, err := ParseCursor(strings.NewReader(named), env(home, nil)); err != nil || e.Transcript != flat || e.Throttled() {
		t.Fatalf("IDE sessionEnd: %+v %v", e, err)
	}
	// No transcript: the IDE's database, where older versions keep chats.
	other := "0a0b0c0d-0000-4000-8000-000000000000"
	db := touch(t, filepath.Join(home, "cfg", "Cursor", "User", "globalStorage", "state.vscdb"))
	if e, err := ParseCursor(strings.NewReader(strings.Replace(in, id, other, 1)), env(home, map[string]string{"XDG_CONFIG_HOME": filepath.Join(home, "cfg")})); err != nil || e.Transcript != db {
		t.Fatalf("no transcript: %+v %v", e, err)
	}
	if _, err := ParseCursor(strings.NewReader(strings.Replace(in, id, other, 1)), env(t.TempDir(), nil)); err == nil {
		t.Error("accepted a conversation with no file anywhere")
	}
	if _, err := ParseCursor(strings.NewReader(strings.Replace(in, `"transcript_path":null`, `"transcript_path":"/etc/passwd"`, 1)), env(home, nil)); err == nil {
		t.Error("accepted /etc/passwd as a transcript")
	}
}

func TestParseCopilotCLI(t *testing.T) {
	home := t.TempDir()
	id := "3e2a61be-75c7-4cbe-a3b6-4acc266ce68b"
	events := touch(t, filepath.Join(home, "cp", "session-state", id, "events.jsonl"))
	end := `{"sessionId":"` + id + `","timestamp":1796154000000,"cwd":"/home/ana/plant-control","reason":"complete"}`
	e, err := ParseCopilotCLI(strings.NewReader(end), env(home, map[string]string{"COPILOT_HOME": filepath.Join(home, "cp")}))
	if err != nil || e.Name != "sessionEnd" || e.Transcript != events || e.Throttled() {
		t.Fatalf("sessionEnd: %+v %v", e, err)
	}
	stop := `{"sessionId":"` + id + `","timestamp":1796154000000,"cwd":"/home/ana/plant-control","transcriptPath":"` + events + `","stopReason":"end_turn","stop_hook_active":false}`
	if e, err := ParseCopilotCLI(strings.NewReader(stop), env(home, nil)); err != nil || e.Name != "agentStop" || e.Transcript != events || !e.Throttled() {
		t.Fatalf("agentStop: %+v %v", e, err)
	}
	// ~/.copilot when COPILOT_HOME is not set.
	def := touch(t, filepath.Join(home, ".copilot", "session-state", id, "events.jsonl"))
	if e, err := ParseCopilotCLI(strings.NewReader(end), env(home, nil)); err != nil || e.Transcript != def {
		t.Fatalf("default home: %+v %v", e, err)
	}
	// A transcriptPath that is not the session's events is not trusted.
	if e, err := ParseCopilotCLI(strings.NewReader(strings.Replace(stop, events, "/etc/passwd", 1)), env(home, nil)); err != nil || e.Transcript != def {
		t.Fatalf("odd transcriptPath: %+v %v", e, err)
	}
	for _, bad := range []string{`{}`, `{"sessionId":"../../x"}`, `{"sessionId":"no-such-session"}`, `nope`} {
		if _, err := ParseCopilotCLI(strings.NewReader(bad), env(home, nil)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// Copilot CLI 1.0.102 runs its sessionEnd hook before it writes
// events.jsonl: the hook finds the session's folder, with workspace.yaml
// and the process's inuse lock, and the file comes as the process exits.
// The hook takes the event, and the import waits for the file and for the
// lock to go (TestCopilotCLIHooksFire runs the real CLI).
func TestCopilotEventsWrittenAfterTheHook(t *testing.T) {
	home := t.TempDir()
	id := "f805b772-3a15-47a9-bee9-673cf822b683"
	dir := filepath.Join(home, ".copilot", "session-state", id)
	touch(t, filepath.Join(dir, "workspace.yaml"))
	lock := touch(t, filepath.Join(dir, "inuse.31564.lock"))
	end := `{"sessionId":"` + id + `","timestamp":1796168317189,"cwd":"/home/ana/plant-control","reason":"complete"}`
	e, err := ParseCopilotCLI(strings.NewReader(end), env(home, nil))
	events := filepath.Join(dir, "events.jsonl")
	if err != nil || e.Transcript != events || e.Name != "sessionEnd" {
		t.Fatalf("a session whose events are not written yet: %+v %v", e, err)
	}
	if err := checkEvent(e); err != nil {
		t.Fatalf("the queue refuses it: %v", err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		os.WriteFile(events, []byte("{}\n"), 0o600)
		time.Sleep(300 * time.Millisecond)
		os.Remove(lock)
	}()
	start := time.Now()
	if err := waitTranscript(context.Background(), e, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lock); err == nil {
		t.Fatalf("the wait ended after %v with the session still in use", time.Since(start))
	}
	// Never written: a clear error once the bound passes.
	gone := strings.Replace(end, id, "0a0b0c0d-0000-4000-8000-000000000001", 1)
	touch(t, filepath.Join(home, ".copilot", "session-state", "0a0b0c0d-0000-4000-8000-000000000001", "workspace.yaml"))
	e, err = ParseCopilotCLI(strings.NewReader(gone), env(home, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := waitTranscript(context.Background(), e, 500*time.Millisecond); err == nil || !strings.Contains(err.Error(), "not written") {
		t.Fatalf("a transcript never written: %v", err)
	}
}

func TestParseOpenCode(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, "data")
	older := touch(t, filepath.Join(data, "opencode", "opencode-old.db"))
	os.Chtimes(older, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	db := touch(t, filepath.Join(data, "opencode", "opencode.db"))
	in := `{"session_id":"ses_dccd14224ffev10NAckpUvb0HO","hook_event_name":"session.idle","cwd":"/home/ana/plant-control"}`
	e, err := ParseOpenCode(strings.NewReader(in), env(home, map[string]string{"XDG_DATA_HOME": data}))
	if err != nil || e.Transcript != db || !e.Throttled() {
		t.Fatalf("%+v %v", e, err)
	}
	if e, err := ParseOpenCode(strings.NewReader(strings.Replace(in, "session.idle", "session.compacted", 1)), env(home, map[string]string{"XDG_DATA_HOME": data})); err != nil || e.Throttled() {
		t.Fatalf("compacted: %+v %v", e, err)
	}
	if _, err := ParseOpenCode(strings.NewReader(in), env(t.TempDir(), nil)); err == nil || !strings.Contains(err.Error(), "no opencode database") {
		t.Errorf("no database: %v", err)
	}
}

// TestEnqueueSources: the queue takes the new harnesses' events, each
// with its own kind of file, and nothing else.
func TestEnqueueSources(t *testing.T) {
	dir := newMemory(t)
	home := t.TempDir()
	for _, e := range []Event{
		{Harness: GeminiCLI, Name: "SessionEnd", SessionID: "g1", Transcript: touch(t, filepath.Join(home, "s.jsonl"))},
		{Harness: Cursor, Name: "stop", SessionID: "c1", Transcript: touch(t, filepath.Join(home, "state.vscdb"))},
		{Harness: CopilotCLI, Name: "sessionEnd", SessionID: "p1", Transcript: touch(t, filepath.Join(home, "events.jsonl"))},
		{Harness: OpenCode, Name: "session.idle", SessionID: "o1", Transcript: touch(t, filepath.Join(home, "opencode.db"))},
	} {
		if ok, err := Enqueue(dir, e); !ok || err != nil {
			t.Errorf("%s: %v %v", e.Harness, ok, err)
		}
	}
	for _, e := range []Event{
		{Harness: "aider", Name: "x", SessionID: "a1", Transcript: filepath.Join(home, "s.jsonl")},
		{Harness: OpenCode, Name: "session.idle", SessionID: "o2", Transcript: filepath.Join(home, "s.jsonl")},
		{Harness: GeminiCLI, Name: "SessionEnd", SessionID: "g2"},
	} {
		if _, err := Enqueue(dir, e); err == nil {
			t.Errorf("queued %+v", e)
		}
	}
}

// TestGeminiSessionsAtRisk: sessions not in the memory that Gemini CLI's
// retention deletes within a week are counted; imported ones are not.
func TestGeminiSessionsAtRisk(t *testing.T) {
	mdir := newMemory(t)
	m, err := memory.Open(mdir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tmp := t.TempDir()
	real := "../importers/testdata/gemini-cli/0.61/tmp/proj/chats/session-2026-12-01T19-54-7e832400.jsonl"
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, age := range []time.Duration{40 * 24 * time.Hour, 25 * 24 * time.Hour, 2 * 24 * time.Hour} {
		p := filepath.Join(tmp, "proj", "chats", "session-2026-0"+string(rune('1'+i))+".jsonl")
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(strings.Replace(string(b), "7e832400-ac0f", "7e832400-ac0"+string(rune('a'+i)), 1)), 0o600)
		os.Chtimes(p, now.Add(-age), now.Add(-age))
	}
	r, err := GeminiSessionsAtRisk(context.Background(), m, tmp, 30*24*time.Hour, now)
	if err != nil || r.NotImported != 3 || r.AtRisk != 2 {
		t.Fatalf("before import: %+v %v", r, err)
	}
	if w := r.Warning(tmp); !strings.Contains(w, "after 30 days") || !strings.Contains(w, "2 Gemini CLI sessions") {
		t.Errorf("warning: %s", w)
	}
	if _, err := importers.Run(context.Background(), m, []string{tmp}, importers.Options{}); err != nil {
		t.Fatal(err)
	}
	list, _, _ := conversations.List(context.Background(), m, conversations.Query{Source: funes.HarnessGeminiCLI, Limit: 10})
	if len(list) < 3 {
		t.Fatalf("imported %d sessions", len(list))
	}
	if r, _ := GeminiSessionsAtRisk(context.Background(), m, tmp, 30*24*time.Hour, now); r.NotImported != 0 || r.Warning(tmp) != "" {
		t.Errorf("after import: %+v", r)
	}
}

// TestSessionsAtRisk: Claude Code sessions not in the memory that its
// cleanup deletes within a week are counted; imported ones, subagents'
// files and other files are not.
func TestSessionsAtRisk(t *testing.T) {
	mdir := newMemory(t)
	m, err := memory.Open(mdir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	real := "../importers/testdata/real/claude-code/flat-layout/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	projects := t.TempDir()
	now := time.Now()
	ids := []string{"4c2ddfdc-b619-4525-8d03-1950fb1b0257", "5c2ddfdc-b619-4525-8d03-1950fb1b0257", "6c2ddfdc-b619-4525-8d03-1950fb1b0257"}
	for i, age := range []time.Duration{28 * 24 * time.Hour, 25 * 24 * time.Hour, 2 * 24 * time.Hour} {
		p := filepath.Join(projects, "-tmp-private", ids[i]+".jsonl")
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(strings.ReplaceAll(string(b), ids[0], ids[i])), 0o600)
		os.Chtimes(p, now.Add(-age), now.Add(-age))
	}
	sub := filepath.Join(projects, "-tmp-private", ids[0], "subagents", "agent-1.jsonl")
	os.MkdirAll(filepath.Dir(sub), 0o700)
	os.WriteFile(sub, b, 0o600)
	os.Chtimes(sub, now.Add(-29*24*time.Hour), now.Add(-29*24*time.Hour))
	os.WriteFile(filepath.Join(projects, "-tmp-private", "notes.txt"), []byte("x"), 0o600)
	r, err := SessionsAtRisk(context.Background(), m, projects, 30, now)
	if err != nil || r.NotImported != 3 || r.AtRisk != 2 {
		t.Fatalf("before import: %+v %v", r, err)
	}
	if w := r.Warning(projects); !strings.Contains(w, "after 30 days") || !strings.Contains(w, "2 Claude Code sessions") {
		t.Errorf("warning: %s", w)
	}
	if _, err := importers.Run(context.Background(), m, []string{projects}, importers.Options{}); err != nil {
		t.Fatal(err)
	}
	if r, _ := SessionsAtRisk(context.Background(), m, projects, 30, now); r.NotImported != 0 || r.Warning(projects) != "" {
		t.Errorf("after import: %+v", r)
	}
}
