package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ireneo-app/ireneo/funes"
)

// Claude.ai data export: conversations.json is a list of conversations with
// chat_messages; the per-conversation API shape (one object, with
// current_leaf_message_uuid) is accepted too. See EXPORT-FORMATS.md §2.

type claudeConversation struct {
	UUID         looseString     `json:"uuid"`
	Name         looseString     `json:"name"`
	CreatedAt    flexTime        `json:"created_at"`
	ChatMessages []claudeMessage `json:"chat_messages"`
	CurrentLeaf  looseString     `json:"current_leaf_message_uuid"`
	ProjectUUID  looseString     `json:"project_uuid"`
	Project      *struct {
		UUID looseString `json:"uuid"`
		Name looseString `json:"name"`
	} `json:"project"`
}

type claudeMessage struct {
	UUID        looseString   `json:"uuid"`
	Text        looseString   `json:"text"`
	Content     []claudeBlock `json:"content"`
	Sender      looseString   `json:"sender"`
	CreatedAt   flexTime      `json:"created_at"`
	UpdatedAt   flexTime      `json:"updated_at"`
	Parent      looseString   `json:"parent_message_uuid"`
	Attachments []struct {
		FileName         looseString `json:"file_name"`
		ExtractedContent looseString `json:"extracted_content"`
	} `json:"attachments"`
	Files []struct {
		FileName looseString `json:"file_name"`
		FileKind looseString `json:"file_kind"`
	} `json:"files"`
}

type claudeBlock struct {
	Type      looseString     `json:"type"`
	Text      looseString     `json:"text"`
	Thinking  looseString     `json:"thinking"`
	Name      looseString     `json:"name"`
	Title     looseString     `json:"title"`
	Input     json.RawMessage `json:"input"`
	Content   json.RawMessage `json:"content"`
	StartTime flexTime        `json:"start_timestamp"`
}

// claudeRootParent is the sentinel parent of the first message in 2026 exports.
const claudeRootParent = "00000000-0000-4000-8000-000000000000"

// ParseClaude reads a Claude.ai conversations.json as a stream, or one
// conversation in the per-conversation API shape.
func ParseClaude(ctx context.Context, r io.Reader, name string, h Handler) error {
	var t entryTally
	isOne := func(keys map[string]json.RawMessage) bool { _, ok := keys["chat_messages"]; return ok }
	err := streamJSONExport(ctx, r, h, "conversations", isOne, func(i int, dec *json.Decoder) error {
		var c claudeConversation
		bad, err := decodeOne(dec, &c)
		if err != nil {
			return err
		}
		what := fmt.Sprintf("conversation #%d", i+1)
		if c.UUID != "" {
			what = "conversation " + string(c.UUID)
			if c.Name != "" {
				what += fmt.Sprintf(" (%q)", string(c.Name))
			}
		}
		why := ""
		var s *funes.Session
		if bad != nil {
			why = "wrong shape: " + describeTypeError(bad)
		} else {
			s, why = claudeSession(&c)
		}
		if s == nil {
			t.skip(h, what, why)
			return nil
		}
		return t.emit(h, s)
	})
	if err != nil {
		return err
	}
	return t.err("Claude")
}

func claudeSession(c *claudeConversation) (*funes.Session, string) {
	id := strings.TrimSpace(string(c.UUID))
	if id == "" {
		return nil, "no conversation uuid"
	}
	s := &funes.Session{ID: id, Harness: funes.HarnessClaude, Title: strings.TrimSpace(string(c.Name))}
	last := c.CreatedAt.Time
	branch, tree := claudeBranch(c)
	for _, m := range branch {
		blocks := claudeBlocks(m)
		if len(blocks) == 0 {
			continue
		}
		ts := m.CreatedAt.Time
		if ts.IsZero() && len(m.Content) > 0 {
			ts = m.Content[0].StartTime.Time
		}
		if ts.IsZero() {
			ts = m.UpdatedAt.Time
		}
		if ts.IsZero() {
			ts = last
		}
		last = ts
		role := funes.RoleAssistant
		switch m.Sender {
		case "human", "user":
			role = funes.RoleUser
		case "assistant":
		default:
			role = funes.RoleSystem
		}
		s.Turns = append(s.Turns, funes.Turn{TurnUUID: strings.TrimSpace(string(m.UUID)), TS: ts, Role: role, Blocks: blocks})
	}
	if !tree {
		// A flat export often stores chat_messages out of time order, and a
		// question and its answer can share one created_at: order by time,
		// the person before the assistant on ties, the list order otherwise.
		// (A tree's parent links already say the order.)
		sort.SliceStable(s.Turns, func(i, j int) bool {
			a, b := s.Turns[i], s.Turns[j]
			if !a.TS.Equal(b.TS) {
				return a.TS.Before(b.TS)
			}
			return a.Role == funes.RoleUser && b.Role != funes.RoleUser
		})
	}
	if len(s.Turns) == 0 {
		return nil, "no messages"
	}
	dedupeTurnIDs(s)
	number(s)
	if s.Title == "" {
		s.Title = titleFrom(s.Turns)
	}
	switch {
	case c.Project != nil && !blank(string(c.Project.Name)):
		s.Project = strings.TrimSpace(string(c.Project.Name))
	case c.Project != nil && !blank(string(c.Project.UUID)):
		s.Project = claudeProject(string(c.Project.UUID))
	case !blank(string(c.ProjectUUID)):
		s.Project = claudeProject(string(c.ProjectUUID))
	}
	return s, ""
}

