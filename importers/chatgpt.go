package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// ChatGPT "Export data": conversations.json (or the 2026 shards
// conversations-NNN.json) is a list of conversation objects, each a tree of
// message nodes in "mapping". See research/EXPORT-FORMATS.md §1.

type gptConversation struct {
	ID                     looseString         `json:"id"`
	ConversationID         looseString         `json:"conversation_id"`
	Title                  looseString         `json:"title"`
	CreateTime             flexTime            `json:"create_time"`
	UpdateTime             flexTime            `json:"update_time"`
	Mapping                map[string]*gptNode `json:"mapping"`
	CurrentNode            looseString         `json:"current_node"`
	GizmoID                looseString         `json:"gizmo_id"`
	GizmoType              looseString         `json:"gizmo_type"`
	ConversationTemplateID looseString         `json:"conversation_template_id"`
}

type gptNode struct {
	Message  *gptMessage   `json:"message"`
	Parent   looseString   `json:"parent"`
	Children []looseString `json:"children"`
}

type gptMessage struct {
	ID         looseString `json:"id"`
	Author     gptAuthor   `json:"author"`
	CreateTime flexTime    `json:"create_time"`
	UpdateTime flexTime    `json:"update_time"`
	Content    *gptContent `json:"content"`
	Weight     looseFloat  `json:"weight"`
	Metadata   *gptMeta    `json:"metadata"`
	Recipient  looseString `json:"recipient"`
}

type gptAuthor struct {
	Role looseString `json:"role"`
	Name looseString `json:"name"`
}

type gptMeta struct {
	Hidden              looseBool `json:"is_visually_hidden_from_conversation"`
	IsUserSystemMessage looseBool `json:"is_user_system_message"`
	Attachments         []struct {
		Name looseString `json:"name"`
	} `json:"attachments"`
}

type gptContent struct {
	ContentType looseString     `json:"content_type"`
	Parts       json.RawMessage `json:"parts"`
	Text        looseString     `json:"text"`
	Language    looseString     `json:"language"`
	Result      looseString     `json:"result"`
	Summary     looseString     `json:"summary"`
	URL         looseString     `json:"url"`
	Title       looseString     `json:"title"`
	Thoughts    []struct {
		Summary looseString `json:"summary"`
		Content looseString `json:"content"`
	} `json:"thoughts"`
	Content looseString `json:"content"` // reasoning_recap: "Thought for 7s"
}

// gptPart is an object inside multimodal_text parts: an asset pointer or an
// audio transcription.
type gptPart struct {
	ContentType looseString `json:"content_type"`
	Text        looseString `json:"text"`
	Metadata    *struct {
		Dalle      json.RawMessage `json:"dalle"`
		Generation json.RawMessage `json:"generation"`
	} `json:"metadata"`
}

// ParseChatGPT reads a ChatGPT conversations.json (or one shard of it) as a
// stream, one conversation in memory at a time.
func ParseChatGPT(ctx context.Context, r io.Reader, name string, h Handler) error {
	var t entryTally
	isOne := func(keys map[string]json.RawMessage) bool { _, ok := keys["mapping"]; return ok }
	err := streamJSONExport(ctx, r, h, "conversations", isOne, func(i int, dec *json.Decoder) error {
		var c gptConversation
		bad, err := decodeOne(dec, &c)
		if err != nil {
			return err
		}
		what := gptName(i, &c)
		if bad != nil {
			t.skip(h, what, "wrong shape: "+describeTypeError(bad))
			return nil
		}
		s, why := chatGPTSession(&c)
		if s == nil {
			t.skip(h, what, why)
			return nil
		}
		return t.emit(h, s)
	})
	if err != nil {
		return err
	}
	return t.err("ChatGPT")
}

func gptName(i int, c *gptConversation) string {
	id := string(c.ConversationID)
	if id == "" {
		id = string(c.ID)
	}
	switch {
	case id != "" && c.Title != "":
		return fmt.Sprintf("conversation %s (%q)", id, string(c.Title))
	case id != "":
		return "conversation " + id
	}
	return fmt.Sprintf("conversation #%d", i+1)
}

