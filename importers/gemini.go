package importers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ireneo-app/ireneo/funes"
)

// Gemini CLI sessions: ~/.gemini/tmp/<project>/chats/ ($GEMINI_CLI_HOME
// moves ~/.gemini). Since about 0.3x each session is a JSONL file,
// session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl, replayed as the CLI itself loads
// it (chatRecordingService): a header {sessionId, projectHash, startTime,
// kind, directories}; message records {id, timestamp, type, content,
// thoughts, toolCalls} where a later record with the same id replaces the
// earlier one in place (a reply gains its toolCalls that way); {"$set":
// {...}} merges metadata and, with messages, replaces them all;
// {"$rewindTo": id} drops that message and every later one (the /rewind
// the person made), or all of them when the id is unknown. Older versions
// wrote one whole JSON document per session, session-*.json, with the same
// messages; resuming one converts it to .jsonl beside it.
//
// Sub-agents write chats/<parent session id>/<own id>.jsonl with kind
// "subagent" and their working directories; the parent's invoke_agent
// call carries the agent's id. Each becomes its own conversation, titled
// "Sub-agent: …", in its parent's project.
//
// The first user message of a 0.4x+ session is a <session_context>
// preamble the CLI writes (plumbing keeps it out of the index); it names
// the workspace, which is how the working directory is known. Tool
// results are recorded twice, in the call's result and as a user message
// of functionResponse parts: each is kept once.

type gemMeta struct {
	SessionID   looseString   `json:"sessionId"`
	ProjectHash looseString   `json:"projectHash"`
	StartTime   flexTime      `json:"startTime"`
	Kind        looseString   `json:"kind"`
	Summary     looseString   `json:"summary"`
	Directories []looseString `json:"directories"`
}

type gemMessage struct {
	ID        looseString     `json:"id"`
	Timestamp flexTime        `json:"timestamp"`
	Type      looseString     `json:"type"`
	Content   json.RawMessage `json:"content"`
	Thoughts  []struct {
		Subject     looseString `json:"subject"`
		Description looseString `json:"description"`
	} `json:"thoughts"`
	ToolCalls []gemToolCall `json:"toolCalls"`
}

