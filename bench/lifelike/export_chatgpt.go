package lifelike

// ChatGPT "Export data": conversations.json (or shards), a mapping tree per conversation.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

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
