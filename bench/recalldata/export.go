package recalldata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/funes"
)

// Exports says where WriteExports put each source's files.
type Exports struct {
	Dir string

	ChatGPT    string // an unzipped ChatGPT export folder holding conversations.json
	Claude     string // an unzipped Claude.ai export folder holding conversations.json
	Codex      string // a CODEX_HOME: sessions/YYYY/MM/DD/rollout-….jsonl
	ClaudeCode string // a ~/.claude: projects/<munged cwd>/<session>.jsonl

	Files int // files written
}

// Paths are the four export roots, as `ireneo import` takes them.
func (e Exports) Paths() []string { return []string{e.ChatGPT, e.Claude, e.Codex, e.ClaudeCode} }

// WriteExports writes the dataset under dir in the four export formats: each
// conversation goes to the format of its harness. The layout is:
//
//	dir/chatgpt/conversations.json     (+ user.json, message_feedback.json)
//	dir/claude/conversations.json      (+ users.json, projects.json)
//	dir/codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl
//	dir/claude-code/projects/<munged cwd>/<id>.jsonl
//
// Its output is a function of the dataset alone: the same dataset writes the
// same bytes.
func (d *Dataset) WriteExports(dir string) (Exports, error) {
	e := Exports{
		Dir:        dir,
		ChatGPT:    filepath.Join(dir, "chatgpt"),
		Claude:     filepath.Join(dir, "claude"),
		Codex:      filepath.Join(dir, "codex"),
		ClaudeCode: filepath.Join(dir, "claude-code"),
	}
	var gpt, cl []*Conversation
	for _, c := range d.Conversations {
		switch c.Harness {
		case funes.HarnessChatGPT:
			gpt = append(gpt, c)
		case funes.HarnessClaude:
			cl = append(cl, c)
		}
	}
	w := &exportWriter{seed: d.Config.Seed}
	steps := []func() error{
		func() error { return w.chatgpt(e.ChatGPT, gpt) },
		func() error { return w.claude(e.Claude, cl) },
	}
	for _, c := range d.Conversations {
		switch c.Harness {
		case funes.HarnessCodex:
			steps = append(steps, func() error { return w.codex(e.Codex, c) })
		case funes.HarnessClaudeCode:
			steps = append(steps, func() error { return w.claudeCode(e.ClaudeCode, c) })
		}
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return e, err
		}
	}
	e.Files = w.files
	return e, nil
}

type exportWriter struct {
	seed  uint64
	files int
}

// marshal encodes v as JSON without HTML escaping, as the sources write it.
func marshal(v any) []byte { return appendJSON(nil, v) }

// appendJSON encodes the few shapes the writers build directly, in one pass;
// anything else goes through encoding/json.
func appendJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case ordered:
		b = append(b, '{')
		for i, p := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, p.K)
			b = append(b, ':')
			b = appendJSON(b, p.V)
		}
		return append(b, '}')
	case []ordered:
		b = append(b, '[')
		for i, o := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, o)
		}
		return append(b, ']')
	case []string:
		b = append(b, '[')
		for i, s := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		return append(b, ']')
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only our own types are encoded
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// appendString appends s as a JSON string, escaping as encoding/json does
// with HTML escaping off.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

func (w *exportWriter) writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	w.files++
	return os.WriteFile(path, data, 0o644)
}

// writeJSONL writes one JSON value a line.
func (w *exportWriter) writeJSONL(path string, lines []any) error {
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(marshal(l))
		b.WriteByte('\n')
	}
	return w.writeFile(path, b.Bytes())
}

// ordered is a JSON object whose keys keep their order, as the sources'
// own encoders write them.
type ordered []kv

type kv struct {
	K string
	V any
}

func (o ordered) MarshalJSON() ([]byte, error) { return appendJSON(nil, o), nil }

// derived makes a stable pseudo-random hex id from parts, for ids the
// conversation model does not carry (request ids, message ids of the API).
func derived(n int, parts ...string) string {
	h := uint64(14695981039346656037)
	var out strings.Builder
	for out.Len() < n {
		for _, p := range parts {
			for i := 0; i < len(p); i++ {
				h ^= uint64(p[i])
				h *= 1099511628211
			}
			h ^= 0xff
			h *= 1099511628211
		}
		fmt.Fprintf(&out, "%016x", h)
	}
	return out.String()[:n]
}

