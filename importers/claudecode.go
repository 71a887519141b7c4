package importers

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/plumbing"
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
	Subtype          looseString `json:"subtype"`
	Version          looseString `json:"version"`
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
	GitBranch        looseString `json:"gitBranch"`
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
	sessionID string // the record's own sessionId: another session's, if copied by a resume
	agentID   string
	parent    string
	logical   string
	sidechain bool
	conv      bool // a user or assistant message
	skip      bool // meta, compact summary: in the chain, not a turn
	summary   bool // a compaction summary (isCompactSummary)
	compact   bool // a summary kept as its own conversation (before 2.1)
	boundary  bool // a compact_boundary system record
	role      string
	msgID     string
	reqID     string
	ts        time.Time
	blocks    []funes.Block
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
	branch    string
	sessionID string // the latest record's sessionId
	agentID   string
	// rewrites names stored conversations that hold copies of this
	// session's own turns (a resume imported before its original), with
	// the turns to take out of them.
	rewrites map[string]map[string]bool
}

// ParseClaudeCode reads one Claude Code transcript (a session or a
// sub-agent file).
func ParseClaudeCode(ctx context.Context, r io.Reader, name string, h Handler) error {
	p := &ccParse{byUUID: map[string]*ccNode{}, allUUIDs: map[string]bool{}, rewrites: map[string]map[string]bool{}}
	st, err := readJSONLines(ctx, r, h.Progress, p.line)
	if err != nil {
		return err
	}
	if h.Pending != nil && p.copiesFrom(p.mainID(name), h.Pending) {
		return errDeferred
	}
	ss := p.sessions(ctx, name, h.Lookup)
	if len(ss) == 0 {
		return st.emit(h, nil)
	}
	st.report(h)
	for _, s := range ss {
		if err := h.Session(s); err != nil {
			return err
		}
	}
	return nil
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
	if p.branch == "" && !blank(string(rec.GitBranch)) {
		p.branch = strings.TrimSpace(string(rec.GitBranch))
	}
	nd := &ccNode{idx: len(p.nodes), uuid: uuid, parent: string(rec.ParentUUID), logical: string(rec.LogicalParent),
		sidechain: bool(rec.IsSidechain), ts: rec.Timestamp.Time, reqID: string(rec.RequestID),
		sessionID: string(rec.SessionID), agentID: string(rec.AgentID),
		boundary: rec.Type == "system" && rec.Subtype == "compact_boundary"}
	if (rec.Type == "user" || rec.Type == "assistant") && rec.Message != nil {
		nd.conv = true
		nd.skip = bool(rec.IsMeta) || bool(rec.IsCompactSummary) || bool(rec.TranscriptOnly)
		nd.summary = bool(rec.IsCompactSummary)
		nd.compact = nd.summary && !writesCompactionAgent(string(rec.Version))
		nd.msgID = string(rec.Message.ID)
		nd.role = funes.RoleUser
		if rec.Type == "assistant" {
			nd.role = funes.RoleAssistant
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
		nd.blocks = addBlock(nil, funes.BlockText, s, "")
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
			nd.blocks = addBlock(nd.blocks, funes.BlockText, string(b.Text), "")
		case "thinking":
			nd.blocks = addBlock(nd.blocks, funes.BlockThinking, string(b.Thinking), "")
		case "tool_use", "server_tool_use":
			before := len(nd.blocks)
			nd.blocks = addBlock(nd.blocks, funes.BlockToolUse, compactJSON(b.Input), string(b.Name))
			if len(nd.blocks) == before { // a call without input still names the tool
				nd.blocks = append(nd.blocks, funes.Block{Type: funes.BlockToolUse, Text: "{}", ToolName: string(b.Name)})
			}
			ref = string(b.ID)
		case "tool_result":
			nd.blocks = addBlock(nd.blocks, funes.BlockToolResult, contentText(b.Content), "")
			ref = string(b.ToolUseID)
		case "image":
			nd.blocks = addBlock(nd.blocks, funes.BlockText, "[image]", "")
		case "document":
			ph := "[document]"
			if !blank(string(b.Title)) {
				ph = "[document: " + strings.TrimSpace(string(b.Title)) + "]"
			}
			nd.blocks = addBlock(nd.blocks, funes.BlockText, ph, "")
		case "redacted_thinking":
		default:
			if strings.HasSuffix(string(b.Type), "_tool_result") {
				nd.blocks = addBlock(nd.blocks, funes.BlockToolResult, contentText(b.Content), string(b.Type))
			} else {
				nd.blocks = addBlock(nd.blocks, funes.BlockText, string(b.Text), "")
			}
		}
		for range len(nd.blocks) - n {
			nd.refs = append(nd.refs, ref)
		}
	}
	// A user record of tool results only is the tools speaking, not the
	// person; harness text beside them (a reminder) does not make it hers.
	if nd.role == funes.RoleUser && len(nd.blocks) > 0 {
		allResults, results := true, 0
		for _, b := range nd.blocks {
			switch {
			case b.Type == funes.BlockToolResult:
				results++
			case b.Type == funes.BlockText && blank(plumbing.SaidText(nd.role, b.Type, b.ToolName, b.Text)):
			default:
				allResults = false
			}
		}
		allResults = allResults && results > 0
		if allResults {
			nd.role = funes.RoleTool
		}
	}
}

