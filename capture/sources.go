package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The harnesses added with issue 31, by the name `ireneo hook` takes, and
// what their hooks send:
//
//   - Gemini CLI's SessionEnd, PreCompress and AfterAgent hooks (settings.json
//     "hooks"): JSON on stdin with session_id, transcript_path (the
//     session's chats/session-*.jsonl, or .json before 0.3x), cwd,
//     hook_event_name, reason.
//   - Cursor's sessionEnd and stop hooks (~/.cursor/hooks.json): JSON on stdin
//     with conversation_id, hook_event_name and, from the IDE,
//     transcript_path (null from the CLI, so the agent transcript is found
//     by the id, else the IDE's state.vscdb is imported).
//   - Copilot CLI's sessionEnd and agentStop hooks (~/.copilot/hooks/*.json):
//     JSON on stdin with sessionId, cwd, reason; agentStop adds
//     transcriptPath. The session's events.jsonl is found by the id.
//   - opencode's plugin (~/.config/opencode/plugins/ireneo-capture.js) on
//     session.idle and session.compacted: JSON on stdin with session_id,
//     hook_event_name, cwd. Its sessions live in one database, which is
//     what is imported.
const (
	GeminiCLI  = "gemini-cli"
	Cursor     = "cursor"
	CopilotCLI = "copilot-cli"
	OpenCode   = "opencode"
)

// transcriptExts are the files an event of each harness may name.
var transcriptExts = map[string][]string{
	ClaudeCode: {".jsonl"},
	Codex:      {".jsonl"},
	GeminiCLI:  {".jsonl", ".json"},
	Cursor:     {".jsonl", ".txt", ".vscdb"},
	CopilotCLI: {".jsonl"},
	OpenCode:   {".db"},
}

// knownHarness reports whether a hook can come from harness.
func knownHarness(harness string) bool {
	_, ok := transcriptExts[harness]
	return ok
}

// throttledSource reports the events of the new harnesses that fire after
// every reply.
func throttledSource(e Event) bool {
	switch e.Harness {
	case GeminiCLI:
		return e.Name == "AfterAgent"
	case Cursor:
		return e.Name == "stop" || e.Name == "subagentStop"
	case CopilotCLI:
		return e.Name == "agentStop" || e.Name == "subagentStop"
	case OpenCode:
		return e.Name == "session.idle"
	}
	return false
}

// checkTranscriptOf accepts an absolute path to an existing file of one of
// the kinds harness's sessions are kept in, or to one a harness writes
// after its hook has fired (pendingTranscript).
func checkTranscriptOf(harness, p string) error {
	if p == "" {
		return errors.New("missing")
	}
	if !filepath.IsAbs(p) {
		return fmt.Errorf("%s is not an absolute path", p)
	}
	exts := transcriptExts[harness]
	ok := false
	for _, x := range exts {
		ok = ok || strings.HasSuffix(p, x)
	}
	if !ok {
		return fmt.Errorf("%s is not a %s session file (%s)", p, harness, strings.Join(exts, ", "))
	}
	st, err := os.Stat(p)
	if err != nil {
		if pendingTranscript(harness, p) {
			return nil
		}
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a file", p)
	}
	return nil
}

