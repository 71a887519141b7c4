package importers

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Codex CLI rollouts: sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl.
// Since Sep 2025 every line is an envelope {timestamp, type, payload}; older
// files start with a bare {id, timestamp, instructions, git} header followed
// by bare response items. See EXPORT-FORMATS.md §3.
//
// One conversation is recorded up to three times: as response_item lines
// (what the model saw), as legacy event_msg lines (user_message,
// agent_message, agent_reasoning: what the person saw), and, in paginated
// sessions, as event_msg item_completed lines. For each kind of turn the
// parser picks one channel per segment (a segment starts at each repeated
// session_meta, i.e. a resume) and drops the others, so a reply is never
// imported twice and a file that only has one channel loses nothing.

type codexEnvelope struct {
	Timestamp  flexTime        `json:"timestamp"`
	Type       looseString     `json:"type"`
	Payload    json.RawMessage `json:"payload"`
	ID         looseString     `json:"id"` // legacy header
	RecordType looseString     `json:"record_type"`
	Git        *codexGit       `json:"git"`
}

type codexGit struct {
	RepositoryURL looseString `json:"repository_url"`
	Branch        looseString `json:"branch"`
}

type codexMeta struct {
	ID        looseString     `json:"id"`
	Timestamp flexTime        `json:"timestamp"`
	Cwd       looseString     `json:"cwd"`
	Git       *codexGit       `json:"git"`
	Source    json.RawMessage `json:"source"`
	Nickname  looseString     `json:"agent_nickname"`
}