// The records of a transcript form a tree by parentUuid. Two things make
// it branch, and only one of them is a branch the person left behind:
//
//   - A parallel tool call. One assistant response with N tool_use blocks is
//     written as N chained records sharing message.id; each tool_result
//     record is a child of its own tool_use record, and the conversation
//     continues from one of the results. The other results, and the
//     tool_use records after the one the conversation went on from, are
//     siblings off the path, yet every one of them happened.
//   - A rewind or an edited prompt. The new prompt is a sibling of the old
//     one; the old branch starts with a person's message (or, after a retry,
//     an assistant record of another response) and was abandoned.
//
// live therefore walks back from the newest leaf (so /rewind follows the
// newest branch), crossing compaction boundaries through
// logicalParentUuid, and then adds back every sibling subtree that belongs
// to a response on that path: records of the same message.id, tool results
// answering a tool_use kept, and structural records (progress, system)
// under them. A subtree that starts with a person's message or another
// response is the abandoned kind and stays out. The kept records come back
// in file order, which is the order they were written.
func (p *ccParse) live(member func(*ccNode) bool) []*ccNode {
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
		if !nd.conv || !member(nd) {
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
		if nd.conv && member(nd) && !below[nd] && (leaf == nil || !nd.ts.Before(leaf.ts)) {
			leaf = nd
		}
	}
	kept := map[*ccNode]bool{}
	var path []*ccNode
	for nd := leaf; nd != nil && !kept[nd]; {
		kept[nd] = true
		path = append(path, nd)
		next, broken := parentOf(nd)
		// A compaction in 1.0.x may start a new root with no link back
		// (no logicalParentUuid): what came before it in the file is still
		// this conversation.
		rootedCompaction := next == nil && !broken && (nd.boundary || nd.summary)
		if broken || rootedCompaction {
			// A parent lost to a corrupt line: carry on with the record just
			// before this one, rather than drop the whole start of the session.
			next = nil
			for i := nd.idx - 1; i >= 0; i-- {
				if c := p.nodes[i]; member(c) && !kept[c] {
					next = c
					break
				}
			}
		}
		nd = next
	}
	// Add back the parallel siblings.
	children := map[*ccNode][]*ccNode{}
	for _, nd := range p.nodes {
		if nd.parent == "" || !member(nd) {
			continue
		}
		if pn := p.byUUID[nd.parent]; pn != nil {
			children[pn] = append(children[pn], nd)
		}
	}
	calls := map[string]bool{} // tool_use ids of kept records
	for _, nd := range path {
		nd.addCalls(calls)
	}
	// response is the message.id of the nearest message at or above nd.
	response := func(nd *ccNode) string {
		for a, n := nd, 0; a != nil && n < 64; a, _ = parentOf(a) {
			if a.conv {
				return a.msgID
			}
			n++
		}
		return ""
	}
	queue := append([]*ccNode(nil), path...)
	for len(queue) > 0 {
		nd := queue[0]
		queue = queue[1:]
		for _, c := range children[nd] {
			if kept[c] || !c.sameCall(response(nd), calls) {
				continue
			}
			kept[c] = true
			c.addCalls(calls)
			queue = append(queue, c)
		}
	}
	var out []*ccNode
	for _, nd := range p.nodes {
		if kept[nd] && nd.conv && member(nd) {
			out = append(out, nd)
		}
	}
	return out
}