// chatGPTSession turns one conversation into a session, or says why not.
func chatGPTSession(c *gptConversation) (*funes.Session, string) {
	id := strings.TrimSpace(string(c.ConversationID))
	if id == "" {
		id = strings.TrimSpace(string(c.ID))
	}
	if id == "" {
		return nil, "no conversation id"
	}
	if len(c.Mapping) == 0 {
		return nil, "no messages (empty mapping)"
	}
	s := &funes.Session{ID: id, Harness: funes.HarnessChatGPT, Title: strings.TrimSpace(string(c.Title))}
	last := c.CreateTime.Time
	for _, n := range gptBranch(c) {
		m := n.Message
		if m == nil || gptHidden(m) {
			continue
		}
		blocks := gptBlocks(m)
		if len(blocks) == 0 {
			continue // empty placeholders before thoughts, and the like
		}
		ts := m.CreateTime.Time
		if ts.IsZero() {
			ts = m.UpdateTime.Time
		}
		if ts.IsZero() {
			ts = last
		}
		last = ts
		s.Turns = append(s.Turns, funes.Turn{
			TurnUUID: strings.TrimSpace(string(m.ID)),
			TS:       ts,
			Role:     gptRole(m),
			Blocks:   blocks,
		})
	}
	if len(s.Turns) == 0 {
		return nil, "no visible messages"
	}
	dedupeTurnIDs(s)
	number(s)
	if s.Title == "" {
		s.Title = titleFrom(s.Turns)
	}
	s.Project = gptProject(c)
	return s, ""
}

