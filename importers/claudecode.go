package importers

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/memory"
)

// Claude Code transcripts: ~/.claude/projects/<munged cwd>/<session>.jsonl,
// one record a line, linked into a tree by uuid/parentUuid. Sub-agents live
// beside the session (agent-<id>.jsonl, 2.0.x) or under
// <session>/subagents/ (2.1.x). See EXPORT-FORMATS.md §4.
//
// Sub-agents: each sub-agent file becomes its own session, with the id
// <parent session id>-agent-<agent id> and a title starting "Sub-agent:",
// tagged with the same project as its parent. Merging them into the parent
// would interleave two conversations that ran side by side; kept apart, a
// recall hit in a sub-agent's work still names the session that spawned it.
// "Warmup" sub-agents, which Claude Code starts to fill a cache before the
// person types anything, are not imported.

type ccRecord struct {
	Type             looseString `json:"type"`
	UUID             looseString `json:"uuid"`
	ParentUUID       looseString `json:"parentUuid"`
	LogicalParent    looseString `json:"logicalParentUuid"`
	IsSidechain      looseBool   `json:"isSidechain"`
	IsMeta           looseBool   `json:"isMeta"`
	IsCompactSummary looseBool   `json:"isCompactSummary"`
	TranscriptOnly   looseBool   `json:"isVisibleInTranscriptOnly"`
	SessionID        looseString `json:"sessionId"`
	AgentID          looseString `json:"agentId"`
	Cwd              looseString `json:"cwd"`
	Timestamp        flexTime    `json:"timestamp"`
	RequestID        looseString `json:"requestId"`
	Message          *struct {
		ID      looseString     `json:"id"`
		Role    looseString     `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Summary     looseString `json:"summary"`
	LeafUUID    looseString `json:"leafUuid"`
	CustomTitle looseString `json:"customTitle"`
}

type ccBlock struct {
	Type      looseString     `json:"type"`
	Text      looseString     `json:"text"`
	Thinking  looseString     `json:"thinking"`
	ID        looseString     `json:"id"`
	Name      looseString     `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID looseString     `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	Title     looseString     `json:"title"`
}

// ccNode is one record with a uuid: a message, or a structural record
// (system, progress) that the parent chain runs through.
type ccNode struct {
	idx       int
	uuid      string
	parent    string
	logical   string
	sidechain bool
	conv      bool // a user or assistant message
	skip      bool // meta, compact summary: in the chain, not a turn
	role      string
	msgID     string
	reqID     string
	ts        time.Time
	blocks    []memory.Block
	refs      []string // per block: a tool_use's id, a tool_result's tool_use_id
	firstText string
}

type ccParse struct {
	nodes     []*ccNode
	byUUID    map[string]*ccNode
	allUUIDs  map[string]bool
	summaries []struct{ summary, leaf string }
	title     string
	cwd       string
	sessionID string // the latest record's sessionId
	agentID   string
}

// ParseClaudeCode reads one Claude Code transcript (a session or a
// sub-agent file).
func ParseClaudeCode(ctx context.Context, r io.Reader, name string, h Handler) error {
	p := &ccParse{byUUID: map[string]*ccNode{}, allUUIDs: map[string]bool{}}
	st, err := readJSONLines(ctx, r, h.Progress, p.line)
	if err != nil {
		return err
	}
	return st.emit(h, p.session(name))
}

func (p *ccParse) line(n int, raw []byte) string {
	var rec ccRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return "not a JSON object"
	}
	switch rec.Type {
	case "summary":
		p.summaries = append(p.summaries, struct{ summary, leaf string }{string(rec.Summary), string(rec.LeafUUID)})
		return ""
	case "custom-title":
		if !blank(string(rec.CustomTitle)) {
			p.title = strings.TrimSpace(string(rec.CustomTitle))
		}
		return ""
	}
	uuid := string(rec.UUID)
	if uuid == "" {
		return "" // snapshots, queue operations: no part of the conversation
	}
	p.allUUIDs[uuid] = true
	if p.byUUID[uuid] != nil {
		return "" // the same record again, as after a resume
	}
	if rec.SessionID != "" {
		p.sessionID = string(rec.SessionID)
	}
	if rec.AgentID != "" && p.agentID == "" {
		p.agentID = string(rec.AgentID)
	}
	if p.cwd == "" && !blank(string(rec.Cwd)) {
		p.cwd = strings.TrimSpace(string(rec.Cwd))
	}
	nd := &ccNode{idx: len(p.nodes), uuid: uuid, parent: string(rec.ParentUUID), logical: string(rec.LogicalParent),
		sidechain: bool(rec.IsSidechain), ts: rec.Timestamp.Time, reqID: string(rec.RequestID)}
	if (rec.Type == "user" || rec.Type == "assistant") && rec.Message != nil {
		nd.conv = true
		nd.skip = bool(rec.IsMeta) || bool(rec.IsCompactSummary) || bool(rec.TranscriptOnly)
		nd.msgID = string(rec.Message.ID)
		nd.role = memory.RoleUser
		if rec.Type == "assistant" {
			nd.role = memory.RoleAssistant
		}
		p.blocks(nd, rec.Message.Content)
	}
	p.nodes = append(p.nodes, nd)
	p.byUUID[uuid] = nd
	return ""
}

// blocks maps message content: a string, or a list of blocks.
func (p *ccParse) blocks(nd *ccNode, raw json.RawMessage) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		nd.blocks = addBlock(nil, memory.BlockText, stripSystemReminders(s), "")
		nd.firstText = s
		return
	}
	var list []ccBlock
	if json.Unmarshal(raw, &list) != nil {
		var one ccBlock // tolerate a single block object
		if json.Unmarshal(raw, &one) != nil {
			return
		}
		list = []ccBlock{one}
	}
	for _, b := range list {
		n := len(nd.blocks)
		ref := ""
		switch b.Type {
		case "text":
			if nd.firstText == "" {
				nd.firstText = string(b.Text)
			}
			nd.blocks = addBlock(nd.blocks, memory.BlockText, stripSystemReminders(string(b.Text)), "")
		case "thinking":
			nd.blocks = addBlock(nd.blocks, memory.BlockThinking, string(b.Thinking), "")
		case "tool_use", "server_tool_use":
			before := len(nd.blocks)
			nd.blocks = addBlock(nd.blocks, memory.BlockToolUse, compactJSON(b.Input), string(b.Name))
			if len(nd.blocks) == before { // a call without input still names the tool
				nd.blocks = append(nd.blocks, memory.Block{Type: memory.BlockToolUse, Text: "{}", ToolName: string(b.Name)})
			}
			ref = string(b.ID)
		case "tool_result":
			nd.blocks = addBlock(nd.blocks, memory.BlockToolResult, stripSystemReminders(contentText(b.Content)), "")
			ref = string(b.ToolUseID)
		case "image":
			nd.blocks = addBlock(nd.blocks, memory.BlockText, "[image]", "")
		case "document":
			ph := "[document]"
			if !blank(string(b.Title)) {
				ph = "[document: " + strings.TrimSpace(string(b.Title)) + "]"
			}
			nd.blocks = addBlock(nd.blocks, memory.BlockText, ph, "")
		case "redacted_thinking":
		default:
			if strings.HasSuffix(string(b.Type), "_tool_result") {
				nd.blocks = addBlock(nd.blocks, memory.BlockToolResult, contentText(b.Content), string(b.Type))
			} else {
				nd.blocks = addBlock(nd.blocks, memory.BlockText, stripSystemReminders(string(b.Text)), "")
			}
		}
		for range len(nd.blocks) - n {
			nd.refs = append(nd.refs, ref)
		}
	}
	// A user record of tool results only is the tools speaking, not the person.
	if nd.role == memory.RoleUser && len(nd.blocks) > 0 {
		allResults := true
		for _, b := range nd.blocks {
			if b.Type != memory.BlockToolResult {
				allResults = false
			}
		}
		if allResults {
			nd.role = memory.RoleTool
		}
	}
}

// chain picks the kept branch: from the latest leaf (so /rewind follows the
// newest branch) up to the root, crossing compaction boundaries through
// logicalParentUuid, reversed.
func (p *ccParse) chain() []*ccNode {
	agent := true
	for _, nd := range p.nodes {
		if nd.conv && !nd.sidechain {
			agent = false
			break
		}
	}
	use := func(nd *ccNode) bool { return agent || !nd.sidechain }
	parentOf := func(nd *ccNode) (*ccNode, bool) {
		if nd.parent != "" {
			pn := p.byUUID[nd.parent]
			return pn, pn == nil
		}
		if nd.logical != "" {
			pn := p.byUUID[nd.logical]
			return pn, pn == nil
		}
		return nil, false
	}
	// Mark every node with a message below it; the leaves are the messages
	// that have none.
	below := make(map[*ccNode]bool, len(p.nodes))
	for _, nd := range p.nodes {
		if !nd.conv || !use(nd) {
			continue
		}
		seen := map[*ccNode]bool{nd: true}
		for a, _ := parentOf(nd); a != nil && !below[a] && !seen[a]; a, _ = parentOf(a) {
			seen[a] = true
			below[a] = true
		}
	}
	var leaf *ccNode
	for _, nd := range p.nodes {
		if nd.conv && use(nd) && !below[nd] && (leaf == nil || !nd.ts.Before(leaf.ts)) {
			leaf = nd
		}
	}
	var out []*ccNode
	visited := map[*ccNode]bool{}
	for nd := leaf; nd != nil && !visited[nd]; {
		visited[nd] = true
		if nd.conv && use(nd) {
			out = append(out, nd)
		}
		next, broken := parentOf(nd)
		if broken {
			// A parent lost to a corrupt line: carry on with the record just
			// before this one, rather than drop the whole start of the session.
			next = nil
			for i := nd.idx - 1; i >= 0; i-- {
				if c := p.nodes[i]; use(c) && !visited[c] {
					next = c
					break
				}
			}
		}
		nd = next
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

var agentFile = regexp.MustCompile(`^agent-([A-Za-z0-9_-]+)$`)

func (p *ccParse) session(name string) *memory.Session {
	chain := p.chain()
	if len(chain) == 0 {
		return nil
	}
	agent := chain[0].sidechain
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	s := &memory.Session{Harness: memory.HarnessClaudeCode, Workdir: p.cwd, Project: projectFor(p.cwd, "")}
	if agent {
		if first := firstConv(chain); first != nil && strings.TrimSpace(first.firstText) == "Warmup" {
			return nil
		}
		id := p.agentID
		if m := agentFile.FindStringSubmatch(stem); id == "" && m != nil {
			id = m[1]
		}
		if id == "" {
			id = stem
		}
		s.ID = "agent-" + id
		if p.sessionID != "" {
			s.ID = p.sessionID + "-agent-" + id
		}
	} else {
		// Claude Code names the file by session id; after a resume the copied
		// records may still carry the old one, so the file name wins.
		s.ID = strings.ToLower(uuidAtEnd.FindString(stem))
		if s.ID == "" {
			s.ID = p.sessionID
		}
		if s.ID == "" {
			s.ID = stem
		}
	}
	if blank(s.ID) {
		return nil
	}
	byMsg := map[string]int{} // message.id → turn index, to merge split responses
	toolNames := map[string]string{}
	last := time.Time{}
	for _, nd := range chain {
		if nd.skip || len(nd.blocks) == 0 {
			continue
		}
		blocks := append([]memory.Block(nil), nd.blocks...)
		for i := range blocks {
			ref := ""
			if i < len(nd.refs) {
				ref = nd.refs[i]
			}
			switch {
			case ref == "":
			case blocks[i].Type == memory.BlockToolUse:
				toolNames[ref] = blocks[i].ToolName
			case blocks[i].Type == memory.BlockToolResult && blocks[i].ToolName == "":
				blocks[i].ToolName = toolNames[ref]
			}
		}
		ts := nd.ts
		if ts.IsZero() {
			ts = last
		}
		last = ts
		if nd.role == memory.RoleAssistant && nd.msgID != "" {
			if ti, ok := byMsg[nd.msgID]; ok {
				s.Turns[ti].Blocks = mergeBlocks(s.Turns[ti].Blocks, blocks)
				continue
			}
			byMsg[nd.msgID] = len(s.Turns)
		}
		s.Turns = append(s.Turns, memory.Turn{TurnUUID: nd.uuid, TS: ts, Role: nd.role, Blocks: blocks})
	}
	if len(s.Turns) == 0 {
		return nil
	}
	dedupeTurnIDs(s)
	number(s)
	s.Title = p.title
	if s.Title == "" {
		// Most summary lines belong to other sessions; trust one only when
		// its leaf is in this file.
		for i := len(p.summaries) - 1; i >= 0; i-- {
			if sm := p.summaries[i]; p.allUUIDs[sm.leaf] && !blank(sm.summary) {
				s.Title = strings.TrimSpace(sm.summary)
				break
			}
		}
	}
	if s.Title == "" {
		s.Title = titleFrom(s.Turns)
	}
	if agent {
		s.Title = "Sub-agent: " + s.Title
	}
	return s
}

func firstConv(chain []*ccNode) *ccNode {
	for _, nd := range chain {
		if nd.conv && nd.role == memory.RoleUser {
			return nd
		}
	}
	return nil
}

// mergeBlocks appends the blocks of another line of the same API response,
// dropping ones already there (a resumed session can repeat them).
func mergeBlocks(have, add []memory.Block) []memory.Block {
	for _, b := range add {
		dup := false
		for _, h := range have {
			if h == b {
				dup = true
				break
			}
		}
		if !dup {
			have = append(have, b)
		}
	}
	return have
}