type gemToolCall struct {
	ID            looseString     `json:"id"`
	Name          looseString     `json:"name"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
	Status        looseString     `json:"status"`
	Timestamp     flexTime        `json:"timestamp"`
}

// gemPart is one part of a Gemini API content list.
type gemPart struct {
	Text             *looseString    `json:"text"`
	Thought          looseBool       `json:"thought"`
	FunctionCall     *gemFuncCall    `json:"functionCall"`
	FunctionResponse *gemFuncResp    `json:"functionResponse"`
	InlineData       *gemBlob        `json:"inlineData"`
	FileData         *gemBlob        `json:"fileData"`
	ExecutableCode   json.RawMessage `json:"executableCode"`
	CodeResult       json.RawMessage `json:"codeExecutionResult"`
}

type gemFuncCall struct {
	Name looseString     `json:"name"`
	Args json.RawMessage `json:"args"`
}

type gemFuncResp struct {
	ID       looseString     `json:"id"`
	Name     looseString     `json:"name"`
	Response json.RawMessage `json:"response"`
}

type gemBlob struct {
	MimeType looseString `json:"mimeType"`
	FileURI  looseString `json:"fileUri"`
}

// gemParse replays a session's records.
type gemParse struct {
	meta gemMeta
	ids  []string // message ids in order
	msgs map[string]gemMessage
	seen bool // a header or message was read
}

// ParseGeminiCLI reads one Gemini CLI session, JSONL or the older whole
// JSON document.
func ParseGeminiCLI(ctx context.Context, r io.Reader, name string, h Handler) error {
	p := &gemParse{msgs: map[string]gemMessage{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var st lineStats
	if gemWholeDocument(br) {
		cr := &countReader{ctx: ctx, r: &utf8Reader{r: br}, progress: h.Progress, max: maxConversationBytes}
		data, err := io.ReadAll(cr)
		if err != nil {
			return fmt.Errorf("cannot read the session: %w", err)
		}
		if why := p.record(bytes.TrimSpace(data)); why != "" {
			return fmt.Errorf("not a Gemini CLI session: %s", why)
		}
	} else {
		var err error
		st, err = readJSONLines(ctx, br, h.Progress, func(_ int, line []byte) string { return p.record(line) })
		if err != nil {
			return err
		}
	}
	s, err := p.session(ctx, name, h)
	if err != nil {
		return err
	}
	return st.emit(h, s)
}

// gemWholeDocument reports an older session written as one pretty-printed
// JSON document: its first line is not a JSON value by itself.
func gemWholeDocument(br *bufio.Reader) bool {
	head, _ := br.Peek(64 << 10)
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	line, _, _ := bytes.Cut(head, []byte("\n"))
	line = bytes.TrimSpace(line)
	return len(line) > 0 && line[0] == '{' && !json.Valid(line)
}

// record applies one record, as the CLI's own loader does.
func (p *gemParse) record(raw []byte) string {
	var rec struct {
		ID          json.RawMessage `json:"id"`
		Set         json.RawMessage `json:"$set"`
		Rewind      json.RawMessage `json:"$rewindTo"`
		SessionID   json.RawMessage `json:"sessionId"`
		ProjectHash json.RawMessage `json:"projectHash"`
		Messages    json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		return "not a JSON object"
	}
	switch {
	case jsonKind(rec.Rewind) == '"':
		var id string
		json.Unmarshal(rec.Rewind, &id)
		p.rewind(id)
	case jsonKind(rec.ID) == '"':
		var m gemMessage
		if json.Unmarshal(raw, &m) != nil {
			return "message of the wrong shape"
		}
		p.put(m)
	case jsonKind(rec.Set) == '{':
		var set struct {
			Messages json.RawMessage `json:"messages"`
		}
		json.Unmarshal(rec.Set, &set)
		p.mergeMeta(rec.Set)
		if jsonKind(set.Messages) == '[' {
			p.ids, p.msgs = nil, map[string]gemMessage{}
			return p.putAll(set.Messages)
		}
	case jsonKind(rec.SessionID) == '"' && jsonKind(rec.ProjectHash) == '"':
		p.mergeMeta(raw)
		p.seen = true
		if jsonKind(rec.Messages) == '[' {
			return p.putAll(rec.Messages)
		}
	}
	return "" // a record this build does not know carries no conversation
}

func (p *gemParse) mergeMeta(raw json.RawMessage) {
	var m gemMeta
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	if m.SessionID != "" {
		p.meta.SessionID = m.SessionID
	}
	if m.ProjectHash != "" {
		p.meta.ProjectHash = m.ProjectHash
	}
	if !m.StartTime.IsZero() {
		p.meta.StartTime = m.StartTime
	}
	if m.Kind != "" {
		p.meta.Kind = m.Kind
	}
	if !blank(string(m.Summary)) {
		p.meta.Summary = m.Summary
	}
	if len(m.Directories) > 0 {
		p.meta.Directories = m.Directories
	}
}

func (p *gemParse) putAll(list json.RawMessage) string {
	var msgs []json.RawMessage
	if json.Unmarshal(list, &msgs) != nil {
		return "messages of the wrong shape"
	}
	for _, raw := range msgs {
		var m gemMessage
		if json.Unmarshal(raw, &m) == nil && m.ID != "" {
			p.put(m)
		}
	}
	return ""
}

// put sets a message; one already there is replaced where it stands.
func (p *gemParse) put(m gemMessage) {
	p.seen = true
	id := string(m.ID)
	if _, ok := p.msgs[id]; !ok {
		p.ids = append(p.ids, id)
	}
	p.msgs[id] = m
}

// rewind drops the message id and every later one; all of them when the
// id is not there.
func (p *gemParse) rewind(id string) {
	at := 0
	for i, x := range p.ids {
		if x == id {
			at = i
			break
		}
	}
	for _, x := range p.ids[at:] {
		delete(p.msgs, x)
	}
	p.ids = p.ids[:at]
}

// session builds the conversation, or nil when it holds no turn.
func (p *gemParse) session(ctx context.Context, name string, h Handler) (*funes.Session, error) {
	if !p.seen {
		return nil, nil
	}
	s := &funes.Session{ID: strings.TrimSpace(string(p.meta.SessionID)), Harness: funes.HarnessGeminiCLI}
	if s.ID == "" {
		s.ID = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	answered := map[string]bool{} // call ids whose result a call record holds
	last := p.meta.StartTime.Time
	add := func(t funes.Turn) {
		if len(t.Blocks) == 0 {
			return
		}
		if t.TS.IsZero() {
			t.TS = last
		}
		last = t.TS
		s.Turns = append(s.Turns, t)
	}
	for _, id := range p.ids {
		m := p.msgs[id]
		ts := m.Timestamp.Time
		switch m.Type {
		case "user":
			role, blocks := funes.RoleUser, []funes.Block(nil)
			results := 0
			for _, pt := range gemParts(m.Content) {
				if fr := pt.FunctionResponse; fr != nil {
					results++
					if fr.ID != "" && answered[string(fr.ID)] {
						continue // the call's own record holds it already
					}
					blocks = addBlock(blocks, funes.BlockToolResult, gemResponseText(fr.Response), string(fr.Name))
					continue
				}
				blocks = append(blocks, gemPartBlocks(pt)...)
			}
			if results > 0 && results == len(gemParts(m.Content)) {
				role = funes.RoleTool
			}
			add(funes.Turn{TurnUUID: id, TS: ts, Role: role, Blocks: blocks})
		case "gemini":
			var blocks []funes.Block
			for _, th := range m.Thoughts {
				text := string(th.Description)
				if !blank(string(th.Subject)) {
					// As the CLI itself sends a recorded thought back.
					text = "**" + strings.TrimSpace(string(th.Subject)) + "** " + text
				}
				blocks = addBlock(blocks, funes.BlockThinking, text, "")
			}
			for _, pt := range gemParts(m.Content) {
				blocks = append(blocks, gemPartBlocks(pt)...)
			}
			for _, c := range m.ToolCalls {
				blocks = append(blocks, toolUseBlock(string(c.Name), c.Args))
			}
			add(funes.Turn{TurnUUID: id, TS: ts, Role: funes.RoleAssistant, Blocks: blocks})
			for i, c := range m.ToolCalls {
				out, ok := gemCallResult(c)
				if !ok {
					continue
				}
				if c.ID != "" {
					answered[string(c.ID)] = true
				}
				rts := c.Timestamp.Time
				if rts.IsZero() {
					rts = ts
				}
				add(funes.Turn{TurnUUID: fmt.Sprintf("%s-result-%d", id, i), TS: rts, Role: funes.RoleTool,
					Blocks: addBlock(nil, funes.BlockToolResult, out, string(c.Name))})
			}
		default:
			// info, error and warning: what the CLI told the person.
			var blocks []funes.Block
			for _, pt := range gemParts(m.Content) {
				blocks = append(blocks, gemPartBlocks(pt)...)
			}
			add(funes.Turn{TurnUUID: id, TS: ts, Role: funes.RoleSystem, Blocks: blocks})
		}
	}
	if len(s.Turns) == 0 {
		return nil, nil
	}
	dedupeTurnIDs(s)
	number(s)
	tmp, parent := gemProjectDir(h.Path)
	sub := p.meta.Kind == "subagent" || parent != ""
	s.Workdir = p.workdir()
	if s.Workdir == "" && tmp != "" {
		root, err := readSideFile(filepath.Join(tmp, ".project_root"))
		if err != nil {
			return nil, err
		}
		s.Workdir = strings.TrimSpace(root)
	}
	s.Project = repoProject(s.Workdir, "")
	if sub && parent != "" && h.Lookup != nil {
		if proj, ok, err := h.Lookup.Project(ctx, funes.HarnessGeminiCLI, parent); err == nil && ok {
			s.Project = proj
		}
	}
	s.Title = titleFrom(s.Turns)
	if !sub && !blank(string(p.meta.Summary)) {
		s.Title = firstWords(string(p.meta.Summary))
	}
	if sub {
		s.Title = "Sub-agent: " + s.Title
	}
	return s, nil
}

var (
	gemWorkspace = regexp.MustCompile(`Workspace Directories:\**\s*\n\s*-\s*(\S[^\n]*)`)
	gemWorkingIn = regexp.MustCompile(`I'm currently working in the directory: (\S[^\n]*)`)
)