type codexItem struct {
	Type      looseString     `json:"type"`
	Role      looseString     `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      looseString     `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    looseString     `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	// legacy bare format
	Cwd looseString `json:"cwd"`
}

type codexEvent struct {
	Type        looseString     `json:"type"`
	Message     looseString     `json:"message"`
	Text        looseString     `json:"text"`
	Images      json.RawMessage `json:"images"`
	LocalImages json.RawMessage `json:"local_images"`
	Item        json.RawMessage `json:"item"`
}

// Turn kinds, and the channels that record them.
type codexKind int

const (
	kindUser codexKind = iota
	kindAssistant
	kindReasoning
	kindTool
	kindHarness // injected context the person never typed, kept verbatim (plumbing)
	nKinds
)

type codexChannel int

const (
	chResponse  codexChannel = iota + 1 // response_item
	chEvent                             // legacy event_msg
	chCompleted                         // event_msg item_completed
)

// Preferred channel per kind, best first: the person's own words come from
// the events (response items carry injected harness context as "user"),
// everything else from the response items.
var codexPrefer = [nKinds][]codexChannel{
	kindUser:      {chEvent, chCompleted, chResponse},
	kindAssistant: {chResponse, chCompleted, chEvent},
	kindReasoning: {chResponse, chCompleted, chEvent},
	kindTool:      {chResponse, chCompleted},
	kindHarness:   {chResponse},
}

type codexEntry struct {
	seg  int
	kind codexKind
	ch   codexChannel
	turn funes.Turn
	call string
}

type codexParse struct {
	meta     codexMeta
	haveMeta bool
	cwd      string // first turn_context or environment_context cwd
	subagent bool
	parent   string // the thread that spawned this sub-agent
	seg      int
	lastTS   time.Time
	entries  []codexEntry
	seen     map[[32]byte]bool
}

// ParseCodex reads one Codex rollout file, in either format.
func ParseCodex(ctx context.Context, r io.Reader, name string, h Handler) error {
	p := &codexParse{seen: map[[32]byte]bool{}}
	st, err := readJSONLines(ctx, r, h.Progress, p.line)
	if err != nil {
		return err
	}
	return st.emit(h, p.session(ctx, name, h.Lookup))
}

func (p *codexParse) line(n int, raw []byte) string {
	var env codexEnvelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return "not a JSON object"
	}
	ts := env.Timestamp.Time
	if ts.IsZero() {
		ts = p.lastTS
	}
	p.lastTS = ts
	switch env.Type {
	case "session_meta":
		var m codexMeta
		if json.Unmarshal(env.Payload, &m) != nil {
			return "session_meta of the wrong shape"
		}
		if !p.haveMeta {
			p.setMeta(m)
		} else {
			p.seg++ // a resumed session: a new segment
		}
		return ""
	case "turn_context":
		var tc struct {
			Cwd looseString `json:"cwd"`
		}
		json.Unmarshal(env.Payload, &tc)
		if p.cwd == "" {
			p.cwd = string(tc.Cwd)
		}
		return ""
	case "response_item", "event_msg":
		if p.dup(raw) {
			return ""
		}
		if env.Type == "response_item" {
			var it codexItem
			if json.Unmarshal(env.Payload, &it) != nil {
				return "response_item of the wrong shape"
			}
			p.item(&it, ts)
			return ""
		}
		var ev codexEvent
		if json.Unmarshal(env.Payload, &ev) != nil {
			return "event_msg of the wrong shape"
		}
		p.event(&ev, ts)
		return ""
	case "compacted":
		return "" // a model-written summary of earlier turns, which are already here
	case "":
		if env.RecordType != "" {
			return "" // legacy {"record_type":"state"}
		}
		if env.ID != "" && len(env.Payload) == 0 && !p.haveMeta { // legacy header
			m := codexMeta{ID: env.ID, Timestamp: env.Timestamp, Git: env.Git}
			p.setMeta(m)
			p.lastTS = m.Timestamp.Time
			return ""
		}
		return ""
	default:
		if len(env.Payload) == 0 { // a legacy bare response item
			if p.dup(raw) {
				return ""
			}
			var it codexItem
			if json.Unmarshal(raw, &it) != nil {
				return "item of the wrong shape"
			}
			p.item(&it, ts)
		}
		return "" // an envelope type we don't import
	}
}

func (p *codexParse) setMeta(m codexMeta) {
	p.meta, p.haveMeta = m, true
	var src struct {
		Subagent *struct {
			ThreadSpawn *struct {
				Parent looseString `json:"parent_thread_id"`
			} `json:"thread_spawn"`
		} `json:"subagent"`
	}
	if json.Unmarshal(m.Source, &src) == nil && src.Subagent != nil {
		p.subagent = true
		if src.Subagent.ThreadSpawn != nil {
			p.parent = strings.TrimSpace(string(src.Subagent.ThreadSpawn.Parent))
		}
	}
}

// dup reports a line seen before in this file: forked and resumed rollouts
// replay earlier history verbatim.
func (p *codexParse) dup(raw []byte) bool {
	sum := sha256.Sum256(raw)
	if p.seen[sum] {
		return true
	}
	p.seen[sum] = true
	return false
}

func (p *codexParse) add(kind codexKind, ch codexChannel, ts time.Time, role string, call string, blocks []funes.Block) {
	if len(blocks) == 0 {
		return
	}
	p.entries = append(p.entries, codexEntry{seg: p.seg, kind: kind, ch: ch, call: call,
		turn: funes.Turn{TS: ts, Role: role, Blocks: blocks}})
}

func (p *codexParse) item(it *codexItem, ts time.Time) {
	switch it.Type {
	case "message":
		switch it.Role {
		case "user":
			texts := codexContentTexts(it.Content)
			var bs []funes.Block
			for _, t := range texts {
				if cwd := envContextCwd(t); cwd != "" && p.cwd == "" {
					p.cwd = cwd
				}
				if isHarnessContext(t) {
					// Kept as written, apart from the person's words: the
					// index leaves it out (plumbing.Classify).
					p.add(kindHarness, chResponse, ts, funes.RoleUser, "", addBlock(nil, funes.BlockText, t, ""))
					continue
				}
				bs = addBlock(bs, funes.BlockText, t, "")
			}
			p.add(kindUser, chResponse, ts, funes.RoleUser, "", bs)
		case "assistant":
			var bs []funes.Block
			for _, t := range codexContentTexts(it.Content) {
				bs = addBlock(bs, funes.BlockText, t, "")
			}
			p.add(kindAssistant, chResponse, ts, funes.RoleAssistant, "", bs)
		}
		// developer and system messages are harness instructions
	case "reasoning":
		texts := codexContentTexts(it.Summary)
		if len(texts) == 0 {
			texts = codexContentTexts(it.Content) // raw reasoning, when recorded
		}
		p.add(kindReasoning, chResponse, ts, funes.RoleAssistant, "",
			addBlock(nil, funes.BlockThinking, strings.Join(texts, "\n\n"), ""))
	case "function_call":
		p.add(kindTool, chResponse, ts, funes.RoleAssistant, string(it.CallID),
			addBlock(nil, funes.BlockToolUse, rawText(it.Arguments), string(it.Name)))
	case "custom_tool_call":
		p.add(kindTool, chResponse, ts, funes.RoleAssistant, string(it.CallID),
			addBlock(nil, funes.BlockToolUse, rawText(it.Input), string(it.Name)))
	case "local_shell_call":
		var a struct {
			Command []string `json:"command"`
		}
		json.Unmarshal(it.Action, &a)
		p.add(kindTool, chResponse, ts, funes.RoleAssistant, string(it.CallID),
			addBlock(nil, funes.BlockToolUse, strings.Join(a.Command, " "), "shell"))
	case "web_search_call":
		var a struct {
			Query looseString `json:"query"`
			URL   looseString `json:"url"`
		}
		json.Unmarshal(it.Action, &a)
		p.add(kindTool, chResponse, ts, funes.RoleAssistant, "",
			addBlock(nil, funes.BlockToolUse, joinNonBlank(" ", string(a.Query), string(a.URL)), "web_search"))
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		out := codexOutput(it.Output)
		if blank(out) {
			// A call that failed without a word still happened: keep a
			// visible result, with its exit code when the output gives one.
			out = noOutput(it.Output)
		}
		p.add(kindTool, chResponse, ts, funes.RoleTool, string(it.CallID),
			addBlock(nil, funes.BlockToolResult, out, ""))
	}
	// ghost_snapshot, compaction and the like carry no conversation
}

func (p *codexParse) event(ev *codexEvent, ts time.Time) {
	switch ev.Type {
	case "user_message":
		bs := addBlock(nil, funes.BlockText, string(ev.Message), "")
		bs = append(bs, imagePlaceholders(ev.Images, ev.LocalImages)...)
		p.add(kindUser, chEvent, ts, funes.RoleUser, "", bs)
	case "agent_message":
		p.add(kindAssistant, chEvent, ts, funes.RoleAssistant, "", addBlock(nil, funes.BlockText, string(ev.Message), ""))
	case "agent_reasoning":
		p.add(kindReasoning, chEvent, ts, funes.RoleAssistant, "", addBlock(nil, funes.BlockThinking, string(ev.Text), ""))
	case "item_completed":
		p.completed(ev.Item, ts)
	}
}

// completed reads a paginated session's item_completed TurnItem.
func (p *codexParse) completed(raw json.RawMessage, ts time.Time) {
	var it struct {
		Type             looseString     `json:"type"`
		ID               looseString     `json:"id"`
		Content          json.RawMessage `json:"content"`
		Text             looseString     `json:"text"`
		SummaryText      []looseString   `json:"summary_text"`
		RawContent       []looseString   `json:"raw_content"`
		Command          json.RawMessage `json:"command"`
		AggregatedOutput looseString     `json:"aggregatedOutput"`
		ExitCode         looseFloat      `json:"exitCode"`
		Tool             looseString     `json:"tool"`
		Server           looseString     `json:"server"`
		Arguments        json.RawMessage `json:"arguments"`
		Result           json.RawMessage `json:"result"`
		Error            json.RawMessage `json:"error"`
		Query            looseString     `json:"query"`
		Changes          json.RawMessage `json:"changes"`
	}
	if json.Unmarshal(raw, &it) != nil {
		return
	}
	id := string(it.ID)
	switch it.Type {
	case "UserMessage":
		var bs []funes.Block
		var parts []struct {
			Type     looseString `json:"type"`
			Text     looseString `json:"text"`
			ImageURL looseString `json:"image_url"`
			Path     looseString `json:"path"`
		}
		json.Unmarshal(it.Content, &parts)
		for _, c := range parts {
			switch c.Type {
			case "text":
				bs = addBlock(bs, funes.BlockText, string(c.Text), "")
			case "image", "local_image":
				bs = addBlock(bs, funes.BlockText, "[image]", "")
			}
		}
		p.add(kindUser, chCompleted, ts, funes.RoleUser, "", bs)
	case "AgentMessage":
		p.add(kindAssistant, chCompleted, ts, funes.RoleAssistant, "",
			addBlock(nil, funes.BlockText, strings.Join(codexContentTexts(it.Content), "\n\n"), ""))
	case "Reasoning":
		texts := looseStrings(it.SummaryText)
		if len(texts) == 0 {
			texts = looseStrings(it.RawContent)
		}
		p.add(kindReasoning, chCompleted, ts, funes.RoleAssistant, "",
			addBlock(nil, funes.BlockThinking, strings.Join(texts, "\n\n"), ""))
	case "Plan":
		p.add(kindAssistant, chCompleted, ts, funes.RoleAssistant, "", addBlock(nil, funes.BlockText, string(it.Text), ""))
	case "CommandExecution":
		var argv []string
		cmd := rawText(it.Command)
		if json.Unmarshal(it.Command, &argv) == nil {
			cmd = strings.Join(argv, " ")
		}
		p.add(kindTool, chCompleted, ts, funes.RoleAssistant, id, addBlock(nil, funes.BlockToolUse, cmd, "shell"))
		out := string(it.AggregatedOutput)
		if blank(out) {
			out = "(no output)"
			if it.ExitCode.Set {
				out = fmt.Sprintf("(no output; exit code %g)", it.ExitCode.V)
			}
		}
		p.add(kindTool, chCompleted, ts, funes.RoleTool, id, addBlock(nil, funes.BlockToolResult, out, "shell"))
	case "McpToolCall", "DynamicToolCall":
		name := string(it.Tool)
		if it.Server != "" {
			name = string(it.Server) + "." + name
		}
		p.add(kindTool, chCompleted, ts, funes.RoleAssistant, id, addBlock(nil, funes.BlockToolUse, rawText(it.Arguments), name))
		out := contentText(it.Result)
		if out == "" {
			out = rawText(it.Error)
		}
		p.add(kindTool, chCompleted, ts, funes.RoleTool, id, addBlock(nil, funes.BlockToolResult, out, name))
	case "WebSearch":
		p.add(kindTool, chCompleted, ts, funes.RoleAssistant, id, addBlock(nil, funes.BlockToolUse, string(it.Query), "web_search"))
	case "FileChange":
		p.add(kindTool, chCompleted, ts, funes.RoleAssistant, id, addBlock(nil, funes.BlockToolUse, compactJSON(it.Changes), "apply_patch"))
	}
}

// session assembles the chosen channels into one session, or nil.
func (p *codexParse) session(ctx context.Context, name string, look Lookup) *funes.Session {
	type key struct {
		seg  int
		kind codexKind
	}
	have := map[key]map[codexChannel]bool{}
	for _, e := range p.entries {
		k := key{e.seg, e.kind}
		if have[k] == nil {
			have[k] = map[codexChannel]bool{}
		}
		have[k][e.ch] = true
	}
	chosen := map[key]codexChannel{}
	for k, chs := range have {
		for _, ch := range codexPrefer[k.kind] {
			if chs[ch] {
				chosen[k] = ch
				break
			}
		}
	}
	s := &funes.Session{ID: strings.TrimSpace(string(p.meta.ID)), Harness: funes.HarnessCodex}
	if s.ID == "" {
		s.ID = codexIDFromName(name)
	}
	if s.ID == "" {
		return nil
	}
	toolNames := map[string]string{}
	last := p.meta.Timestamp.Time
	prevHarness := false
	contexts, said := 0, 0
	for _, e := range p.entries {
		if chosen[key{e.seg, e.kind}] != e.ch {
			continue
		}
		if e.kind == kindHarness && prevHarness {
			// One preamble of several messages reads as one turn.
			at := &s.Turns[len(s.Turns)-1]
			at.Blocks = append(at.Blocks, e.turn.Blocks...)
			continue
		}
		prevHarness = e.kind == kindHarness
		if prevHarness {
			contexts++
			t := e.turn
			t.TurnUUID = fmt.Sprintf("%s-context-%d", s.ID, contexts)
			e.turn = t
		} else {
			// Turn ids count the conversation's own turns only, as they did
			// before harness context was kept: receipts stay valid.
			t := e.turn
			t.TurnUUID = fmt.Sprintf("%s-%d", s.ID, said)
			said++
			e.turn = t
		}
		t := e.turn
		if t.TS.IsZero() {
			t.TS = last
		}
		last = t.TS
		for i := range t.Blocks {
			b := &t.Blocks[i]
			switch {
			case b.Type == funes.BlockToolUse && e.call != "":
				toolNames[e.call] = b.ToolName
			case b.Type == funes.BlockToolResult && b.ToolName == "":
				b.ToolName = toolNames[e.call]
			}
		}
		s.Turns = append(s.Turns, t)
	}
	if len(s.Turns) == 0 {
		return nil
	}
	number(s)
	s.Workdir = string(p.meta.Cwd)
	if s.Workdir == "" {
		s.Workdir = p.cwd
	}
	remote, branch := "", ""
	if p.meta.Git != nil {
		remote, branch = string(p.meta.Git.RepositoryURL), string(p.meta.Git.Branch)
	}
	s.Project = projectFor(s.Workdir, remote)
	if strings.TrimSpace(remote) == "" {
		s.Project = repoProject(s.Workdir, branch)
	}
	if p.parent != "" && look != nil {
		// A sub-agent belongs to the repository of the thread that spawned it.
		if proj, ok, err := look.Project(ctx, funes.HarnessCodex, p.parent); err == nil && ok {
			s.Project = proj
		}
	}
	s.Title = titleFrom(s.Turns)
	if p.subagent {
		label := "Sub-agent"
		if p.meta.Nickname != "" {
			label += " " + string(p.meta.Nickname)
		}
		s.Title = strings.TrimSpace(label + ": " + s.Title)
	}
	return s
}

var uuidAtEnd = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// codexIDFromName takes the session id from a rollout-<time>-<uuid>.jsonl
// name, for files whose meta line is lost.
func codexIDFromName(name string) string {
	base := filepath.Base(name)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	if id := uuidAtEnd.FindString(stem); id != "" {
		return strings.ToLower(id)
	}
	return ""
}

// Injected harness context, sent as "user" messages but never typed by the
// person.
var harnessPrefixes = []string{
	"<environment_context>", "<user_instructions>", "<permissions instructions>",
	"<INSTRUCTIONS>", "# AGENTS.md", "<developer_instructions>", "<collaboration_mode>",
	"<personality_spec>", "<turn_aborted>", "<skill>", "<subagent_notification>", "<user_shell_command>",
}

func isHarnessContext(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range harnessPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

var envCwd = regexp.MustCompile(`(?s)<environment_context>.*?<cwd>(.*?)</cwd>`)

// envContextCwd finds the cwd in an <environment_context> message: the only
// place legacy rollouts record it.
func envContextCwd(text string) string {
	if m := envCwd.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// codexContentTexts reads message content ([{type,text}] or a string) and
// reasoning summaries alike.
func codexContentTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if blank(s) {
			return nil
		}
		return []string{s}
	}
	var parts []struct {
		Type looseString `json:"type"`
		Text looseString `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var out []string
	for _, c := range parts {
		switch {
		case c.Type == "input_image" || c.Type == "image":
			out = append(out, "[image]")
		case !blank(string(c.Text)):
			out = append(out, string(c.Text))
		}
	}
	return out
}