func derivedUUID(parts ...string) string {
	x := derived(32, parts...)
	return x[0:8] + "-" + x[8:12] + "-4" + x[13:16] + "-a" + x[17:20] + "-" + x[20:32]
}

func epoch(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

// ---------------------------------------------------------------- ChatGPT

func (w *exportWriter) chatgpt(dir string, convs []*Conversation) error {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, c := range convs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(marshal(chatgptConversation(c)))
	}
	b.WriteByte(']')
	if err := w.writeFile(filepath.Join(dir, "conversations.json"), b.Bytes()); err != nil {
		return err
	}
	user := ordered{{"id", "user-" + derived(24, "user", fmt.Sprint(w.seed))}, {"email", "dana@example.com"},
		{"chatgpt_plus_user", true}, {"phone_number", nil}}
	if err := w.writeFile(filepath.Join(dir, "user.json"), marshal(user)); err != nil {
		return err
	}
	return w.writeFile(filepath.Join(dir, "message_feedback.json"), []byte("[]"))
}

func chatgptConversation(c *Conversation) any {
	type node struct {
		id, parent string
		children   []string
		message    any
	}
	var nodes []*node
	byID := map[string]*node{}
	add := func(id, parent string, msg any) *node {
		n := &node{id: id, parent: parent, message: msg}
		nodes = append(nodes, n)
		byID[id] = n
		if p := byID[parent]; p != nil {
			p.children = append(p.children, id)
		}
		return n
	}
	const model = "gpt-5-thinking"
	msg := func(id, role string, ts *time.Time, content any, weight float64, meta ordered, channel any, endTurn any) ordered {
		var ct, ut any
		if ts != nil {
			ct, ut = epoch(*ts), epoch(*ts)
		}
		return ordered{
			{"id", id},
			{"author", ordered{{"role", role}, {"name", nil}, {"metadata", ordered{}}}},
			{"create_time", ct}, {"update_time", ut},
			{"content", content},
			{"status", "finished_successfully"}, {"end_turn", endTurn}, {"weight", weight},
			{"metadata", meta}, {"recipient", "all"}, {"channel", channel},
		}
	}
	text := func(s string) ordered { return ordered{{"content_type", "text"}, {"parts", []string{s}}} }

	add("client-created-root", "", nil)
	sysID := derivedUUID(c.ID, "system")
	add(sysID, "client-created-root", msg(sysID, funes.RoleSystem, nil, text(""), 0,
		ordered{{"is_visually_hidden_from_conversation", true}}, nil, true))
	parent := sysID
	// One conversation in eight has a regenerated answer: the abandoned
	// draft is the first child, the kept answer the second, so only a
	// walk from current_node finds the conversation's real path.
	regen := -1
	if derived(2, c.ID, "regen")[0] < '2' && len(c.Messages) > 2 {
		regen = 1
	}
	for i, m := range c.Messages {
		ts := m.TS
		if m.Role == funes.RoleUser {
			meta := ordered{{"selected_github_repos", []string{}}, {"serialization_metadata", ordered{{"custom_symbol_offsets", []int{}}}},
				{"request_id", derived(16, m.UUID, "req")}, {"message_source", nil}, {"timestamp_", "absolute"}, {"message_type", nil}}
			add(m.UUID, parent, msg(m.UUID, funes.RoleUser, &ts, text(m.Text), 1, meta, nil, nil))
			parent = m.UUID
			continue
		}
		if i == regen {
			draft := derivedUUID(m.UUID, "draft")
			dts := ts.Add(-2 * time.Second)
			add(draft, parent, msg(draft, funes.RoleAssistant, &dts,
				text("Draft answer that was regenerated: "+assistantClosers[0]), 1,
				ordered{{"model_slug", model}, {"parent_id", parent}}, "final", true))
		}
		if m.Thinking != "" {
			tid := derivedUUID(m.UUID, "thoughts")
			tts := ts.Add(-3 * time.Second)
			add(tid, parent, msg(tid, funes.RoleAssistant, &tts, ordered{
				{"content_type", "thoughts"},
				{"thoughts", []ordered{{{"summary", "Thinking it over"}, {"content", m.Thinking}, {"chunks", []string{}}, {"finished", true}}}},
				{"source_analysis_msg_id", derivedUUID(m.UUID, "analysis")},
			}, 1, ordered{{"reasoning_status", "is_reasoning"}, {"model_slug", model}, {"parent_id", parent}}, nil, nil))
			rid := derivedUUID(m.UUID, "recap")
			rts := ts.Add(-1 * time.Second)
			add(rid, tid, msg(rid, funes.RoleAssistant, &rts,
				ordered{{"content_type", "reasoning_recap"}, {"content", "Thought for 2s"}}, 1,
				ordered{{"reasoning_status", "reasoning_ended"}, {"model_slug", model}, {"parent_id", tid}}, nil, nil))
			parent = rid
		}
		meta := ordered{
			{"finish_details", ordered{{"type", "stop"}, {"stop_tokens", []int{200002}}}},
			{"is_complete", true}, {"citations", []any{}}, {"content_references", []any{}},
			{"model_slug", model}, {"default_model_slug", "gpt-5"}, {"parent_id", parent},
			{"request_id", derived(16, m.UUID, "req")}, {"timestamp_", "absolute"},
		}
		add(m.UUID, parent, msg(m.UUID, funes.RoleAssistant, &ts, text(m.Text), 1, meta, "final", true))
		parent = m.UUID
	}

	mapping := make(ordered, 0, len(nodes))
	for _, n := range nodes {
		var p any
		if n.parent != "" {
			p = n.parent
		}
		children := n.children
		if children == nil {
			children = []string{}
		}
		mapping = append(mapping, kv{n.id, ordered{{"id", n.id}, {"message", n.message}, {"parent", p}, {"children", children}}})
	}
	var title any = c.Title
	if c.Title == "" {
		title = nil
	}
	last := c.Messages[len(c.Messages)-1].TS
	return ordered{
		{"title", title}, {"create_time", epoch(c.Started())}, {"update_time", epoch(last)},
		{"mapping", mapping}, {"moderation_results", []any{}}, {"current_node", parent},
		{"plugin_ids", nil}, {"conversation_id", c.ID}, {"conversation_template_id", nil},
		{"gizmo_id", nil}, {"gizmo_type", nil}, {"is_archived", false}, {"is_starred", nil},
		{"safe_urls", []string{}}, {"blocked_urls", []string{}}, {"default_model_slug", "gpt-5"},
		{"conversation_origin", nil}, {"is_read_only", nil}, {"voice", nil}, {"async_status", nil},
		{"disabled_tool_ids", []string{}}, {"is_do_not_remember", false}, {"memory_scope", "global_enabled"},
		{"context_scopes", nil}, {"sugar_item_id", nil}, {"sugar_item_visible", false},
		{"is_study_mode", false}, {"owner", nil}, {"id", c.ID},
	}
}

