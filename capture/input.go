package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Harnesses a hook can come from, by the name `ireneo hook` takes.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
)

// maxInput bounds a hook's JSON: the real ones are a few hundred bytes (a
// Codex notify carries the turn's messages, so allow more).
const maxInput = 4 << 20

// Event is what a hook says happened, in the fields Ireneo uses.
type Event struct {
	Harness   string `json:"harness"`
	Name      string `json:"event"` // SessionEnd, PreCompact, Stop; agent-turn-complete for Codex
	SessionID string `json:"session_id"`
	// Transcript is the session's file: given by Claude Code, found for Codex.
	Transcript string `json:"transcript,omitempty"`
	Cwd        string `json:"cwd,omitempty"`
	Reason     string `json:"reason,omitempty"` // SessionEnd's reason (clear, logout, exit, …)
}

// Throttled reports whether the event fires after every reply, so its
// imports are spaced out.
func (e Event) Throttled() bool {
	return e.Name == "Stop" || e.Name == "SubagentStop" || e.Harness == Codex || throttledSource(e)
}

// ParseClaudeCode reads a Claude Code hook's input: one JSON object with
// session_id, transcript_path, cwd, hook_event_name and, for SessionEnd,
// reason.
func ParseClaudeCode(r io.Reader) (Event, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return Event{}, fmt.Errorf("read the hook input: %w", err)
	}
	if len(data) > maxInput {
		return Event{}, fmt.Errorf("hook input is larger than %d bytes", maxInput)
	}
	var in struct {
		SessionID      string `json:"session_id"`
		TranscriptPath string `json:"transcript_path"`
		Cwd            string `json:"cwd"`
		HookEventName  string `json:"hook_event_name"`
		Reason         string `json:"reason"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return Event{}, fmt.Errorf("hook input is not the JSON object Claude Code sends: %v", err)
	}
	e := Event{Harness: ClaudeCode, Name: in.HookEventName, SessionID: in.SessionID, Transcript: in.TranscriptPath, Cwd: in.Cwd, Reason: in.Reason}
	if err := checkID(e.SessionID); err != nil {
		return Event{}, fmt.Errorf("hook input: session_id: %w", err)
	}
	if e.Name == "" {
		return Event{}, errors.New("hook input has no hook_event_name")
	}
	if err := checkTranscript(e.Transcript); err != nil {
		return Event{}, fmt.Errorf("hook input: transcript_path: %w", err)
	}
	return e, nil
}

// ParseCodex reads the JSON Codex gives its notify program as the last
// argument; only agent-turn-complete names a thread.
func ParseCodex(arg string) (Event, error) {
	if len(arg) > maxInput {
		return Event{}, fmt.Errorf("notify input is larger than %d bytes", maxInput)
	}
	var in struct {
		Type     string `json:"type"`
		ThreadID string `json:"thread-id"`
		Cwd      string `json:"cwd"`
	}
	if err := json.Unmarshal([]byte(arg), &in); err != nil {
		return Event{}, fmt.Errorf("notify input is not the JSON object Codex sends: %v", err)
	}
	if in.Type != "agent-turn-complete" {
		return Event{}, fmt.Errorf("notify input of type %q names no session", in.Type)
	}
	if err := checkID(in.ThreadID); err != nil {
		return Event{}, fmt.Errorf("notify input: thread-id: %w", err)
	}
	return Event{Harness: Codex, Name: in.Type, SessionID: in.ThreadID, Cwd: in.Cwd}, nil
}

// checkID accepts a session id that is safe in a file name.
func checkID(id string) error {
	if id == "" {
		return errors.New("missing")
	}
	if len(id) > 128 {
		return errors.New("longer than 128 characters")
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') || id == "." || id == ".." {
			return fmt.Errorf("%q is not a session id", id)
		}
	}
	return nil
}

// checkTranscript accepts an absolute path to an existing .jsonl file.
func checkTranscript(p string) error {
	if p == "" {
		return errors.New("missing")
	}
	if !filepath.IsAbs(p) {
		return fmt.Errorf("%s is not an absolute path", p)
	}
	if !strings.HasSuffix(p, ".jsonl") {
		return fmt.Errorf("%s is not a .jsonl transcript", p)
	}
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a file", p)
	}
	return nil
}

// FindCodexRollout finds thread's rollout under codexHome/sessions (and
// archived_sessions): rollout-<time>-<thread-id>.jsonl in dated folders.
// The newest folders are looked at first.
func FindCodexRollout(codexHome, thread string) (string, error) {
	if err := checkID(thread); err != nil {
		return "", fmt.Errorf("thread-id: %w", err)
	}
	suffix := "-" + thread + ".jsonl"
	for _, sub := range []string{"sessions", "archived_sessions"} {
		root := filepath.Join(codexHome, sub)
		if found := findNewestFirst(root, suffix, 0); found != "" {
			return found, nil
		}
	}
	return "", fmt.Errorf("no rollout of thread %s under %s: %w", thread, filepath.Join(codexHome, "sessions"), fs.ErrNotExist)
}

// findNewestFirst walks dir's entries in reverse name order (YYYY/MM/DD
// folders sort by date) for a file ending in suffix.
func findNewestFirst(dir, suffix string, depth int) string {
	entries, err := os.ReadDir(dir)
	if err != nil || depth > 4 {
		return ""
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if found := findNewestFirst(p, suffix, depth+1); found != "" {
				return found
			}
			continue
		}
		if strings.HasPrefix(e.Name(), "rollout-") && strings.HasSuffix(e.Name(), suffix) {
			return p
		}
	}
	return ""
}