// codexOutput reads a tool output: a string (legacy shell outputs are a JSON
// string {"output": …, "metadata": …}, of which the output is kept), or a
// list of content items.
func codexOutput(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return contentText(raw)
	}
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") && strings.Contains(t, `"output"`) {
		var o struct {
			Output *string `json:"output"`
		}
		if json.Unmarshal([]byte(t), &o) == nil && o.Output != nil {
			return *o.Output
		}
	}
	return s
}

// noOutput stands for a tool output with no text: "(no output)", with the
// exit code when the output records one (legacy {"output":"",
// "metadata":{"exit_code":1}}, or an object with exit_code).
func noOutput(raw json.RawMessage) string {
	var meta struct {
		ExitCode *float64 `json:"exit_code"`
		Metadata *struct {
			ExitCode *float64 `json:"exit_code"`
		} `json:"metadata"`
	}
	body := []byte(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		body = []byte(s)
	}
	if json.Unmarshal(body, &meta) == nil {
		code := meta.ExitCode
		if meta.Metadata != nil && meta.Metadata.ExitCode != nil {
			code = meta.Metadata.ExitCode
		}
		if code != nil {
			return fmt.Sprintf("(no output; exit code %g)", *code)
		}
	}
	return "(no output)"
}

// rawText is a JSON string's value, or other JSON compacted.
func rawText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return compactJSON(raw)
}

func looseStrings(ls []looseString) []string {
	var out []string
	for _, l := range ls {
		if !blank(string(l)) {
			out = append(out, string(l))
		}
	}
	return out
}

// imagePlaceholders stands in for images attached to a prompt.
func imagePlaceholders(lists ...json.RawMessage) []funes.Block {
	var bs []funes.Block
	for _, raw := range lists {
		var items []json.RawMessage
		json.Unmarshal(raw, &items)
		for range items {
			bs = append(bs, funes.Block{Type: funes.BlockText, Text: "[image]"})
		}
	}
	return bs
}