// ---------------------------------------------------------------- Claude.ai

const claudeRootParent = "00000000-0000-4000-8000-000000000000"

func claudeTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

func (w *exportWriter) claude(dir string, convs []*Conversation) error {
	account := derivedUUID("account", fmt.Sprint(w.seed))
	var b bytes.Buffer
	b.WriteByte('[')
	for i, c := range convs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(claudeConversation(c, account)))
	}
	b.WriteByte(']')
	if err := w.writeFile(filepath.Join(dir, "conversations.json"), b.Bytes()); err != nil {
		return err
	}
	users := []ordered{{{"uuid", account}, {"full_name", "Dana Example"}, {"email_address", "dana@example.com"}, {"verified_phone_number", nil}}}
	if err := w.writeFile(filepath.Join(dir, "users.json"), marshal(users)); err != nil {
		return err
	}
	return w.writeFile(filepath.Join(dir, "projects.json"), []byte("[]"))
}

func claudeConversation(c *Conversation, account string) any {
	var msgs []ordered
	parent := claudeRootParent
	for _, m := range c.Messages {
		start, stop := claudeTime(m.TS.Add(-2*time.Second)), claudeTime(m.TS)
		var content []ordered
		text := m.Text
		sender := "human"
		if m.Role == funes.RoleAssistant {
			sender = "assistant"
			if m.Thinking != "" {
				content = append(content, ordered{
					{"start_timestamp", start}, {"stop_timestamp", start}, {"flags", nil}, {"type", "thinking"},
					{"thinking", m.Thinking}, {"summaries", []ordered{{{"summary", "Thinking it over."}}}},
					{"cut_off", false}, {"alternative_display_type", nil},
				})
				// The export's message text is the thinking and the answer run
				// together, with no separator: importers must read content.
				text = m.Thinking + m.Text
			}
		}
		content = append(content, ordered{
			{"start_timestamp", start}, {"stop_timestamp", stop}, {"flags", nil}, {"type", "text"},
			{"text", m.Text}, {"citations", []any{}},
		})
		msgs = append(msgs, ordered{
			{"uuid", m.UUID}, {"text", text}, {"content", content}, {"sender", sender},
			{"created_at", claudeTime(m.TS)}, {"updated_at", claudeTime(m.TS)},
			{"attachments", []any{}}, {"files", []any{}}, {"parent_message_uuid", parent},
		})
		parent = m.UUID
	}
	last := c.Messages[len(c.Messages)-1].TS
	return ordered{
		{"uuid", c.ID}, {"name", c.Title}, {"summary", ""},
		{"created_at", claudeTime(c.Started())}, {"updated_at", claudeTime(last)},
		{"account", ordered{{"uuid", account}}}, {"chat_messages", msgs},
	}
}

