// Package transcripttest writes agent sessions as the real harnesses
// record them, for the tests that import agents' transcripts: recall asked
// again, forget erasing the quotes of a forgotten conversation, the CLI's
// answers run through an agent's shell. The shapes are those of the real
// files in importers/testdata/real: Claude Code 2.1's chained records and
// Codex 0.104's rollout lines. It is a test kit, imported by tests only.
package transcripttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// UUID is a session id for test n, in the form both harnesses use.
func UUID(n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n) }

// Text is a text content block.
func Text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// JSONLine is v as one line of JSON, newline included.
func JSONLine(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// WriteFile writes data at path, making its folders.
func WriteFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ClaudeCode is a session as Claude Code 2.1.7 records it: each record
// chained to the one before (parentUuid), a second apart from at.
type ClaudeCode struct {
	t        testing.TB
	sid, cwd string
	at       time.Time
	b        strings.Builder
	prev     any
	k        int
}

// NewClaudeCode starts session sid, run in folder cwd, at at.
func NewClaudeCode(t testing.TB, sid, cwd string, at time.Time) *ClaudeCode {
	return &ClaudeCode{t: t, sid: sid, cwd: cwd, at: at}
}

// Record appends a record of type typ with message msg; more adds fields
// beside it (toolUseResult, isMeta, requestId).
func (c *ClaudeCode) Record(typ string, msg, more map[string]any) {
	c.k++
	uuid := fmt.Sprintf("%s-r%02d", c.sid[:8], c.k)
	r := map[string]any{"parentUuid": c.prev, "isSidechain": false, "userType": "external", "cwd": c.cwd, "sessionId": c.sid,
		"version": "2.1.7", "gitBranch": "main", "type": typ, "message": msg, "uuid": uuid,
		"timestamp": c.at.Add(time.Duration(c.k) * time.Second).Format(time.RFC3339Nano)}
	for key, v := range more {
		r[key] = v
	}
	c.b.WriteString(JSONLine(c.t, r))
	c.prev = uuid
}

// User appends the person's record (or a tool result's, which Claude Code
// records as the user's); content is a string or a list of blocks.
func (c *ClaudeCode) User(content any, more map[string]any) {
	c.Record("user", map[string]any{"role": "user", "content": content}, more)
}

// Assistant appends one assistant message with the given content blocks.
func (c *ClaudeCode) Assistant(id string, content ...any) {
	c.Record("assistant", map[string]any{"model": "claude-opus-4-5", "id": id, "type": "message", "role": "assistant", "content": content,
		"stop_reason": nil, "usage": map[string]any{"input_tokens": 12, "output_tokens": 30}}, map[string]any{"requestId": "req_" + id})
}

// ToolCall appends a tool_use of tool with input and, as the next user
// record, its tool_result holding result (in content and toolUseResult).
func (c *ClaudeCode) ToolCall(msgID, toolID, tool string, input map[string]any, result string) {
	c.Assistant(msgID, map[string]any{"type": "tool_use", "id": toolID, "name": tool, "input": input})
	c.User([]any{map[string]any{"tool_use_id": toolID, "type": "tool_result", "content": []any{Text(result)}}},
		map[string]any{"toolUseResult": []any{Text(result)}})
}

// Write puts the session at dir/<projects>/<project>/<sid>.jsonl, where
// projects is the harness folder's projects directory (".claude/projects"
// under a home, "claude/projects" under a test's config dir), and returns
// the path.
func (c *ClaudeCode) Write(projects, project string) string {
	path := filepath.Join(projects, project, c.sid+".jsonl")
	WriteFile(c.t, path, c.b.String())
	return path
}

// Codex is a session as a Codex 0.104 rollout: one line a record, a second
// apart from at.
type Codex struct {
	t  testing.TB
	at time.Time
	b  strings.Builder
	k  int
}

// NewCodex starts a rollout at at with its session_meta line for sid in
// folder cwd; meta adds fields to it (git, say).
func NewCodex(t testing.TB, sid, cwd string, at time.Time, meta map[string]any) *Codex {
	c := &Codex{t: t, at: at}
	m := map[string]any{"id": sid, "timestamp": at.Format(time.RFC3339Nano), "cwd": cwd, "originator": "codex_cli_rs",
		"cli_version": "0.104.0", "source": "cli", "model_provider": "openai"}
	for k, v := range meta {
		m[k] = v
	}
	c.Line("session_meta", m)
	return c
}

// Line appends a record of type typ.
func (c *Codex) Line(typ string, payload map[string]any) {
	c.k++
	c.b.WriteString(JSONLine(c.t, map[string]any{"timestamp": c.at.Add(time.Duration(c.k) * time.Second).Format(time.RFC3339Nano), "type": typ, "payload": payload}))
}

// Message appends a response_item message of role with one content block
// of kind (input_text, output_text).
func (c *Codex) Message(role, kind, text string) {
	c.Line("response_item", map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": kind, "text": text}}})
}

// Ask appends the person's words as Codex records them twice: a response
// item and a user_message event.
func (c *Codex) Ask(text string) {
	c.Message("user", "input_text", text)
	c.Line("event_msg", map[string]any{"type": "user_message", "message": text, "images": []any{}})
}

// Answer appends the agent's words, as response item and agent_message event.
func (c *Codex) Answer(text string) {
	c.Message("assistant", "output_text", text)
	c.Line("event_msg", map[string]any{"type": "agent_message", "message": text})
}

// Call appends a function_call of name with arguments args (JSON) and its
// function_call_output.
func (c *Codex) Call(callID, name, args, output string) {
	c.Line("response_item", map[string]any{"type": "function_call", "name": name, "arguments": args, "call_id": callID})
	c.Line("response_item", map[string]any{"type": "function_call_output", "call_id": callID, "output": output})
}

// Write puts the rollout at path and returns it.
func (c *Codex) Write(path string) string {
	WriteFile(c.t, path, c.b.String())
	return path
}
