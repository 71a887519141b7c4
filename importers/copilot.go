package importers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"go.yaml.in/yaml/v3"
)

// GitHub Copilot CLI sessions: ~/.copilot/session-state/<id>/events.jsonl
// ($COPILOT_HOME moves ~/.copilot), one event a line {type, id,
// timestamp, parentId, agentId?, data}, appended to on resume; beside it
// workspace.yaml holds the session's cwd, git root, branch, repository
// and its name or summary. The events that carry the conversation:
// user.message (data.content is what the person typed; transformedContent
// adds the CLI's <current_datetime> and is not kept), assistant.message
// (content, reasoningText, toolRequests), assistant.reasoning,
// tool.execution_start/complete (the result, or an error), session.error
// and abort; session.title_changed names it, and session.snapshot_rewind
// takes back what the person rewound (its eventIds, or all after
// upToEventId), as the CLI shows it. system.message is the CLI's system prompt, not kept, as
// Codex's developer messages are not.
//
// A sub-agent (the task tool) runs inline: its events carry agentId, and
// become one conversation each, <session>-agent-<agentId>, titled
// "Sub-agent: …", in the session's project.

type cpEvent struct {
	Type      looseString     `json:"type"`
	ID        looseString     `json:"id"`
	Timestamp flexTime        `json:"timestamp"`
	AgentID   looseString     `json:"agentId"`
	Data      json.RawMessage `json:"data"`
}