// addCalls records the tool_use ids of nd's blocks.
func (nd *ccNode) addCalls(calls map[string]bool) {
	for i, b := range nd.blocks {
		if b.Type == funes.BlockToolUse && i < len(nd.refs) && nd.refs[i] != "" {
			calls[nd.refs[i]] = true
		}
	}
}

// sameCall reports whether an off-path child belongs to the response its
// parent is part of: a structural record, a further record of the same
// response (resp, its message.id), or tool results answering calls kept.
func (nd *ccNode) sameCall(resp string, calls map[string]bool) bool {
	switch {
	case !nd.conv:
		return true
	case nd.role == funes.RoleAssistant:
		return resp != "" && nd.msgID == resp
	case nd.role == funes.RoleTool:
		for i, b := range nd.blocks {
			if b.Type == funes.BlockToolResult && i < len(nd.refs) && calls[nd.refs[i]] {
				return true
			}
		}
	}
	return false
}

var agentFile = regexp.MustCompile(`^agent-([A-Za-z0-9_-]+)$`)

// compactPrompt starts the instruction Claude Code gives the agent that
// writes a compaction summary.
const compactPrompt = "Your task is to create a detailed summary of the conversation so far"

// sessions builds the file's conversations: the session itself, then one
// per sub-agent whose records are in it. A 2.x sub-agent file holds only
// sidechain records and becomes one sub-agent conversation; a 1.0.x session
// file holds its sub-agents inline, as isSidechain records each rooted at
// the Task prompt, and each root becomes a sub-agent conversation linked to
// the session the way 2.x files are (id <session>-agent-<id>).
func (p *ccParse) sessions(ctx context.Context, name string, look Lookup) []*funes.Session {
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	hasMain := false
	for _, nd := range p.nodes {
		if nd.conv && !nd.sidechain {
			hasMain = true
			break
		}
	}
	if !hasMain {
		id := p.agentID
		if m := agentFile.FindStringSubmatch(stem); id == "" && m != nil {
			id = m[1]
		}
		if id == "" {
			id = stem
		}
		s := p.agentSession(p.live(func(*ccNode) bool { return true }), id, p.parentProject(ctx, look))
		if s == nil {
			return nil
		}
		return []*funes.Session{s}
	}
	var out []*funes.Session
	mainID := p.mainID(name)
	project := repoProject(p.cwd, p.branch)
	mainChain := p.live(func(nd *ccNode) bool { return !nd.sidechain })
	if s := p.build(ctx, look, mainChain, mainID, project); s != nil {
		out = append(out, s)
	}
	for _, nd := range mainChain {
		if nd.compact {
			if s := p.compactionSession(nd, mainID, project); s != nil {
				out = append(out, s)
			}
		}
	}
	// Inline sub-agents, grouped by the first sidechain record above each.
	// Records that carry an agentId are 2.x ones, whose sub-agent has a file
	// of its own that is imported as that conversation; taking them here too
	// would give one conversation two versions.
	rootOf := map[*ccNode]*ccNode{}
	var roots []*ccNode
	for _, nd := range p.nodes {
		if !nd.sidechain || nd.agentID != "" {
			continue
		}
		r := nd
		for n := 0; n < len(p.nodes); n++ {
			pn := p.byUUID[r.parent]
			if pn == nil || !pn.sidechain {
				break
			}
			if rr, ok := rootOf[pn]; ok {
				r = rr
				break
			}
			r = pn
		}
		if _, ok := rootOf[r]; !ok && r == nd {
			roots = append(roots, r)
		}
		rootOf[nd] = r
	}
	for _, root := range roots {
		chain := p.live(func(nd *ccNode) bool { return nd.sidechain && rootOf[nd] == root })
		if s := p.agentSession(chain, root.uuid, project); s != nil {
			s.ID = mainID + "-agent-" + root.uuid
			out = append(out, s)
		}
	}
	return append(out, p.rewritten(ctx, look)...)
}

