package lifelike

// Claude.ai data export: conversations.json with chat_messages, plus users.json and projects.json.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

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
