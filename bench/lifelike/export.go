package lifelike

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Where WriteExports puts each source, under its folder.
const (
	ChatGPTDir    = "chatgpt-export"        // conversations.json, or conversations-NNN.json shards
	ClaudeDir     = "claude-export"         // conversations.json, users.json, projects.json
	CodexDir      = "home/.codex/sessions"  // YYYY/MM/DD/rollout-*.jsonl
	ClaudeCodeDir = "home/.claude/projects" // <munged cwd>/<session>.jsonl
)

// chatGPTShard is how many conversations one ChatGPT shard holds; a
// history with more than shardOver of them is written sharded, as 2026
// exports are.
const (
	chatGPTShard = 1000
	shardOver    = 1500
)

// WriteExports writes the history to dir in the four export formats, one
// conversation at a time. `ireneo import dir` imports it whole.
func (d *Dataset) WriteExports(dir string) error {
	if err := d.writeChatGPT(filepath.Join(dir, ChatGPTDir)); err != nil {
		return fmt.Errorf("chatgpt export: %w", err)
	}
	if err := d.writeClaude(filepath.Join(dir, ClaudeDir)); err != nil {
		return fmt.Errorf("claude export: %w", err)
	}
	if err := d.writeCodex(filepath.Join(dir, CodexDir)); err != nil {
		return fmt.Errorf("codex sessions: %w", err)
	}
	if err := d.writeClaudeCode(filepath.Join(dir, ClaudeCodeDir)); err != nil {
		return fmt.Errorf("claude code projects: %w", err)
	}
	return nil
}

// outFile is a buffered file that remembers its first write error.
type outFile struct {
	f   *os.File
	w   *bufio.Writer
	err error
}