// mainID is the session's id. Claude Code names the file by it; after a
// resume the copied records still carry the old one, so the file name wins.
func (p *ccParse) mainID(name string) string {
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	if id := strings.ToLower(uuidAtEnd.FindString(stem)); id != "" {
		return id
	}
	if p.sessionID != "" {
		return p.sessionID
	}
	return stem
}

// copiesFrom reports whether the session id holds records a resume copied
// from a session that pending says is still to be imported.
func (p *ccParse) copiesFrom(id string, pending func(string) bool) bool {
	asked := map[string]bool{}
	for _, nd := range p.nodes {
		if !nd.conv || nd.sidechain || nd.sessionID == "" || nd.sessionID == id || asked[nd.sessionID] {
			continue
		}
		asked[nd.sessionID] = true
		if pending(nd.sessionID) {
			return true
		}
	}
	return false
}

// rewritten is each stored conversation that holds copies of this
// session's own turns, those turns taken out: a resumed session imported
// before its original keeps them only until the original is stored. It is
// what importing the resumed file now would make of it: the same turns,
// and a title taken from its first turns again unless it had another.
// A conversation that would be left empty is left as it is.
func (p *ccParse) rewritten(ctx context.Context, look Lookup) []*funes.Session {
	if look == nil || len(p.rewrites) == 0 {
		return nil
	}
	owners := make([]string, 0, len(p.rewrites))
	for o := range p.rewrites {
		owners = append(owners, o)
	}
	slices.Sort(owners)
	var out []*funes.Session
	for _, o := range owners {
		s, ok, err := look.StoredSession(ctx, funes.HarnessClaudeCode, o)
		if err != nil || !ok {
			continue
		}
		drop := p.rewrites[o]
		derived := s.Title == ccTitle(s.Turns)
		kept := s.Turns[:0:0]
		for _, t := range s.Turns {
			if !drop[t.TurnUUID] {
				kept = append(kept, t)
			}
		}
		if len(kept) == 0 || len(kept) == len(s.Turns) {
			continue
		}
		s.Turns = kept
		number(s)
		if derived {
			s.Title = ccTitle(s.Turns)
		}
		out = append(out, s)
	}
	return out
}

// parentProject is the project of the session that spawned this file's
// sub-agent, when the memory holds it: a sub-agent that ran in a sub-folder
// belongs to its parent's repository. Else the repository its records name.
func (p *ccParse) parentProject(ctx context.Context, look Lookup) string {
	if look != nil && p.sessionID != "" {
		if proj, ok, err := look.Project(ctx, funes.HarnessClaudeCode, p.sessionID); err == nil && ok {
			return proj
		}
	}
	return repoProject(p.cwd, p.branch)
}

// agentSession builds a sub-agent's conversation. "Warmup" agents, which
// Claude Code starts to fill a cache before the person types anything, are
// not imported; a compaction agent is labelled as one.
func (p *ccParse) agentSession(chain []*ccNode, id, project string) *funes.Session {
	first := firstConv(chain)
	if first != nil && strings.TrimSpace(first.firstText) == "Warmup" {
		return nil
	}
	sid := "agent-" + id
	if p.sessionID != "" {
		sid = p.sessionID + "-agent-" + id
	}
	compaction := strings.HasPrefix(id, "acompact") ||
		(first != nil && strings.HasPrefix(strings.TrimSpace(first.firstText), compactPrompt))
	if compaction && first != nil {
		// The instruction is Claude Code's, not the person's.
		first.role = funes.RoleSystem
	}
	s := p.build(context.Background(), nil, chain, sid, project)
	if s == nil {
		return nil
	}
	if compaction {
		s.Title = "Compaction summary"
		for _, t := range s.Turns {
			if t.Role != funes.RoleAssistant {
				continue
			}
			if txt := compactionText(t); txt != "" {
				s.Title += ": " + firstWords(txt)
				break
			}
		}
		return s
	}
	s.Title = "Sub-agent: " + s.Title
	return s
}