// workdir is the session's first workspace directory: from the header
// (sub-agents), or from the CLI's <session_context> preamble.
func (p *gemParse) workdir() string {
	for _, d := range p.meta.Directories {
		if !blank(string(d)) {
			return strings.TrimSpace(string(d))
		}
	}
	for _, id := range p.ids {
		m := p.msgs[id]
		if m.Type != "user" {
			continue
		}
		for _, pt := range gemParts(m.Content) {
			if pt.Text == nil {
				continue
			}
			for _, re := range []*regexp.Regexp{gemWorkspace, gemWorkingIn} {
				if sm := re.FindStringSubmatch(string(*pt.Text)); sm != nil {
					return strings.TrimSpace(sm[1])
				}
			}
		}
	}
	return ""
}

// gemProjectDir finds, from a session file's path, the project's folder
// under tmp/ (which holds .project_root) and, for a sub-agent's file in
// chats/<parent>/, the parent session's id.
func gemProjectDir(path string) (tmp, parent string) {
	if path == "" {
		return "", ""
	}
	dir := filepath.Dir(path)
	switch {
	case filepath.Base(dir) == "chats":
		return filepath.Dir(dir), ""
	case filepath.Base(filepath.Dir(dir)) == "chats":
		return filepath.Dir(filepath.Dir(dir)), filepath.Base(dir)
	}
	return "", ""
}