// ---------------------------------------------------------------- Codex

func codexTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (w *exportWriter) codex(home string, c *Conversation) error {
	start := c.Started().UTC()
	// The directory and file name use local time; the generator's local
	// time is UTC.
	path := filepath.Join(home, "sessions", start.Format("2006"), start.Format("01"), start.Format("02"),
		"rollout-"+start.Format("2006-01-02T15-04-05")+"-"+c.ID+".jsonl")
	line := func(ts time.Time, typ string, payload any) any {
		return ordered{{"timestamp", codexTime(ts)}, {"type", typ}, {"payload", payload}}
	}
	message := func(role, kind, text string) ordered {
		return ordered{{"type", "message"}, {"role", role}, {"content", []ordered{{{"type", kind}, {"text", text}}}}}
	}
	rateLimits := ordered{{"limit_id", "codex"}, {"limit_name", nil},
		{"primary", ordered{{"used_percent", 4.0}, {"window_minutes", 300}, {"resets_at", start.Unix() + 9000}}},
		{"secondary", ordered{{"used_percent", 10.0}, {"window_minutes", 10080}, {"resets_at", start.Unix() + 400000}}},
		{"credits", ordered{{"has_credits", false}, {"unlimited", false}, {"balance", nil}}}, {"plan_type", nil}}
	repo := filepath.Base(c.Workdir)
	lines := []any{
		line(start, "session_meta", ordered{
			{"id", c.ID}, {"timestamp", codexTime(start.Add(-400 * time.Millisecond))}, {"cwd", c.Workdir},
			{"originator", "codex_cli_rs"}, {"cli_version", "0.98.0"}, {"source", "cli"}, {"model_provider", "openai"},
			{"base_instructions", ordered{{"text", "You are Codex, a coding agent based on GPT-5. You and the user share the same workspace and collaborate to achieve the user's goals."}}},
			{"git", ordered{{"commit_hash", derived(40, c.ID, "commit")}, {"branch", "main"}, {"repository_url", "git@github.com:dana/" + repo + ".git"}}},
		}),
		line(start, "response_item", message("developer", "input_text",
			"<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`.\nApprovals are your mechanism to get user consent to run shell commands without the sandbox. `approval_policy` is `on-request`.\n</permissions instructions>")),
		line(start, "response_item", message("user", "input_text",
			"# AGENTS.md instructions for "+c.Workdir+"\n\n<INSTRUCTIONS>\nKeep notes short and append to notes/maintenance.md.\n</INSTRUCTIONS>")),
		line(start, "response_item", message("user", "input_text",
			"<environment_context>\n  <cwd>"+c.Workdir+"</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>")),
	}
	var tokens int
	for i := 0; i+1 < len(c.Messages); i += 2 {
		u, a := c.Messages[i], c.Messages[i+1]
		turnID := derivedUUID(c.ID, "turn", fmt.Sprint(i))
		ts := u.TS
		lines = append(lines,
			line(ts, "event_msg", ordered{{"type", "task_started"}, {"turn_id", turnID}, {"model_context_window", 258400}, {"collaboration_mode_kind", "default"}}),
			line(ts, "response_item", message("user", "input_text", u.Text)),
			line(ts, "event_msg", ordered{{"type", "user_message"}, {"message", u.Text}, {"images", []any{}}, {"local_images", []any{}}, {"text_elements", []any{}}}),
			line(ts.Add(20*time.Millisecond), "turn_context", ordered{
				{"turn_id", turnID}, {"cwd", c.Workdir}, {"approval_policy", "on-request"},
				{"sandbox_policy", ordered{{"type", "workspace-write"}, {"writable_roots", []string{c.Workdir}}, {"network_access", false}, {"exclude_tmpdir_env_var", false}, {"exclude_slash_tmp", false}}},
				{"model", "gpt-5.3-codex"}, {"personality", "pragmatic"},
				{"collaboration_mode", ordered{{"mode", "default"}, {"settings", ordered{{"model", "gpt-5.3-codex"}, {"reasoning_effort", "medium"}, {"developer_instructions", nil}}}}},
				{"effort", "medium"}, {"summary", "auto"}, {"truncation_policy", ordered{{"mode", "tokens"}, {"limit", 10000}}},
			}),
			line(ts.Add(time.Second), "event_msg", ordered{{"type", "token_count"}, {"info", nil}, {"rate_limits", rateLimits}}),
			line(ts.Add(2*time.Second), "response_item", ordered{{"type", "reasoning"}, {"summary", []any{}}, {"content", nil},
				{"encrypted_content", "gAAAAB" + derived(120, c.ID, "enc", fmt.Sprint(i))}}),
		)
		for j, tc := range a.Tools {
			callID := "call_" + tc.ID
			args := marshal(ordered{{"command", tc.Command}, {"workdir", c.Workdir}})
			at := a.TS.Add(-time.Duration(3-j) * time.Second)
			lines = append(lines,
				line(at, "response_item", ordered{{"type", "function_call"}, {"name", "shell_command"}, {"arguments", string(args)}, {"call_id", callID}}),
				line(at.Add(300*time.Millisecond), "response_item", ordered{{"type", "function_call_output"}, {"call_id", callID},
					{"output", "Exit code: 0\nWall time: 0 seconds\nOutput:\n" + tc.Output}}),
			)
		}
		tokens += 9000 + len(u.Text) + len(a.Text)
		usage := ordered{{"input_tokens", tokens}, {"cached_input_tokens", tokens / 2}, {"output_tokens", len(a.Text) / 4}, {"reasoning_output_tokens", 64}, {"total_tokens", tokens + len(a.Text)/4}}
		lines = append(lines,
			line(a.TS, "event_msg", ordered{{"type", "agent_message"}, {"message", a.Text}}),
			line(a.TS, "response_item", append(message("assistant", "output_text", a.Text), kv{"phase", "final_answer"})),
			line(a.TS.Add(20*time.Millisecond), "event_msg", ordered{{"type", "token_count"},
				{"info", ordered{{"total_token_usage", usage}, {"last_token_usage", usage}, {"model_context_window", 258400}}}, {"rate_limits", rateLimits}}),
			line(a.TS.Add(25*time.Millisecond), "event_msg", ordered{{"type", "task_complete"}, {"turn_id", turnID}, {"last_agent_message", a.Text}}),
		)
	}
	return w.writeJSONL(path, lines)
}