// claudeProject is a placeholder name for a project known only by uuid.
func claudeProject(uuid string) string {
	u := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(uuid), "-", ""))
	if len(u) > 8 {
		u = u[:8]
	}
	return "claude-project-" + u
}

// claudeBranch is the list of messages on the kept branch. Exports with
// parent_message_uuid are trees: follow the branch that reaches the current
// leaf (API shape) or the last message. Older exports are a flat list.
func claudeBranch(c *claudeConversation) (_ []*claudeMessage, tree bool) {
	msgs := c.ChatMessages
	byID := make(map[string]*claudeMessage, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		if m.UUID != "" {
			byID[string(m.UUID)] = m
		}
		if m.Parent != "" {
			tree = true
		}
	}
	out := make([]*claudeMessage, 0, len(msgs))
	if !tree {
		for i := range msgs {
			out = append(out, &msgs[i])
		}
		return out, false
	}
	leaf := byID[string(c.CurrentLeaf)]
	if leaf == nil {
		// The last message: the latest by time, the later in the list on ties.
		for i := range msgs {
			m := &msgs[i]
			if leaf == nil || !m.CreatedAt.Before(leaf.CreatedAt.Time) {
				leaf = m
			}
		}
	}
	seen := map[*claudeMessage]bool{}
	for m := leaf; m != nil && !seen[m]; {
		seen[m] = true
		out = append(out, m)
		p := string(m.Parent)
		if p == "" || p == claudeRootParent {
			break
		}
		m = byID[p]
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, true
}

// claudeBlocks maps a message's content. message.text is not used when
// content exists: it glues the thinking onto the answer.
func claudeBlocks(m *claudeMessage) []funes.Block {
	var bs []funes.Block
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			bs = addBlock(bs, funes.BlockText, string(b.Text), "")
		case "thinking":
			bs = addBlock(bs, funes.BlockThinking, string(b.Thinking), "")
		case "tool_use":
			bs = addBlock(bs, funes.BlockToolUse, claudeToolInput(string(b.Name), b.Input), string(b.Name))
		case "tool_result":
			bs = addBlock(bs, funes.BlockToolResult, contentText(b.Content), string(b.Name))
		case "voice_note":
			bs = addBlock(bs, funes.BlockText, joinNonBlank("\n\n", string(b.Title), string(b.Text)), "")
		case "image":
			bs = addBlock(bs, funes.BlockText, "[image]", "")
		default:
			bs = addBlock(bs, funes.BlockText, string(b.Text), "")
		}
	}
	if len(bs) == 0 {
		bs = addBlock(bs, funes.BlockText, string(m.Text), "") // old exports: text only
	}
	for _, a := range m.Attachments {
		name := strings.TrimSpace(string(a.FileName))
		if name == "" {
			name = "file"
		}
		if blank(string(a.ExtractedContent)) {
			bs = addBlock(bs, funes.BlockText, "[attachment: "+name+"]", "")
			continue
		}
		bs = addBlock(bs, funes.BlockText, "[attachment: "+name+"]\n"+string(a.ExtractedContent), "")
	}
	for _, f := range m.Files {
		name := strings.TrimSpace(string(f.FileName))
		kind := "file"
		if f.FileKind == "image" {
			kind = "image"
		}
		if name == "" || name == kind {
			bs = addBlock(bs, funes.BlockText, "["+kind+"]", "")
		} else {
			bs = addBlock(bs, funes.BlockText, "["+kind+": "+name+"]", "")
		}
	}
	return bs
}

// claudeToolInput renders a tool call's input. An artifact is kept as its
// title and content, which is what the person saw; other inputs stay JSON.
func claudeToolInput(name string, input json.RawMessage) string {
	if name == "artifacts" {
		var a struct {
			Title   looseString `json:"title"`
			Content looseString `json:"content"`
			OldStr  looseString `json:"old_str"`
			NewStr  looseString `json:"new_str"`
		}
		if json.Unmarshal(input, &a) == nil {
			if body := joinNonBlank("\n\n", string(a.Content), string(a.NewStr)); body != "" {
				return joinNonBlank("\n\n", string(a.Title), body)
			}
		}
	}
	return compactJSON(input)
}

// compactJSON returns raw JSON without insignificant space, or "" for null.
func compactJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// contentText flattens a tool result's content: a string, or a list of
// blocks of which the text ones are kept and images become a placeholder.
func contentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return compactJSON(raw)
	}
	var parts []string
	for _, item := range list {
		if json.Unmarshal(item, &s) == nil {
			parts = append(parts, s)
			continue
		}
		var b struct {
			Type     looseString `json:"type"`
			Text     looseString `json:"text"`
			ToolName looseString `json:"tool_name"`
		}
		if json.Unmarshal(item, &b) != nil {
			continue
		}
		switch {
		case b.Type == "image" || b.Type == "input_image" || b.Type == "output_image":
			parts = append(parts, "[image]")
		case b.Type == "tool_reference" && !blank(string(b.ToolName)):
			// Claude Code's ToolSearch answers with the tools it loaded and
			// no text (2.1.3xx); the result happened, so it is kept.
			parts = append(parts, "[tool_reference "+strings.TrimSpace(string(b.ToolName))+"]")
		case !blank(string(b.Text)):
			parts = append(parts, string(b.Text))
		}
	}
	return strings.Join(parts, "\n")
}