type cpData struct {
	SessionID looseString `json:"sessionId"`
	Context   *struct {
		Cwd        looseString `json:"cwd"`
		GitRoot    looseString `json:"gitRoot"`
		Branch     looseString `json:"branch"`
		Repository looseString `json:"repository"`
	} `json:"context"`
	Content       json.RawMessage `json:"content"`
	ReasoningText looseString     `json:"reasoningText"`
	Attachments   []struct {
		Type        looseString `json:"type"`
		Path        looseString `json:"path"`
		DisplayName looseString `json:"displayName"`
	} `json:"attachments"`
	ToolRequests []struct {
		ToolCallID looseString     `json:"toolCallId"`
		Name       looseString     `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
	} `json:"toolRequests"`
	ToolCallID looseString     `json:"toolCallId"`
	ToolName   looseString     `json:"toolName"`
	Success    *bool           `json:"success"`
	Result     json.RawMessage `json:"result"`
	Error      json.RawMessage `json:"error"`
	Message    looseString     `json:"message"`
	Reason     looseString     `json:"reason"`
	// session.snapshot_rewind, session.title_changed
	UpToEventID looseString   `json:"upToEventId"`
	EventIDs    []looseString `json:"eventIds"`
	Title       looseString   `json:"title"`
	// subagent.started
	AgentName        looseString `json:"agentName"`
	AgentDisplayName looseString `json:"agentDisplayName"`
	AgentDescription looseString `json:"agentDescription"`
}

// cpConv is one conversation being built: the session's, or a sub-agent's.
type cpConv struct {
	turns []funes.Turn
	label string // a sub-agent's name
}

type cpParse struct {
	sessionID string
	cwd       string
	gitRoot   string
	branch    string
	repo      string
	main      cpConv
	agents    map[string]*cpConv
	order     []string // sub-agents in the order they started
	toolNames map[string]string
	last      time.Time
	title     string
}

// cpWorkspace is what workspace.yaml holds that Ireneo reads.
type cpWorkspace struct {
	ID         string `yaml:"id"`
	Cwd        string `yaml:"cwd"`
	GitRoot    string `yaml:"git_root"`
	Branch     string `yaml:"branch"`
	Repository string `yaml:"repository"`
	Name       string `yaml:"name"`
	UserNamed  bool   `yaml:"user_named"`
	Summary    string `yaml:"summary"`
}

// ParseCopilotCLI reads one Copilot CLI events.jsonl, with the
// workspace.yaml beside it when there is one.
func ParseCopilotCLI(ctx context.Context, r io.Reader, name string, h Handler) error {
	p := &cpParse{agents: map[string]*cpConv{}, toolNames: map[string]string{}}
	st, err := readJSONLines(ctx, r, h.Progress, p.line)
	if err != nil {
		return err
	}
	var ws cpWorkspace
	if h.Path != "" {
		path := filepath.Join(filepath.Dir(h.Path), "workspace.yaml")
		text, err := readSideFile(path)
		if err != nil {
			return err
		}
		if text != "" {
			if err := yaml.Unmarshal([]byte(text), &ws); err != nil {
				return fmt.Errorf("%s: not the YAML Copilot CLI writes: %v", path, err)
			}
		}
	}
	ss := p.sessions(name, ws)
	if len(ss) == 0 {
		return st.emit(h, nil)
	}
	for _, s := range ss {
		if err := h.Session(s); err != nil {
			return err
		}
	}
	return nil
}

func (p *cpParse) line(_ int, raw []byte) string {
	var ev cpEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return "not a JSON object"
	}
	var d cpData
	if len(ev.Data) > 0 && json.Unmarshal(ev.Data, &d) != nil {
		return "event data of the wrong shape"
	}
	ts := ev.Timestamp.Time
	if ts.IsZero() {
		ts = p.last
	}
	p.last = ts
	conv := &p.main
	if ev.AgentID != "" {
		conv = p.agent(string(ev.AgentID))
	}
	add := func(role string, blocks []funes.Block) {
		if len(blocks) > 0 {
			conv.turns = append(conv.turns, funes.Turn{TurnUUID: string(ev.ID), TS: ts, Role: role, Blocks: blocks})
		}
	}
	switch ev.Type {
	case "session.start", "session.resume":
		if d.SessionID != "" && p.sessionID == "" {
			p.sessionID = strings.TrimSpace(string(d.SessionID))
		}
		if d.Context != nil {
			if p.cwd == "" {
				p.cwd = strings.TrimSpace(string(d.Context.Cwd))
			}
			if p.gitRoot == "" {
				p.gitRoot = strings.TrimSpace(string(d.Context.GitRoot))
			}
			if p.branch == "" {
				p.branch = strings.TrimSpace(string(d.Context.Branch))
			}
			if p.repo == "" {
				p.repo = strings.TrimSpace(string(d.Context.Repository))
			}
		}
	case "user.message":
		blocks := addBlock(nil, funes.BlockText, rawText(d.Content), "")
		for _, a := range d.Attachments {
			what := strings.TrimSpace(string(a.Path))
			if what == "" {
				what = strings.TrimSpace(string(a.DisplayName))
			}
			blocks = append(blocks, funes.Block{Type: funes.BlockText, Text: mediaPlaceholder(cpMime(string(a.Type)), what)})
		}
		add(funes.RoleUser, blocks)
	case "assistant.message":
		blocks := addBlock(nil, funes.BlockThinking, string(d.ReasoningText), "")
		blocks = addBlock(blocks, funes.BlockText, rawText(d.Content), "")
		for _, tr := range d.ToolRequests {
			p.toolNames[string(tr.ToolCallID)] = string(tr.Name)
			blocks = append(blocks, toolUseBlock(string(tr.Name), tr.Arguments))
		}
		add(funes.RoleAssistant, blocks)
	case "assistant.reasoning":
		add(funes.RoleAssistant, addBlock(nil, funes.BlockThinking, rawText(d.Content), ""))
	case "tool.execution_start":
		if d.ToolName != "" && p.toolNames[string(d.ToolCallID)] == "" {
			p.toolNames[string(d.ToolCallID)] = string(d.ToolName)
		}
	case "tool.execution_complete":
		out := cpResultText(d.Result)
		if blank(out) {
			out = cpResultText(d.Error)
			if !blank(out) {
				out = "Error: " + out
			}
		}
		if blank(out) {
			out = "(no output)"
		}
		add(funes.RoleTool, addBlock(nil, funes.BlockToolResult, out, p.toolNames[string(d.ToolCallID)]))
	case "subagent.started":
		if ev.AgentID != "" {
			label := string(d.AgentDisplayName)
			if blank(label) {
				label = string(d.AgentName)
			}
			conv.label = strings.TrimSpace(label)
		}
	case "session.title_changed":
		if !blank(string(d.Title)) {
			p.title = strings.TrimSpace(string(d.Title))
		}
	case "session.snapshot_rewind":
		// The person rewound: the events it names (or all after the one it
		// rewound to) are gone, as the CLI shows it.
		p.rewind(conv, d)
	case "session.error":
		add(funes.RoleSystem, addBlock(nil, funes.BlockText, string(d.Message), ""))
	case "abort":
		msg := "(aborted)"
		if !blank(string(d.Reason)) {
			msg = "(aborted: " + strings.TrimSpace(string(d.Reason)) + ")"
		}
		add(funes.RoleSystem, addBlock(nil, funes.BlockText, msg, ""))
	}
	return ""
}

// rewind drops the turns a session.snapshot_rewind removed.
func (p *cpParse) rewind(c *cpConv, d cpData) {
	gone := map[string]bool{}
	for _, id := range d.EventIDs {
		gone[string(id)] = true
	}
	kept := c.turns[:0]
	after := false
	for _, t := range c.turns {
		if len(gone) == 0 && after || gone[t.TurnUUID] {
			continue
		}
		if t.TurnUUID == string(d.UpToEventID) {
			after = true
		}
		kept = append(kept, t)
	}
	c.turns = kept
}

func (p *cpParse) agent(id string) *cpConv {
	c := p.agents[id]
	if c == nil {
		c = &cpConv{}
		p.agents[id] = c
		p.order = append(p.order, id)
	}
	return c
}

// sessions builds the session's conversation and its sub-agents'.
func (p *cpParse) sessions(name string, ws cpWorkspace) []*funes.Session {
	id := p.sessionID
	if id == "" {
		id = strings.TrimSpace(ws.ID)
	}
	if id == "" && filepath.Base(name) == "events.jsonl" {
		id = filepath.Base(filepath.Dir(name))
	}
	if blank(id) {
		return nil
	}
	cwd := p.cwd
	if cwd == "" {
		cwd = strings.TrimSpace(ws.Cwd)
	}
	branch, repo := p.branch, p.repo
	if branch == "" {
		branch = strings.TrimSpace(ws.Branch)
	}
	if repo == "" {
		repo = strings.TrimSpace(ws.Repository)
	}
	root := p.gitRoot
	if root == "" {
		root = strings.TrimSpace(ws.GitRoot)
	}
	if root == "" {
		root = cwd
	}
	project := projectFor(root, repo)
	if repo == "" {
		project = repoProject(root, branch)
	}
	build := func(sid string, c *cpConv) *funes.Session {
		if len(c.turns) == 0 {
			return nil
		}
		s := &funes.Session{ID: sid, Harness: funes.HarnessCopilotCLI, Workdir: cwd, Project: project, Turns: c.turns}
		dedupeTurnIDs(s)
		number(s)
		s.Title = titleFrom(s.Turns)
		return s
	}
	var out []*funes.Session
	if s := build(id, &p.main); s != nil {
		switch {
		case ws.UserNamed && !blank(ws.Name):
			s.Title = firstWords(ws.Name)
		case p.title != "":
			s.Title = firstWords(p.title)
		case !blank(ws.Summary):
			s.Title = firstWords(ws.Summary)
		}
		out = append(out, s)
	}
	for _, aid := range p.order {
		c := p.agents[aid]
		if s := build(id+"-agent-"+aid, c); s != nil {
			label := "Sub-agent"
			if c.label != "" {
				label += " " + c.label
			}
			s.Title = label + ": " + s.Title
			out = append(out, s)
		}
	}
	return out
}

// cpResultText reads a tool's result ({content, detailedContent}, or a
// string) or error ({message}, or a string).
func cpResultText(raw json.RawMessage) string {
	switch jsonKind(raw) {
	case '"':
		return rawText(raw)
	case '{':
		var r struct {
			Content  json.RawMessage `json:"content"`
			Detailed json.RawMessage `json:"detailedContent"`
			Message  looseString     `json:"message"`
		}
		json.Unmarshal(raw, &r)
		for _, c := range []json.RawMessage{r.Content, r.Detailed} {
			if t := contentText(c); !blank(t) {
				return t
			}
		}
		if !blank(string(r.Message)) {
			return string(r.Message)
		}
		return compactJSON(raw)
	}
	return ""
}

// cpMime guesses a placeholder kind from an attachment's type.
func cpMime(typ string) string {
	if strings.Contains(typ, "image") {
		return "image/"
	}
	return ""
}