// gptBranch is the branch the person kept: from current_node up to the
// root, reversed. Following children[0] instead picks abandoned edits.
func gptBranch(c *gptConversation) []*gptNode {
	leaf := string(c.CurrentNode)
	if c.Mapping[leaf] == nil {
		leaf = gptNewestLeaf(c.Mapping)
	}
	var path []*gptNode
	seen := map[string]bool{}
	for id := leaf; id != "" && !seen[id]; {
		n := c.Mapping[id]
		if n == nil {
			break
		}
		seen[id] = true
		path = append(path, n)
		id = string(n.Parent)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// gptNewestLeaf picks the leaf with the latest message time, for exports
// whose current_node is missing or dangling.
func gptNewestLeaf(mapping map[string]*gptNode) string {
	ids := make([]string, 0, len(mapping))
	for id := range mapping {
		ids = append(ids, id)
	}
	sort.Strings(ids) // deterministic on ties
	best, bestT := "", time.Time{}
	for _, id := range ids {
		n := mapping[id]
		if n == nil {
			continue
		}
		leaf := true
		for _, ch := range n.Children {
			if mapping[string(ch)] != nil {
				leaf = false
				break
			}
		}
		if !leaf {
			continue
		}
		var t time.Time
		if n.Message != nil {
			t = n.Message.CreateTime.Time
			if t.IsZero() {
				t = n.Message.UpdateTime.Time
			}
		}
		if best == "" || t.After(bestT) {
			best, bestT = id, t
		}
	}
	return best
}

// gptHidden reports nodes the person never saw as conversation: hidden
// system and context nodes, and custom instructions.
func gptHidden(m *gptMessage) bool {
	if m.Content == nil {
		return true
	}
	switch m.Content.ContentType {
	case "user_editable_context", "model_editable_context":
		return true
	}
	if m.Metadata != nil && (m.Metadata.Hidden || m.Metadata.IsUserSystemMessage) {
		return true
	}
	return m.Author.Role == "system" && m.Weight.Set && m.Weight.V == 0
}

func gptRole(m *gptMessage) string {
	switch m.Author.Role {
	case "user":
		return funes.RoleUser
	case "assistant":
		return funes.RoleAssistant
	case "tool":
		return funes.RoleTool
	}
	return funes.RoleSystem
}

// gptBlocks maps a message's content to blocks. Text stays text; code the
// model sends to a tool is a tool_use; tool output is a tool_result;
// thoughts are thinking; images and audio become short placeholders.
func gptBlocks(m *gptMessage) []funes.Block {
	c := m.Content
	role := gptRole(m)
	recipient := string(m.Recipient)
	toTool := role == funes.RoleAssistant && recipient != "" && recipient != "all"
	tool := string(m.Author.Name)
	// plain is how this message's prose is kept: a call when it is addressed
	// to a tool, a result when a tool wrote it, text otherwise.
	plain := func(bs []funes.Block, text string) []funes.Block {
		text = stripCitations(text)
		if toTool && strings.HasPrefix(recipient, "canmore.") {
			text = canvasText(text)
		}
		switch {
		case toTool:
			return addBlock(bs, funes.BlockToolUse, text, recipient)
		case role == funes.RoleTool:
			return addBlock(bs, funes.BlockToolResult, text, tool)
		}
		return addBlock(bs, funes.BlockText, text, "")
	}
	var bs []funes.Block
	switch c.ContentType {
	case "code":
		name := recipient
		if name == "" || name == "all" {
			name = string(c.Language)
		}
		bs = addBlock(bs, funes.BlockToolUse, string(c.Text), name)
	case "execution_output":
		bs = addBlock(bs, funes.BlockToolResult, string(c.Text), tool)
	case "tether_browsing_display":
		text := string(c.Result)
		if blank(text) {
			text = string(c.Summary)
		}
		bs = addBlock(bs, funes.BlockToolResult, stripCitations(text), tool)
	case "tether_quote", "sonic_webpage":
		text := joinNonBlank("\n", string(c.Title), string(c.URL))
		text = joinNonBlank("\n\n", text, string(c.Text))
		bs = addBlock(bs, funes.BlockToolResult, stripCitations(text), tool)
	case "thoughts":
		for _, t := range c.Thoughts {
			bs = addBlock(bs, funes.BlockThinking, stripCitations(joinNonBlank("\n\n", string(t.Summary), string(t.Content))), "")
		}
	case "reasoning_recap":
		bs = addBlock(bs, funes.BlockThinking, string(c.Content), "")
	default: // text, multimodal_text, system_error and kinds yet unseen
		for _, p := range gptParts(c.Parts) {
			if p.placeholder {
				bs = addBlock(bs, funes.BlockText, p.text, "")
			} else {
				bs = plain(bs, p.text)
			}
		}
		if len(bs) == 0 && !blank(string(c.Text)) {
			bs = plain(bs, string(c.Text))
		}
	}
	if role == funes.RoleUser && m.Metadata != nil {
		for _, a := range m.Metadata.Attachments {
			if !blank(string(a.Name)) {
				bs = addBlock(bs, funes.BlockText, "[attachment: "+strings.TrimSpace(string(a.Name))+"]", "")
			}
		}
	}
	return bs
}

type gptPiece struct {
	text        string
	placeholder bool
}

// gptParts reads content.parts: strings, and objects that are asset
// pointers (kept as a placeholder, never the bytes) or transcriptions.
// parts may be null, absent, [], [""], or even a bare string.
func gptParts(raw json.RawMessage) []gptPiece {
	if len(raw) == 0 {
		return nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	var out []gptPiece
	for _, p := range list {
		if s, ok := plainJSONString(p); ok {
			out = append(out, gptPiece{text: s})
			continue
		}
		var s string
		if json.Unmarshal(p, &s) == nil {
			out = append(out, gptPiece{text: s})
			continue
		}
		var o gptPart
		if json.Unmarshal(p, &o) != nil {
			continue
		}
		switch ct := string(o.ContentType); ct {
		case "audio_transcription":
			out = append(out, gptPiece{text: string(o.Text)})
		case "image_asset_pointer":
			ph := "[image]"
			if o.Metadata != nil && (isJSONValue(o.Metadata.Dalle) || isJSONValue(o.Metadata.Generation)) {
				ph = "[generated image]"
			}
			out = append(out, gptPiece{text: ph, placeholder: true})
		case "audio_asset_pointer":
			out = append(out, gptPiece{text: "[audio]", placeholder: true})
		case "real_time_user_audio_video_asset_pointer":
			out = append(out, gptPiece{text: "[audio/video]", placeholder: true})
		case "video_container_asset_pointer":
			out = append(out, gptPiece{text: "[video]", placeholder: true})
		case "":
			if !blank(string(o.Text)) {
				out = append(out, gptPiece{text: string(o.Text)})
			}
		default:
			if !blank(string(o.Text)) {
				out = append(out, gptPiece{text: string(o.Text)})
			} else {
				out = append(out, gptPiece{text: "[" + strings.TrimSuffix(ct, "_asset_pointer") + "]", placeholder: true})
			}
		}
	}
	return out
}

func isJSONValue(r json.RawMessage) bool {
	s := strings.TrimSpace(string(r))
	return s != "" && s != "null"
}

func joinNonBlank(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if !blank(p) {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}

// gptProject names a ChatGPT Project conversation. The export has no file
// that maps a g-p- id to the project's name, so the tag is a stable
// placeholder the person can rename (ireneo projects rename …).
func gptProject(c *gptConversation) string {
	for _, id := range []string{string(c.GizmoID), string(c.ConversationTemplateID)} {
		if hex, ok := strings.CutPrefix(id, "g-p-"); ok && hex != "" {
			if len(hex) > 8 {
				hex = hex[:8]
			}
			return "chatgpt-project-" + strings.ToLower(hex)
		}
	}
	return ""
}

// dedupeTurnIDs keeps turn ids unique within a session: a source id seen
// twice gets a suffix rather than shadowing the first turn.
func dedupeTurnIDs(s *funes.Session) {
	seen := make(map[string]bool, len(s.Turns))
	for i := range s.Turns {
		id := s.Turns[i].TurnUUID
		if id == "" {
			continue
		}
		if seen[id] {
			s.Turns[i].TurnUUID = fmt.Sprintf("%s-%d", id, i)
		}
		seen[s.Turns[i].TurnUUID] = true
	}
}

// plainJSONString returns the value of a JSON string literal that has no
// escapes, without a second decoding pass (most message parts are such).
// The input was already validated as JSON and as UTF-8.
func plainJSONString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 || bytes.IndexByte(body, '"') >= 0 {
		return "", false
	}
	return string(body), true
}

// canvasText renders a canvas (canmore) call as the document the person
// saw: the model sends it as a JSON string, whose code would otherwise be
// stored with literal \n escapes. create_textdoc gives the name and
// content; update_textdoc the replacements; comment_textdoc the comments.
// Anything else stays as sent.
func canvasText(raw string) string {
	var c struct {
		Name    looseString `json:"name"`
		Content *string     `json:"content"`
		Updates []struct {
			Pattern     looseString `json:"pattern"`
			Replacement *string     `json:"replacement"`
		} `json:"updates"`
		Comments []struct {
			Comment looseString `json:"comment"`
		} `json:"comments"`
	}
	if json.Unmarshal([]byte(raw), &c) != nil {
		return raw
	}
	switch {
	case c.Content != nil:
		return joinNonBlank("\n\n", string(c.Name), *c.Content)
	case len(c.Updates) > 0:
		var parts []string
		for _, u := range c.Updates {
			if u.Replacement != nil {
				parts = append(parts, *u.Replacement)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n\n")
		}
	case len(c.Comments) > 0:
		var parts []string
		for _, cm := range c.Comments {
			parts = append(parts, string(cm.Comment))
		}
		if out := joinNonBlank("\n\n", parts...); out != "" {
			return out
		}
	}
	return raw
}