// pendingTranscript reports a transcript the harness has not written yet
// though its session's folder is there: Copilot CLI 1.0 runs its
// sessionEnd hook before it writes events.jsonl (seen with 1.0.102: the
// hook finds session-state/<id>/ with workspace.yaml and its inuse lock,
// and events.jsonl appears as the process exits). The import waits for it
// (waitTranscript).
func pendingTranscript(harness, p string) bool {
	if harness != CopilotCLI || filepath.Base(p) != "events.jsonl" {
		return false
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	st, err := os.Stat(filepath.Dir(p))
	return err == nil && st.IsDir()
}

// Env is the harness's environment where its hook runs: the folders it
// keeps sessions in follow the variables it follows.
type Env struct {
	Home   string
	Getenv func(string) string
}

func (e Env) get(k string) string {
	if e.Getenv == nil {
		return os.Getenv(k)
	}
	return e.Getenv(k)
}

func (e Env) home() string {
	if e.Home != "" {
		return e.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// readInput reads a hook's JSON object from r into v.
func readInput(r io.Reader, harness string, v any) error {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return fmt.Errorf("read the hook input: %w", err)
	}
	if len(data) > maxInput {
		return fmt.Errorf("hook input is larger than %d bytes", maxInput)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("hook input is not the JSON object %s sends: %v", harness, err)
	}
	return nil
}

// ParseGeminiCLI reads a Gemini CLI hook's input.
func ParseGeminiCLI(r io.Reader) (Event, error) {
	var in struct {
		SessionID      string `json:"session_id"`
		TranscriptPath string `json:"transcript_path"`
		Cwd            string `json:"cwd"`
		HookEventName  string `json:"hook_event_name"`
		Reason         string `json:"reason"`
	}
	if err := readInput(r, "Gemini CLI", &in); err != nil {
		return Event{}, err
	}
	e := Event{Harness: GeminiCLI, Name: in.HookEventName, SessionID: in.SessionID, Transcript: in.TranscriptPath, Cwd: in.Cwd, Reason: in.Reason}
	return e, checkParsed(e)
}

// ParseCursor reads a Cursor hook's input. Without a transcript_path (the
// CLI's hooks, older IDEs) the conversation's agent transcript is looked
// for under ~/.cursor/projects, else the IDE's own database stands in.
func ParseCursor(r io.Reader, env Env) (Event, error) {
	var in struct {
		ConversationID string   `json:"conversation_id"`
		SessionID      string   `json:"session_id"`
		TranscriptPath *string  `json:"transcript_path"`
		HookEventName  string   `json:"hook_event_name"`
		Roots          []string `json:"workspace_roots"`
		Reason         string   `json:"reason"`
	}
	if err := readInput(r, "Cursor", &in); err != nil {
		return Event{}, err
	}
	e := Event{Harness: Cursor, Name: in.HookEventName, SessionID: in.ConversationID, Reason: in.Reason}
	if e.SessionID == "" {
		e.SessionID = in.SessionID
	}
	if len(in.Roots) > 0 {
		e.Cwd = in.Roots[0]
	}
	if in.TranscriptPath != nil {
		e.Transcript = *in.TranscriptPath
	}
	if e.Transcript == "" && checkID(e.SessionID) == nil {
		e.Transcript = FindCursorTranscript(env, e.SessionID)
	}
	return e, checkParsed(e)
}

// FindCursorTranscript finds conversation id's agent transcript
// (~/.cursor/projects/*/agent-transcripts/<id>.jsonl, <id>/<id>.jsonl or
// <id>.txt), else Cursor's state.vscdb where the IDE keeps its chats; ""
// when neither is there.
func FindCursorTranscript(env Env, id string) string {
	home := env.home()
	if home == "" {
		return ""
	}
	for _, pat := range []string{id + ".jsonl", filepath.Join(id, id+".jsonl"), id + ".txt"} {
		if m, _ := filepath.Glob(filepath.Join(home, ".cursor", "projects", "*", "agent-transcripts", pat)); len(m) > 0 {
			return newest(m)
		}
	}
	var dbs []string
	if a := env.get("APPDATA"); a != "" {
		dbs = append(dbs, filepath.Join(a, "Cursor", "User", "globalStorage", "state.vscdb"))
	}
	cfg := env.get("XDG_CONFIG_HOME")
	if cfg == "" {
		cfg = filepath.Join(home, ".config")
	}
	dbs = append(dbs, filepath.Join(home, "Library", "Application Support", "Cursor", "User", "globalStorage", "state.vscdb"),
		filepath.Join(cfg, "Cursor", "User", "globalStorage", "state.vscdb"))
	for _, p := range dbs {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// ParseCopilotCLI reads a Copilot CLI hook's input and finds the
// session's events.jsonl under $COPILOT_HOME (~/.copilot)/session-state.
func ParseCopilotCLI(r io.Reader, env Env) (Event, error) {
	var in struct {
		SessionID      string `json:"sessionId"`
		TranscriptPath string `json:"transcriptPath"`
		Cwd            string `json:"cwd"`
		Reason         string `json:"reason"`
		StopReason     string `json:"stopReason"`
		HookEventName  string `json:"hookEventName"`
		Event          string `json:"hook_event_name"`
	}
	if err := readInput(r, "Copilot CLI", &in); err != nil {
		return Event{}, err
	}
	e := Event{Harness: CopilotCLI, Name: in.HookEventName, SessionID: in.SessionID, Cwd: in.Cwd, Reason: in.Reason, Transcript: in.TranscriptPath}
	if e.Name == "" {
		e.Name = in.Event
	}
	if e.Name == "" {
		// Copilot CLI does not name the event: agentStop alone carries a
		// stopReason (and the transcript); sessionEnd a reason.
		e.Name = "sessionEnd"
		if in.StopReason != "" || in.TranscriptPath != "" {
			e.Name = "agentStop"
		}
	}
	if checkID(e.SessionID) == nil && (e.Transcript == "" || filepath.Base(e.Transcript) != "events.jsonl") {
		home := env.get("COPILOT_HOME")
		if home == "" && env.home() != "" {
			home = filepath.Join(env.home(), ".copilot")
		}
		e.Transcript = filepath.Join(home, "session-state", e.SessionID, "events.jsonl")
	}
	return e, checkParsed(e)
}

// ParseOpenCode reads what Ireneo's opencode plugin sends and names
// opencode's database, where every session is: the newest opencode*.db in
// $XDG_DATA_HOME/opencode (~/.local/share/opencode).
func ParseOpenCode(r io.Reader, env Env) (Event, error) {
	var in struct {
		SessionID     string `json:"session_id"`
		HookEventName string `json:"hook_event_name"`
		Cwd           string `json:"cwd"`
		Database      string `json:"database"`
	}
	if err := readInput(r, "Ireneo's opencode plugin", &in); err != nil {
		return Event{}, err
	}
	e := Event{Harness: OpenCode, Name: in.HookEventName, SessionID: in.SessionID, Cwd: in.Cwd, Transcript: in.Database}
	if e.Transcript == "" {
		data := env.get("XDG_DATA_HOME")
		if data == "" && env.home() != "" {
			data = filepath.Join(env.home(), ".local", "share")
		}
		dbs, _ := filepath.Glob(filepath.Join(data, "opencode", "opencode*.db"))
		e.Transcript = newest(dbs)
		if e.Transcript == "" {
			return Event{}, fmt.Errorf("no opencode database in %s: %w", filepath.Join(data, "opencode"), fs.ErrNotExist)
		}
	}
	return e, checkParsed(e)
}

// checkParsed checks a parsed event as an import will.
func checkParsed(e Event) error {
	if err := checkID(e.SessionID); err != nil {
		return fmt.Errorf("hook input: session id: %w", err)
	}
	if e.Name == "" {
		return errors.New("hook input names no event")
	}
	if err := checkTranscriptOf(e.Harness, e.Transcript); err != nil {
		return fmt.Errorf("hook input: transcript: %w", err)
	}
	return nil
}

// newest is the most recently changed of paths ("" for none).
func newest(paths []string) string {
	type f struct {
		p string
		t int64
	}
	var fs []f
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			fs = append(fs, f{p, st.ModTime().UnixNano()})
		}
	}
	if len(fs) == 0 {
		return ""
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].t > fs[j].t })
	return fs[0].p
}

// alsoImport are the files beside an event's transcript that belong to its
// session: Gemini CLI's sub-agents (chats/<session id>/*.jsonl) and
// Cursor's (agent-transcripts/<id>/subagents/).
func alsoImport(e Event) []string {
	var dir string
	switch e.Harness {
	case GeminiCLI:
		dir = filepath.Join(filepath.Dir(e.Transcript), e.SessionID)
	case Cursor:
		if filepath.Base(filepath.Dir(e.Transcript)) != strings.TrimSuffix(filepath.Base(e.Transcript), ".jsonl") {
			return nil
		}
		dir = filepath.Join(filepath.Dir(e.Transcript), "subagents")
	default:
		return nil
	}
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return []string{dir}
	}
	return nil
}