// compactionSession keeps a compaction summary that Claude Code before 2.1
// wrote into the session itself (a user record with isCompactSummary) as a
// conversation of its own, <session>-compact-<uuid>, labelled the way a 2.1
// compaction agent is: titled "Compaction summary", the summary an
// assistant turn (the model wrote it; the person did not). From 2.1 on the
// compaction agent's own transcript holds the same summary, so the record
// in the session is not kept twice.
func (p *ccParse) compactionSession(nd *ccNode, mainID, project string) *funes.Session {
	c := *nd
	c.skip, c.role = false, funes.RoleAssistant
	s := p.build(context.Background(), nil, []*ccNode{&c}, mainID+"-compact-"+nd.uuid, project)
	if s == nil {
		return nil
	}
	s.Title = "Compaction summary"
	if txt := compactionText(s.Turns[0]); txt != "" {
		s.Title += ": " + firstWords(summaryBody(txt))
	}
	return s
}

// writesCompactionAgent reports whether a Claude Code version runs each
// compaction as an agent with a transcript of its own (2.1 and later).
func writesCompactionAgent(version string) bool {
	major, rest, _ := strings.Cut(strings.TrimSpace(version), ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return false // unknown: keep the summary rather than risk losing it
	}
	return ma > 2 || (ma == 2 && mi >= 1)
}

// summaryBody drops the sentence Claude Code puts before a compaction
// summary ("This session is being continued from a previous conversation…")
// and the analysis before "Summary:", for a title that says something.
func summaryBody(s string) string {
	if _, after, ok := strings.Cut(s, "\nSummary:"); ok && strings.TrimSpace(after) != "" {
		return strings.TrimSpace(after)
	}
	if strings.HasPrefix(s, "This session is being continued") {
		if _, after, ok := strings.Cut(s, "\n"); ok && strings.TrimSpace(after) != "" {
			return strings.TrimSpace(after)
		}
	}
	return s
}

var compactTags = regexp.MustCompile(`(?s)<analysis>.*?</analysis>|</?summary>`)

// compactionText is a compaction summary's prose without its tags.
func compactionText(t funes.Turn) string {
	for _, b := range t.Blocks {
		if b.Type == funes.BlockText {
			if s := strings.TrimSpace(compactTags.ReplaceAllString(b.Text, "")); s != "" {
				return s
			}
		}
	}
	return ""
}