// gemParts reads message content: a string, a list of parts, or one part.
func gemParts(raw json.RawMessage) []gemPart {
	switch jsonKind(raw) {
	case '"':
		var s looseString
		json.Unmarshal(raw, &s)
		return []gemPart{{Text: &s}}
	case '[':
		var items []json.RawMessage
		json.Unmarshal(raw, &items)
		out := make([]gemPart, 0, len(items))
		for _, it := range items {
			var pt gemPart
			if jsonKind(it) == '"' {
				var s looseString
				json.Unmarshal(it, &s)
				pt.Text = &s
			} else if json.Unmarshal(it, &pt) != nil {
				continue
			}
			out = append(out, pt)
		}
		return out
	case '{':
		var pt gemPart
		if json.Unmarshal(raw, &pt) == nil {
			return []gemPart{pt}
		}
	}
	return nil
}

// gemPartBlocks maps one part that is not a function response.
func gemPartBlocks(pt gemPart) []funes.Block {
	switch {
	case pt.Text != nil && bool(pt.Thought):
		return addBlock(nil, funes.BlockThinking, string(*pt.Text), "")
	case pt.Text != nil:
		return addBlock(nil, funes.BlockText, string(*pt.Text), "")
	case pt.FunctionCall != nil:
		return []funes.Block{toolUseBlock(string(pt.FunctionCall.Name), pt.FunctionCall.Args)}
	case pt.InlineData != nil:
		return []funes.Block{{Type: funes.BlockText, Text: mediaPlaceholder(string(pt.InlineData.MimeType), "")}}
	case pt.FileData != nil:
		return []funes.Block{{Type: funes.BlockText, Text: mediaPlaceholder(string(pt.FileData.MimeType), string(pt.FileData.FileURI))}}
	case len(pt.ExecutableCode) > 0:
		var c struct {
			Code looseString `json:"code"`
		}
		json.Unmarshal(pt.ExecutableCode, &c)
		return addBlock(nil, funes.BlockToolUse, string(c.Code), "code_execution")
	case len(pt.CodeResult) > 0:
		var c struct {
			Output looseString `json:"output"`
		}
		json.Unmarshal(pt.CodeResult, &c)
		return addBlock(nil, funes.BlockToolResult, string(c.Output), "code_execution")
	}
	return nil
}

// mediaPlaceholder stands in for an attached image or file.
func mediaPlaceholder(mime, uri string) string {
	kind := "file"
	if strings.HasPrefix(mime, "image/") {
		kind = "image"
	}
	if uri != "" {
		return "[" + kind + ": " + uri + "]"
	}
	if mime != "" && kind == "file" {
		return "[file: " + mime + "]"
	}
	return "[" + kind + "]"
}

// toolUseBlock is a call: its arguments as compact JSON, "{}" when it has
// none, so the call is kept even then.
func toolUseBlock(name string, args json.RawMessage) funes.Block {
	in := compactJSON(args)
	if blank(in) {
		in = "{}"
	}
	return funes.Block{Type: funes.BlockToolUse, Text: in, ToolName: name}
}

// gemCallResult is what a recorded call returned: its function responses'
// text, else what the CLI displayed, else its status.
func gemCallResult(c gemToolCall) (string, bool) {
	var parts []string
	switch jsonKind(c.Result) {
	case '[':
		for _, pt := range gemParts(c.Result) {
			switch {
			case pt.FunctionResponse != nil:
				parts = append(parts, gemResponseText(pt.FunctionResponse.Response))
			case pt.Text != nil:
				parts = append(parts, string(*pt.Text))
			}
		}
	case '"':
		var s string
		json.Unmarshal(c.Result, &s)
		parts = append(parts, s)
	case '{':
		parts = append(parts, compactJSON(c.Result))
	}
	if out := strings.Join(parts, "\n"); !blank(out) {
		return out, true
	}
	if jsonKind(c.ResultDisplay) == '"' {
		var s string
		json.Unmarshal(c.ResultDisplay, &s)
		if !blank(s) {
			return s, true
		}
	}
	if c.Status != "" && c.Status != "success" {
		return "(" + string(c.Status) + ")", true
	}
	return "", false
}

// gemResponseText is a function response as text: its output, or its
// error, or an MCP tool's content, else the response as JSON.
func gemResponseText(raw json.RawMessage) string {
	var r struct {
		Output  json.RawMessage `json:"output"`
		Error   json.RawMessage `json:"error"`
		Content json.RawMessage `json:"content"`
	}
	if jsonKind(raw) != '{' || json.Unmarshal(raw, &r) != nil {
		return rawText(raw)
	}
	switch {
	case jsonKind(r.Output) == '"':
		return rawText(r.Output)
	case jsonKind(r.Error) == '"':
		return "Error: " + rawText(r.Error)
	case jsonKind(r.Content) == '[':
		if t := contentText(r.Content); !blank(t) {
			return t
		}
	}
	return compactJSON(raw)
}

// jsonKind is the first byte of a JSON value ('"', '{', '[', 'n', …), or 0.
func jsonKind(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}