func create(path string) (*outFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &outFile{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (o *outFile) write(b []byte) {
	if o.err == nil {
		_, o.err = o.w.Write(b)
	}
}

func (o *outFile) str(s string) { o.write([]byte(s)) }

// json writes v as compact JSON without HTML escaping.
func (o *outFile) json(v any) {
	if o.err != nil {
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if o.err = enc.Encode(v); o.err == nil {
		o.write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
}

func (o *outFile) close() error {
	if o.err == nil {
		o.err = o.w.Flush()
	}
	if err := o.f.Close(); o.err == nil {
		o.err = err
	}
	return o.err
}

func epoch(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

func iso(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

func isoMs(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// --- ChatGPT ---------------------------------------------------------------

type gptConv struct {
	Title                  *string            `json:"title"`
	CreateTime             float64            `json:"create_time"`
	UpdateTime             float64            `json:"update_time"`
	Mapping                map[string]gptNode `json:"mapping"`
	ModerationResults      []any              `json:"moderation_results"`
	CurrentNode            string             `json:"current_node"`
	PluginIDs              any                `json:"plugin_ids"`
	ConversationID         string             `json:"conversation_id"`
	ConversationTemplateID *string            `json:"conversation_template_id"`
	GizmoID                *string            `json:"gizmo_id"`
	GizmoType              *string            `json:"gizmo_type"`
	IsArchived             bool               `json:"is_archived"`
	IsStarred              any                `json:"is_starred"`
	SafeURLs               []string           `json:"safe_urls"`
	BlockedURLs            []string           `json:"blocked_urls"`
	DefaultModelSlug       string             `json:"default_model_slug"`
	ConversationOrigin     any                `json:"conversation_origin"`
	Voice                  any                `json:"voice"`
	AsyncStatus            any                `json:"async_status"`
	DisabledToolIDs        []string           `json:"disabled_tool_ids"`
	IsDoNotRemember        bool               `json:"is_do_not_remember"`
	MemoryScope            string             `json:"memory_scope"`
	ID                     string             `json:"id"`
}

type gptNode struct {
	ID       string   `json:"id"`
	Message  *gptMsg  `json:"message"`
	Parent   *string  `json:"parent"`
	Children []string `json:"children"`
}

type gptMsg struct {
	ID         string         `json:"id"`
	Author     gptAuthor      `json:"author"`
	CreateTime *float64       `json:"create_time"`
	UpdateTime *float64       `json:"update_time"`
	Content    map[string]any `json:"content"`
	Status     string         `json:"status"`
	EndTurn    *bool          `json:"end_turn"`
	Weight     float64        `json:"weight"`
	Metadata   map[string]any `json:"metadata"`
	Recipient  string         `json:"recipient"`
	Channel    *string        `json:"channel"`
}

type gptAuthor struct {
	Role     string         `json:"role"`
	Name     *string        `json:"name"`
	Metadata map[string]any `json:"metadata"`
}

func sp(s string) *string   { return &s }
func fp(f float64) *float64 { return &f }
func bp(b bool) *bool       { return &b }

func (d *Dataset) writeChatGPT(dir string) error {
	convs := d.sortedConvs(hChatGPT)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "user.json"), []byte(`{"id":"user-Qx7f2LmP0aRkTz9vWb3nYc1d","email":"sam@example.com","chatgpt_plus_user":true,"phone_number":null}`), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "message_feedback.json"), []byte("[]"), 0o644); err != nil {
		return err
	}
	shards := 1
	if len(convs) > shardOver {
		shards = (len(convs) + chatGPTShard - 1) / chatGPTShard
	}
	for s := 0; s < shards; s++ {
		name := "conversations.json"
		part := convs
		if shards > 1 {
			name = fmt.Sprintf("conversations-%03d.json", s)
			part = convs[s*chatGPTShard : min(len(convs), (s+1)*chatGPTShard)]
		}
		o, err := create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		o.str("[")
		for i, c := range part {
			if i > 0 {
				o.str(",")
			}
			o.json(d.gptConversation(c))
		}
		o.str("]")
		if err := o.close(); err != nil {
			return err
		}
	}
	return nil
}

func (d *Dataset) gptConversation(c *convPlan) *gptConv {
	cv := d.render(c)
	r := seedRand(d.cfg.Seed, 5<<40+uint64(c.idx)) // the envelope's own stream
	evid := map[string]bool{}
	for _, u := range cv.evidence {
		evid[u] = true
	}
	model := pick(r, []string{"gpt-4o", "gpt-4o", "gpt-5", "gpt-5-thinking", "o3"})
	g := &gptConv{
		Title: sp(cv.title), CreateTime: epoch(c.start), Mapping: map[string]gptNode{},
		ModerationResults: []any{}, ConversationID: c.id, ID: c.id, SafeURLs: []string{}, BlockedURLs: []string{},
		DefaultModelSlug: model, DisabledToolIDs: []string{}, MemoryScope: "global_enabled",
	}
	if r.IntN(30) == 0 {
		g.Title = nil // seen in real exports
	}
	if r.IntN(8) == 0 {
		gid := fmt.Sprintf("g-p-%032x", r.Uint64())[:36]
		g.ConversationTemplateID, g.GizmoID, g.GizmoType = sp(gid), sp(gid), sp("snorlax")
	}
	parent := "client-created-root"
	g.Mapping[parent] = gptNode{ID: parent, Children: []string{}}
	link := func(id string, m *gptMsg) {
		p := g.Mapping[parent]
		p.Children = append(p.Children, id)
		g.Mapping[parent] = p
		g.Mapping[id] = gptNode{ID: id, Message: m, Parent: sp(parent), Children: []string{}}
		parent = id
	}
	// Hidden system node, and sometimes the custom instructions.
	sys := newUUID(r)
	link(sys, &gptMsg{ID: sys, Author: gptAuthor{Role: "system", Metadata: map[string]any{}},
		Content: map[string]any{"content_type": "text", "parts": []string{""}}, Status: "finished_successfully", EndTurn: bp(true),
		Weight: 0, Metadata: map[string]any{"is_visually_hidden_from_conversation": true}, Recipient: "all"})
	if r.IntN(3) == 0 {
		ctx := newUUID(r)
		link(ctx, &gptMsg{ID: ctx, Author: gptAuthor{Role: "user", Metadata: map[string]any{}},
			Content: map[string]any{"content_type": "user_editable_context",
				"user_profile":      "The user provided the following information about themselves. This user profile is shown to you in all conversations they have -- this means it is not relevant to 99% of requests.\nBefore answering, quietly think about whether the user's request is \"directly related\", \"related\", \"tangentially related\", or \"not related\" to the user profile provided.\nPreferred name: Sam\nRole: Backend engineer at Brightwater (payments).",
				"user_instructions": "Be concise. Prefer Go and Postgres examples. No emojis."},
			Status: "finished_successfully", Weight: 1,
			Metadata:  map[string]any{"is_visually_hidden_from_conversation": true, "user_context_message_data": map[string]any{"about_user_message": "Preferred name: Sam", "about_model_message": "Be concise."}, "is_user_system_message": true},
			Recipient: "all"})
	}
	var last time.Time
	for i, t := range cv.turns {
		b := t.blocks[0]
		ts := epoch(t.ts)
		m := &gptMsg{ID: t.uuid, CreateTime: fp(ts), UpdateTime: fp(ts), Status: "finished_successfully", Weight: 1, Recipient: "all",
			Metadata: map[string]any{}}
		m.Author = gptAuthor{Role: t.role, Metadata: map[string]any{}}
		switch {
		case t.role == "user":
			m.Content = map[string]any{"content_type": "text", "parts": []string{b.text}}
			m.Metadata["request_id"] = fmt.Sprintf("%016x", r.Uint64())
			m.Metadata["message_source"] = nil
			m.Metadata["timestamp_"] = "absolute"
			if !evid[t.uuid] && r.IntN(15) == 0 {
				m.Metadata["attachments"] = []map[string]any{{"id": fmt.Sprintf("file-%020x", r.Uint64()), "size": 2000 + r.IntN(90000),
					"name": pick(r, []string{"screenshot.png", "error.log", "schema.sql", "notes.txt", "config.yaml"}), "mime_type": "text/plain"}}
			}
		case b.kind == "thinking":
			// An empty placeholder often comes first.
			if r.IntN(2) == 0 {
				ph := newUUID(r)
				link(ph, &gptMsg{ID: ph, Author: gptAuthor{Role: "assistant", Metadata: map[string]any{}}, CreateTime: fp(ts - 0.5), UpdateTime: nil,
					Content: map[string]any{"content_type": "text", "parts": []string{""}}, Status: "finished_successfully", Weight: 1,
					Metadata: map[string]any{"model_slug": model, "message_type": "next"}, Recipient: "all"})
			}
			summary, content, _ := strings.Cut(b.text, "\n\n")
			m.Content = map[string]any{"content_type": "thoughts", "thoughts": []map[string]any{{"summary": strings.Trim(summary, "*"), "content": content, "chunks": []string{}, "finished": true}},
				"source_analysis_msg_id": newUUID(r)}
			m.Metadata["reasoning_status"] = "is_reasoning"
			m.Metadata["model_slug"] = model
			link(t.uuid, m)
			rc := newUUID(r)
			link(rc, &gptMsg{ID: rc, Author: gptAuthor{Role: "assistant", Metadata: map[string]any{}}, CreateTime: fp(ts + 0.2), UpdateTime: fp(ts + 0.2),
				Content: map[string]any{"content_type": "reasoning_recap", "content": fmt.Sprintf("Thought for %ds", 3+r.IntN(40))}, Status: "finished_successfully", Weight: 1,
				Metadata: map[string]any{"reasoning_status": "reasoning_ended", "model_slug": model}, Recipient: "all"})
			continue
		case b.kind == "tool_use":
			m.Content = map[string]any{"content_type": "code", "language": "unknown", "response_format_name": nil, "text": b.text}
			m.Recipient = "python"
			m.EndTurn = bp(false)
			m.Metadata["model_slug"] = model
		case b.kind == "tool_result":
			m.Author.Name = sp("python")
			m.Content = map[string]any{"content_type": "execution_output", "text": b.text}
			m.Weight = 0
			m.Metadata["aggregate_result"] = map[string]any{"status": "success", "run_id": newUUID(r)}
		default: // assistant text
			txt := b.text
			if !evid[t.uuid] && r.IntN(10) == 0 {
				// Inline citation markup, as answers that searched the web carry.
				txt = strings.Replace(txt, ". ", fmt.Sprintf(". \ue200cite\ue202turn0search%d\ue201 ", r.IntN(6)), 1)
			}
			m.Content = map[string]any{"content_type": "text", "parts": []string{txt}}
			m.EndTurn = bp(true)
			m.Channel = sp("final")
			m.Metadata["model_slug"] = model
			m.Metadata["finish_details"] = map[string]any{"type": "stop", "stop_tokens": []int{200002}}
			m.Metadata["citations"] = []any{}
			m.Metadata["content_references"] = []any{}
			if r.IntN(10) == 0 {
				m.UpdateTime = fp(ts - 0.16) // update before create, as real exports have
			}
			// A regenerated answer: the person kept the newer one.
			if i == len(cv.turns)-1 && r.IntN(8) == 0 {
				alt := newUUID(r)
				p := g.Mapping[parent]
				p.Children = append(p.Children, alt)
				g.Mapping[parent] = p
				g.Mapping[alt] = gptNode{ID: alt, Parent: sp(parent), Children: []string{}, Message: &gptMsg{ID: alt,
					Author: gptAuthor{Role: "assistant", Metadata: map[string]any{}}, CreateTime: fp(ts - 30), UpdateTime: fp(ts - 30),
					Content: map[string]any{"content_type": "text", "parts": []string{pick(r, openers) + " " + plainPara(r, 3)}},
					Status:  "finished_successfully", EndTurn: bp(true), Weight: 1, Metadata: map[string]any{"model_slug": model}, Recipient: "all", Channel: sp("final")}}
			}
		}
		link(t.uuid, m)
		last = t.ts
	}
	g.CurrentNode = parent
	g.UpdateTime = epoch(last)
	return g
}

// --- Claude.ai ---------------------------------------------------------------

type claudeConvJSON struct {
	UUID         string          `json:"uuid"`
	Name         string          `json:"name"`
	Summary      string          `json:"summary"`
	CreatedAt    string          `json:"created_at"`
	UpdatedAt    string          `json:"updated_at"`
	Account      map[string]any  `json:"account"`
	ChatMessages []claudeMsgJSON `json:"chat_messages"`
}

type claudeMsgJSON struct {
	UUID        string           `json:"uuid"`
	Text        string           `json:"text"`
	Content     []map[string]any `json:"content"`
	Sender      string           `json:"sender"`
	CreatedAt   string           `json:"created_at"`
	UpdatedAt   string           `json:"updated_at"`
	Attachments []any            `json:"attachments"`
	Files       []any            `json:"files"`
	Parent      string           `json:"parent_message_uuid,omitempty"`
}

const accountUUID = "5f1c0a9e-7b2d-4c61-9a3e-2d8f4b6c1e70"

// claudeTreeFrom is when Claude.ai exports started linking messages by
// parent_message_uuid.
var claudeTreeFrom = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func (d *Dataset) writeClaude(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "users.json"), []byte(`[{"uuid":"`+accountUUID+`","full_name":"Sam Rivera","email_address":"sam@example.com","verified_phone_number":null}]`), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "projects.json"), []byte(`[{"uuid":"0b7e8c1a-3f4d-4e2a-9c6b-5d1e2f3a4b5c","name":"Ledgerline design","description":"Design notes for the ledger service","is_private":true,"is_starter_project":false,"prompt_template":"","created_at":"2025-11-02T10:11:12.000000Z","updated_at":"2026-04-01T09:00:00.000000Z","creator":{"uuid":"`+accountUUID+`","full_name":"Sam Rivera"},"docs":[]}]`), 0o644); err != nil {
		return err
	}
	o, err := create(filepath.Join(dir, "conversations.json"))
	if err != nil {
		return err
	}
	o.str("[")
	for i, c := range d.sortedConvs(hClaude) {
		if i > 0 {
			o.str(",")
		}
		o.json(d.claudeConversation(c))
	}
	o.str("]")
	return o.close()
}

func (d *Dataset) claudeConversation(c *convPlan) *claudeConvJSON {
	cv := d.render(c)
	r := seedRand(d.cfg.Seed, 5<<40+uint64(c.idx))
	out := &claudeConvJSON{UUID: c.id, Name: cv.title, CreatedAt: iso(c.start), Account: map[string]any{"uuid": accountUUID}}
	if c.start.After(claudeTreeFrom) {
		out.Summary = fmt.Sprintf("**Conversation Overview**\n\nThe user asked for help with %s. Claude walked through the options and the trade-offs.", strings.ToLower(cv.title[:1])+cv.title[1:])
	}
	tree := c.start.After(claudeTreeFrom)
	parent := "00000000-0000-4000-8000-000000000000"
	var last time.Time
	for _, t := range cv.turns {
		ts := iso(t.ts)
		m := claudeMsgJSON{UUID: t.uuid, Sender: "human", CreatedAt: ts, UpdatedAt: ts, Attachments: []any{}, Files: []any{}}
		if t.role != "user" {
			m.Sender = "assistant"
		}
		if tree {
			m.Parent = parent
			parent = t.uuid
		}
		var all strings.Builder
		for _, b := range t.blocks {
			blk := map[string]any{"start_timestamp": ts, "stop_timestamp": iso(t.ts.Add(time.Duration(1+r.IntN(20)) * time.Second)), "flags": nil, "type": b.kind}
			switch b.kind {
			case "text":
				blk["text"] = b.text
				blk["citations"] = []any{}
				all.WriteString(b.text)
			case "thinking":
				blk["thinking"] = b.text
				blk["summaries"] = []map[string]string{{"summary": "Thinking about " + strings.ToLower(cv.title)}}
				blk["cut_off"] = false
				all.WriteString(b.text) // the real export glues thinking onto the answer
			case "tool_use":
				var in any
				json.Unmarshal([]byte(b.input), &in)
				blk["id"] = b.call
				blk["name"] = b.tool
				blk["input"] = in
				blk["message"] = "Searching the web"
				blk["integration_name"] = nil
				blk["integration_icon_url"] = nil
				blk["context"] = nil
				blk["display_content"] = nil
			case "tool_result":
				blk["tool_use_id"] = b.call
				blk["name"] = b.tool
				blk["content"] = []map[string]any{{"type": "text", "text": b.text, "uuid": newUUID(r)}}
				blk["is_error"] = false
				blk["display_content"] = nil
			}
			m.Content = append(m.Content, blk)
		}
		m.Text = all.String()
		out.ChatMessages = append(out.ChatMessages, m)
		last = t.ts
	}
	out.UpdatedAt = iso(last)
	return out
}

// --- Codex ---------------------------------------------------------------------

type codexLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

func (d *Dataset) writeCodex(dir string) error {
	for _, c := range d.sortedConvs(hCodex) {
		if err := d.codexSession(dir, c); err != nil {
			return err
		}
	}
	return nil
}

func codexPath(dir string, c *convPlan) string {
	lt := c.start.In(localZone)
	return filepath.Join(dir, lt.Format("2006"), lt.Format("01"), lt.Format("02"),
		fmt.Sprintf("rollout-%s-%s.jsonl", lt.Format("2006-01-02T15-04-05"), c.id))
}

func (d *Dataset) codexSession(dir string, c *convPlan) error {
	cv := d.render(c)
	r := seedRand(d.cfg.Seed, 5<<40+uint64(c.idx))
	o, err := create(codexPath(dir, c))
	if err != nil {
		return err
	}
	clock := c.start
	line := func(t time.Time, typ string, payload any) {
		if !t.After(clock) {
			t = clock.Add(time.Millisecond)
		}
		clock = t
		o.json(codexLine{Timestamp: isoMs(t), Type: typ, Payload: payload})
		o.str("\n")
	}
	msg := func(role, kind, text string) obj {
		return obj{"type", "message", "role", role, "content", []obj{{"type", kind, "text", text}}}
	}
	meta := obj{"id", c.id, "timestamp", isoMs(c.start), "cwd", c.proj.workdir, "originator", "codex_cli_rs", "cli_version", pick(r, []string{"0.44.0", "0.46.0", "0.58.0", "0.63.0"}), "instructions", nil, "source", "cli", "model_provider", "openai"}
	if c.proj.remote != "" {
		meta = append(meta, "git", obj{"commit_hash", fmt.Sprintf("%016x%016x%08x", r.Uint64(), r.Uint64(), r.Uint32()), "branch", cv.branch, "repository_url", c.proj.remote})
	}
	line(c.start, "session_meta", meta)
	line(c.start, "response_item", msg("developer", "input_text", "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. sandbox_mode is workspace-write.\n</permissions instructions>"))
	line(c.start, "response_item", msg("user", "input_text", fmt.Sprintf("# AGENTS.md instructions for %s\n\n<INSTRUCTIONS>\n- Run the tests before you say you're done.\n- Keep commits small.\n- %s uses %s; don't add new dependencies without asking.\n</INSTRUCTIONS>", c.proj.workdir, c.proj.name, c.proj.libs[0])))
	line(c.start, "response_item", msg("user", "input_text", fmt.Sprintf("<environment_context>\n  <cwd>%s</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>", c.proj.workdir)))
	totalIn, totalOut := 0, 0
	for _, t := range cv.turns {
		b := t.blocks[0]
		switch {
		case t.role == "user":
			if t.ts.After(c.start.Add(2*time.Hour)) && r.IntN(3) == 0 {
				line(t.ts, "session_meta", meta) // resumed the next day: the meta again
			}
			line(t.ts, "turn_context", obj{"cwd", c.proj.workdir, "approval_policy", "on-request", "sandbox_policy", obj{"type", "workspace-write", "network_access", false}, "model", "gpt-5-codex", "effort", "medium", "summary", "auto"})
			line(t.ts, "event_msg", obj{"type", "task_started", "model_context_window", 272000})
			line(t.ts, "response_item", msg("user", "input_text", b.text))
			line(t.ts, "event_msg", obj{"type", "user_message", "message", b.text, "images", []any{}})
		case b.kind == "thinking":
			if r.IntN(3) == 0 { // a reasoning item with only encrypted content
				line(t.ts, "response_item", obj{"type", "reasoning", "summary", []any{}, "content", nil, "encrypted_content", encrypted(r)})
			}
			line(t.ts, "response_item", obj{"type", "reasoning", "summary", []obj{{"type", "summary_text", "text", b.text}}, "content", nil, "encrypted_content", encrypted(r)})
			line(t.ts, "event_msg", obj{"type", "agent_reasoning", "text", b.text})
		case b.kind == "tool_use" && b.tool == "apply_patch":
			line(t.ts, "response_item", obj{"type", "custom_tool_call", "status", "completed", "call_id", b.call, "name", "apply_patch", "input", b.input})
		case b.kind == "tool_use":
			line(t.ts, "response_item", obj{"type", "function_call", "name", b.tool, "arguments", b.input, "call_id", b.call})
		case b.kind == "tool_result" && b.tool == "apply_patch":
			out, _ := json.Marshal(obj{"output", b.text, "metadata", obj{"exit_code", 0, "duration_seconds", 0.0}})
			line(t.ts, "response_item", obj{"type", "custom_tool_call_output", "call_id", b.call, "output", string(out)})
		case b.kind == "tool_result":
			out, _ := json.Marshal(obj{"output", b.text, "metadata", obj{"exit_code", r.IntN(4) / 3, "duration_seconds", float64(r.IntN(5000)) / 1000}})
			line(t.ts, "response_item", obj{"type", "function_call_output", "call_id", b.call, "output", string(out)})
		default: // assistant text
			line(t.ts, "response_item", msg("assistant", "output_text", b.text))
			line(t.ts, "event_msg", obj{"type", "agent_message", "message", b.text})
			totalIn += 8000 + r.IntN(30000)
			totalOut += len(b.text) / 4
			line(t.ts, "event_msg", obj{"type", "token_count", "info", obj{"total_token_usage", obj{"input_tokens", totalIn, "cached_input_tokens", totalIn * 3 / 4, "output_tokens", totalOut, "reasoning_output_tokens", totalOut / 3, "total_tokens", totalIn + totalOut}}, "rate_limits", obj{"primary", obj{"used_percent", float64(r.IntN(900)) / 10, "window_minutes", 300}}})
		}
	}
	return o.close()
}

func encrypted(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("gAAAAABo")
	const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := 0; i < 200+r.IntN(400); i++ {
		b.WriteByte(abc[r.IntN(len(abc))])
	}
	return b.String()
}

// --- Claude Code ---------------------------------------------------------------

type ccLine struct {
	ParentUUID              *string `json:"parentUuid"`
	IsSidechain             bool    `json:"isSidechain"`
	UserType                string  `json:"userType"`
	Cwd                     string  `json:"cwd"`
	SessionID               string  `json:"sessionId"`
	Version                 string  `json:"version"`
	GitBranch               string  `json:"gitBranch"`
	AgentID                 string  `json:"agentId,omitempty"`
	Type                    string  `json:"type"`
	Message                 any     `json:"message"`
	IsMeta                  bool    `json:"isMeta,omitempty"`
	RequestID               string  `json:"requestId,omitempty"`
	UUID                    string  `json:"uuid"`
	Timestamp               string  `json:"timestamp"`
	ToolUseResult           any     `json:"toolUseResult,omitempty"`
	SourceToolAssistantUUID string  `json:"sourceToolAssistantUUID,omitempty"`
}

// munge names a Claude Code project folder after its cwd.
func munge(cwd string) string {
	var b strings.Builder
	for _, c := range cwd {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

func (d *Dataset) writeClaudeCode(dir string) error {
	for _, c := range d.sortedConvs(hClaudeCode) {
		if err := d.claudeCodeSession(dir, c); err != nil {
			return err
		}
	}
	return nil
}

const systemReminder = "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it looks malicious. If it does, you MUST refuse to improve or augment the code. You can still analyze existing code, write reports, or answer high-level questions about the code behavior.\n</system-reminder>\n"

func (d *Dataset) claudeCodeSession(dir string, c *convPlan) error {
	cv := d.render(c)
	r := seedRand(d.cfg.Seed, 5<<40+uint64(c.idx))
	o, err := create(filepath.Join(dir, munge(c.proj.workdir), c.id+".jsonl"))
	if err != nil {
		return err
	}
	version := "2.0.64"
	if c.start.After(time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)) {
		version = pick(r, []string{"2.1.7", "2.1.19", "2.1.30"})
	}
	base := ccLine{IsSidechain: false, UserType: "external", Cwd: c.proj.workdir, SessionID: c.id, Version: version, GitBranch: cv.branch}
	if r.IntN(4) == 0 { // a summary that belongs to another session
		o.json(obj{"type", "summary", "summary", trimTitle(fill(r, newScene(r, c.proj, ""), pick(r, workTasks))), "leafUuid", newUUID(r)})
		o.str("\n")
	}
	var parent *string
	emit := func(l ccLine) {
		l.ParentUUID = parent
		o.json(l)
		o.str("\n")
		parent = sp(l.UUID)
	}
	first := true
	model := pick(r, []string{"claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-sonnet-4-20250514"})
	var lastAsst string
	for _, t := range cv.turns {
		switch t.role {
		case "user":
			if first {
				o.json(obj{"type", "file-history-snapshot", "messageId", t.uuid, "snapshot", obj{"messageId", t.uuid, "trackedFileBackups", obj{}, "timestamp", isoMs(t.ts)}, "isSnapshotUpdate", false})
				o.str("\n")
				if r.IntN(5) == 0 {
					l := base
					l.Type, l.IsMeta, l.UUID, l.Timestamp = "user", true, newUUID(r), isoMs(t.ts.Add(-time.Second))
					l.Message = obj{"role", "user", "content", "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to."}
					emit(l)
				}
				first = false
			}
			l := base
			l.Type, l.UUID, l.Timestamp = "user", t.uuid, isoMs(t.ts)
			l.Message = obj{"role", "user", "content", t.blocks[0].text}
			emit(l)
		case "assistant":
			// One API response, split one content block per line.
			msgID := "msg_01" + strings.ReplaceAll(newUUID(r), "-", "")[:22]
			req := "req_011C" + strings.ReplaceAll(newUUID(r), "-", "")[:20]
			for i, b := range t.blocks {
				l := base
				l.Type, l.RequestID, l.Timestamp = "assistant", req, isoMs(t.ts.Add(time.Duration(i*700)*time.Millisecond))
				l.UUID = t.uuid
				if i > 0 {
					l.UUID = newUUID(r)
				}
				var cb obj
				switch b.kind {
				case "thinking":
					cb = obj{"type", "thinking", "thinking", b.text, "signature", encrypted(r)}
				case "tool_use":
					var in any
					json.Unmarshal([]byte(b.input), &in)
					cb = obj{"type", "tool_use", "id", b.call, "name", b.tool, "input", in}
				default:
					cb = obj{"type", "text", "text", b.text}
				}
				l.Message = obj{"model", model, "id", msgID, "type", "message", "role", "assistant", "content", []any{cb}, "stop_reason", nil, "stop_sequence", nil, "usage", obj{"input_tokens", 3 + r.IntN(10), "cache_creation_input_tokens", r.IntN(4000), "cache_read_input_tokens", 12000 + r.IntN(60000), "output_tokens", 1 + len(b.text)/4, "service_tier", "standard"}}
				emit(l)
				lastAsst = l.UUID
			}
		default: // tool results, one record each
			for i, b := range t.blocks {
				l := base
				l.Type, l.Timestamp = "user", isoMs(t.ts.Add(time.Duration(i*50)*time.Millisecond))
				l.UUID = newUUID(r)
				if i == 0 {
					l.UUID = t.uuid
				}
				content := b.text
				if b.tool == "Read" && r.IntN(2) == 0 {
					content += systemReminder
				}
				l.Message = obj{"role", "user", "content", []any{obj{"tool_use_id", b.call, "type", "tool_result", "content", content, "is_error", b.isErr}}}
				switch b.tool {
				case "Task":
					l.ToolUseResult = obj{"status", "completed", "prompt", taskPrompt(cv, b.agent), "agentId", b.agent, "content", []obj{{"type", "text", "text", b.text}}, "totalDurationMs", 20000 + r.IntN(200000), "totalTokens", 10000 + r.IntN(60000), "totalToolUseCount", 2 + r.IntN(12)}
				case "Bash":
					l.ToolUseResult = obj{"stdout", b.text, "stderr", "", "interrupted", false, "isImage", false}
				case "Read":
					l.ToolUseResult = obj{"type", "text", "file", obj{"filePath", c.proj.workdir + "/file", "content", b.text, "numLines", strings.Count(b.text, "\n"), "startLine", 1, "totalLines", strings.Count(b.text, "\n")}}
				default:
					l.ToolUseResult = b.text
				}
				l.SourceToolAssistantUUID = lastAsst
				emit(l)
			}
		}
	}
	if r.IntN(5) == 0 && parent != nil { // a summary of this very session
		o.json(obj{"type", "summary", "summary", cv.title, "leafUuid", *parent})
		o.str("\n")
	}
	if err := o.close(); err != nil {
		return err
	}
	projDir := filepath.Join(dir, munge(c.proj.workdir))
	for k, st := range cv.tasks {
		// 2.0.x keeps sub-agents beside the session, 2.1.x under it.
		path := filepath.Join(projDir, "agent-"+st.agentID+".jsonl")
		if version != "2.0.64" {
			path = filepath.Join(projDir, c.id, "subagents", "agent-"+st.agentID+".jsonl")
		}
		sr := seedRand(d.cfg.Seed, 6<<40+uint64(c.idx)*8+uint64(k))
		if err := writeSubAgent(sr, path, base, st, model, cv.branch); err != nil {
			return err
		}
	}
	if version == "2.0.64" && r.IntN(10) == 0 {
		// A Warmup sub-agent, started before the person typed anything.
		st := subTask{agentID: fmt.Sprintf("%08x", r.Uint32()), prompt: "Warmup", ts: c.start.Add(-2 * time.Second),
			result: "I'm ready to help. I can search the codebase, read files and run commands. What would you like me to look at?"}
		if err := writeSubAgent(r, filepath.Join(projDir, "agent-"+st.agentID+".jsonl"), base, st, model, cv.branch); err != nil {
			return err
		}
	}
	return nil
}

func taskPrompt(cv *conv, agent string) string {
	for _, st := range cv.tasks {
		if st.agentID == agent {
			return st.prompt
		}
	}
	return ""
}

// writeSubAgent writes one sub-agent transcript: the prompt, a few tool
// calls and the report, every record on the sidechain.
func writeSubAgent(r *rand.Rand, path string, base ccLine, st subTask, model, branch string) error {
	o, err := create(path)
	if err != nil {
		return err
	}
	base.IsSidechain, base.AgentID = true, st.agentID
	var parent *string
	t := st.ts
	emit := func(l ccLine) {
		l.ParentUUID = parent
		l.Timestamp = isoMs(t)
		o.json(l)
		o.str("\n")
		parent = sp(l.UUID)
		t = t.Add(time.Duration(500+r.IntN(8000)) * time.Millisecond)
	}
	asst := func(cb obj) string {
		l := base
		l.Type, l.UUID, l.RequestID = "assistant", newUUID(r), "req_011C"+strings.ReplaceAll(newUUID(r), "-", "")[:20]
		l.Message = obj{"model", model, "id", "msg_01" + strings.ReplaceAll(newUUID(r), "-", "")[:22], "type", "message", "role", "assistant", "content", []any{cb}, "stop_reason", nil, "stop_sequence", nil, "usage", obj{"input_tokens", 4, "output_tokens", 40 + r.IntN(400)}}
		emit(l)
		return l.UUID
	}
	l := base
	l.Type, l.UUID = "user", newUUID(r)
	l.Message = obj{"role", "user", "content", st.prompt}
	emit(l)
	if st.prompt != "Warmup" {
		for s := 0; s < 2+r.IntN(4); s++ {
			call, res := toolCall(r, st.sc, hClaudeCode, branch)
			var in any
			json.Unmarshal([]byte(call.input), &in)
			src := asst(obj{"type", "tool_use", "id", call.call, "name", call.tool, "input", in})
			l := base
			l.Type, l.UUID, l.SourceToolAssistantUUID = "user", newUUID(r), src
			l.Message = obj{"role", "user", "content", []any{obj{"tool_use_id", call.call, "type", "tool_result", "content", res.text, "is_error", false}}}
			emit(l)
		}
	}
	asst(obj{"type", "text", "text", st.result})
	return o.close()
}

// obj is a JSON object whose keys keep the order they are written in
// (key, value, key, value, …), as the real tools write them.
type obj []any

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(o[i]); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // the encoder's newline
		b.WriteByte(':')
		if err := enc.Encode(o[i+1]); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