// build turns a chain of records into a conversation. For a session (look
// set), records copied from another session by a resume are left out when
// the memory already holds them there: a turn is kept once, where it first
// happened.
func (p *ccParse) build(ctx context.Context, look Lookup, chain []*ccNode, id, project string) *funes.Session {
	if len(chain) == 0 || blank(id) {
		return nil
	}
	copied := map[string]bool{}
	if look != nil {
		p.placeTurns(ctx, look, chain, id, copied)
	}
	s := &funes.Session{ID: id, Harness: funes.HarnessClaudeCode, Workdir: p.cwd, Project: project}
	byMsg := map[string]int{} // message.id → turn index, to merge split responses
	toolNames := map[string]string{}
	last := time.Time{}
	for _, nd := range chain {
		if nd.skip || len(nd.blocks) == 0 || copied[nd.uuid] {
			continue
		}
		blocks := append([]funes.Block(nil), nd.blocks...)
		for i := range blocks {
			ref := ""
			if i < len(nd.refs) {
				ref = nd.refs[i]
			}
			switch {
			case ref == "":
			case blocks[i].Type == funes.BlockToolUse:
				toolNames[ref] = blocks[i].ToolName
			case blocks[i].Type == funes.BlockToolResult && blocks[i].ToolName == "":
				blocks[i].ToolName = toolNames[ref]
			}
		}
		ts := nd.ts
		if ts.IsZero() {
			ts = last
		}
		last = ts
		if nd.role == funes.RoleAssistant && nd.msgID != "" {
			if ti, ok := byMsg[nd.msgID]; ok {
				s.Turns[ti].Blocks = mergeBlocks(s.Turns[ti].Blocks, blocks)
				continue
			}
			byMsg[nd.msgID] = len(s.Turns)
		}
		s.Turns = append(s.Turns, funes.Turn{TurnUUID: nd.uuid, TS: ts, Role: nd.role, Blocks: blocks})
	}
	if len(s.Turns) == 0 {
		return nil
	}
	dedupeTurnIDs(s)
	number(s)
	s.Title = p.title
	if s.Title == "" && !chain[0].sidechain {
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
		s.Title = ccTitle(s.Turns)
	}
	return s
}

// placeTurns keeps each turn once, in the session where it first happened,
// whatever order the files come in. A record whose sessionId is another
// session's was copied by a resume: if the memory holds it already (in its
// original, or in the resumed session that was imported first), it is
// marked copied and left out here. A record of this session's own that the
// memory holds elsewhere was copied into a session imported before this
// one: that conversation is noted in p.rewrites, to lose the copy.
// Conversations made from this same file (<id>-agent-…, <id>-compact-…)
// are not copies.
func (p *ccParse) placeTurns(ctx context.Context, look Lookup, chain []*ccNode, id string, copied map[string]bool) {
	ids := make([]string, 0, len(chain))
	for _, nd := range chain {
		if !nd.skip && len(nd.blocks) > 0 {
			ids = append(ids, nd.uuid)
		}
	}
	if len(ids) == 0 {
		return
	}
	owners, err := look.StoredTurns(ctx, funes.HarnessClaudeCode, id, ids)
	if err != nil {
		return // keep everything: a turn twice is better than none
	}
	for _, nd := range chain {
		for _, o := range owners[nd.uuid] {
			if strings.HasPrefix(o, id+"-") {
				continue
			}
			if nd.sessionID != "" && nd.sessionID != id {
				copied[nd.uuid] = true
				continue
			}
			if p.rewrites[o] == nil {
				p.rewrites[o] = map[string]bool{}
			}
			p.rewrites[o][nd.uuid] = true
		}
	}
}

var (
	commandName = regexp.MustCompile(`<command-name>\s*(.*?)\s*</command-name>`)
	commandArgs = regexp.MustCompile(`(?s)<command-args>\s*(.*?)\s*</command-args>`)
)

// ccTitle titles a session by its first words; one that starts with a slash
// command is titled by the command and its arguments ("/review 12"), not by
// the <command-message> markup Claude Code records it as.
func ccTitle(turns []funes.Turn) string {
	for _, t := range turns {
		if t.Role != funes.RoleUser {
			continue
		}
		for _, b := range t.Blocks {
			if b.Type != funes.BlockText {
				continue
			}
			if m := commandName.FindStringSubmatch(b.Text); m != nil && m[1] != "" {
				title := m[1]
				if a := commandArgs.FindStringSubmatch(b.Text); a != nil {
					title = joinNonBlank(" ", title, a[1])
				}
				return firstWords(title)
			}
			break
		}
		break
	}
	return titleFrom(turns)
}

func firstConv(chain []*ccNode) *ccNode {
	for _, nd := range chain {
		if nd.conv && nd.role == funes.RoleUser {
			return nd
		}
	}
	return nil
}

// mergeBlocks appends the blocks of another line of the same API response,
// dropping ones already there (a resumed session can repeat them).
func mergeBlocks(have, add []funes.Block) []funes.Block {
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