// ---------------------------------------------------------------- Claude Code

// MungeCwd is Claude Code's project folder name for a working directory:
// every character that is not a letter or digit becomes '-'.
func MungeCwd(cwd string) string {
	b := []byte(cwd)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

func (w *exportWriter) claudeCode(home string, c *Conversation) error {
	path := filepath.Join(home, "projects", MungeCwd(c.Workdir), c.ID+".jsonl")
	const version = "2.0.64"
	const model = "claude-sonnet-4-5-20250929"
	base := func(parent any, typ string) ordered {
		return ordered{
			{"parentUuid", parent}, {"isSidechain", false}, {"userType", "external"}, {"cwd", c.Workdir},
			{"sessionId", c.ID}, {"version", version}, {"gitBranch", "main"}, {"type", typ},
		}
	}
	var lines []any
	last := c.Messages[len(c.Messages)-1].UUID
	if c.Title != "" {
		lines = append(lines, ordered{{"type", "summary"}, {"summary", c.Title}, {"leafUuid", last}})
	}
	first := c.Messages[0]
	lines = append(lines, ordered{{"type", "file-history-snapshot"}, {"messageId", first.UUID},
		{"snapshot", ordered{{"messageId", first.UUID}, {"trackedFileBackups", ordered{}}, {"timestamp", codexTime(first.TS)}}},
		{"isSnapshotUpdate", false}})

	var parent any
	usage := ordered{{"input_tokens", 3}, {"cache_creation_input_tokens", 1200}, {"cache_read_input_tokens", 18000}, {"output_tokens", 90}}
	for i, m := range c.Messages {
		if m.Role == funes.RoleUser {
			l := append(base(parent, "user"),
				kv{"message", ordered{{"role", "user"}, {"content", m.Text}}},
				kv{"uuid", m.UUID}, kv{"timestamp", codexTime(m.TS)})
			if i == 0 {
				l = append(l, kv{"thinkingMetadata", ordered{{"level", "none"}, {"disabled", true}, {"triggers", []any{}}}}, kv{"todos", []any{}})
			}
			lines = append(lines, l)
			parent = m.UUID
			continue
		}
		// One API response is split over several lines, one content block
		// a line, sharing message.id; a tool result starts a new response.
		msgID := "msg_01" + derived(22, m.UUID, "msg")
		reqID := "req_011C" + derived(18, m.UUID, "req")
		assistantLine := func(uuid string, ts time.Time, id string, block ordered) ordered {
			return append(base(parent, "assistant"),
				kv{"message", ordered{{"model", model}, {"id", id}, {"type", "message"}, {"role", "assistant"},
					{"content", []ordered{block}}, {"stop_reason", nil}, {"stop_sequence", nil}, {"usage", usage}}},
				kv{"requestId", reqID}, kv{"uuid", uuid}, kv{"timestamp", codexTime(ts)})
		}
		ts := m.TS.Add(-time.Duration(2+2*len(m.Tools)) * time.Second)
		if m.Thinking != "" {
			u := derivedUUID(m.UUID, "thinking")
			lines = append(lines, assistantLine(u, ts, msgID, ordered{{"type", "thinking"}, {"thinking", m.Thinking}, {"signature", "Eq" + derived(60, m.UUID, "sig")}}))
			parent = u
		}
		for _, tc := range m.Tools {
			toolID := "toolu_01" + tc.ID
			u := derivedUUID(m.UUID, "tool", tc.ID)
			ts = ts.Add(time.Second)
			lines = append(lines, assistantLine(u, ts, msgID, ordered{{"type", "tool_use"}, {"id", toolID}, {"name", "Bash"},
				{"input", ordered{{"command", tc.Command}, {"description", "Append the entry to the maintenance notes"}}}}))
			parent = u
			r := derivedUUID(m.UUID, "result", tc.ID)
			ts = ts.Add(time.Second)
			lines = append(lines, append(base(parent, "user"),
				kv{"message", ordered{{"role", "user"}, {"content", []ordered{{{"tool_use_id", toolID}, {"type", "tool_result"}, {"content", tc.Output}, {"is_error", false}}}}}},
				kv{"uuid", r}, kv{"timestamp", codexTime(ts)},
				kv{"toolUseResult", ordered{{"stdout", tc.Output}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}}},
				kv{"sourceToolAssistantUUID", u}))
			parent = r
			msgID = "msg_01" + derived(22, m.UUID, "msg", tc.ID)
		}
		lines = append(lines, assistantLine(m.UUID, m.TS, msgID, ordered{{"type", "text"}, {"text", m.Text}}))
		parent = m.UUID
	}
	return w.writeJSONL(path, lines)
}
