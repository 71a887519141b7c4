package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseClaudeCode(t *testing.T) {
	tp := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(tp, []byte("{}\n"), 0o600)
	e, err := ParseClaudeCode(strings.NewReader(`{"session_id":"abc-1","transcript_path":"` + tp + `","cwd":"/w","hook_event_name":"SessionEnd","reason":"clear"}`))
	if err != nil || e.SessionID != "abc-1" || e.Transcript != tp || e.Reason != "clear" || e.Throttled() {
		t.Fatalf("%+v %v", e, err)
	}
	for _, bad := range []string{``, `[]`, `{"session_id":"a/b","transcript_path":"` + tp + `","hook_event_name":"Stop"}`,
		`{"session_id":"a","transcript_path":"` + tp + `"}`, `{"session_id":"a","transcript_path":"/etc/passwd","hook_event_name":"Stop"}`,
		`{"session_id":"a","transcript_path":"` + filepath.Dir(tp) + `.jsonl","hook_event_name":"Stop"}`} {
		if _, err := ParseClaudeCode(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if _, err := ParseClaudeCode(strings.NewReader(strings.Repeat(" ", maxInput+1))); err == nil {
		t.Error("accepted an oversized input")
	}
}

func TestParseCodexAndFindRollout(t *testing.T) {
	home := t.TempDir()
	id := "0195a000-0000-7000-8000-000000000001"
	older := filepath.Join(home, "sessions", "2026", "02", "28", "rollout-2026-02-28T10-00-00-"+id+".jsonl")
	newer := filepath.Join(home, "sessions", "2026", "03", "01", "rollout-2026-03-01T10-00-00-"+id+".jsonl")
	for _, p := range []string{older, newer} {
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("{}\n"), 0o600)
	}
	e, err := ParseCodex(`{"type":"agent-turn-complete","thread-id":"` + id + `","turn-id":"1"}`)
	if err != nil || e.SessionID != id || !e.Throttled() {
		t.Fatalf("%+v %v", e, err)
	}
	if p, err := FindCodexRollout(home, id); err != nil || p != newer {
		t.Fatalf("found %s, %v", p, err)
	}
	if _, err := FindCodexRollout(home, "0195a000-0000-7000-8000-00000000ffff"); err == nil {
		t.Fatal("found a rollout for an unknown thread")
	}
	for _, bad := range []string{`{"type":"approval-requested","thread-id":"x"}`, `{"type":"agent-turn-complete"}`, `nope`,
		`{"type":"agent-turn-complete","thread-id":"../x"}`} {
		if _, err := ParseCodex(bad); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func TestLogKeepsErrorsApart(t *testing.T) {
	dir := t.TempDir()
	Log(dir, time.Now(), "claude-code SessionEnd session a: imported 1 new")
	Log(dir, time.Now(), "codex notify %sbad", ErrorMark)
	lines, err := ReadLog(dir, 10)
	if err != nil || len(lines) != 2 || lines[0].Error || !lines[1].Error {
		t.Fatalf("%+v %v", lines, err)
	}
}

// TestLogFallsBack: when the memory folder cannot be written, the line
// goes to the fallback log, which ReadLog reads too; when neither can be
// written, Log says so.
func TestLogFallsBack(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(blocker, nil, 0o600)
	mem := filepath.Join(blocker, "mem") // under a file: nothing can be made there
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if err := Log(mem, time.Now(), "claude-code SessionEnd session s1 %sread-only file system", ErrorMark); err != nil {
		t.Fatal(err)
	}
	lines, err := ReadLog(mem, 10)
	if err != nil || len(lines) != 1 || !lines[0].Error || lines[0].File != FallbackLogPath(mem) {
		t.Fatalf("%+v %v", lines, err)
	}
	t.Setenv("XDG_STATE_HOME", filepath.Join(blocker, "state"))
	if err := Log(mem, time.Now(), "lost"); err == nil {
		t.Fatal("Log wrote nowhere and said nothing")
	}
}
