package importers

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/funes"
)

// Cursor keeps its history in two places.
//
// The IDE's state.vscdb, SQLite (User/globalStorage/ for every window,
// User/workspaceStorage/<hash>/ per workspace, under ~/.config/Cursor,
// ~/Library/Application Support/Cursor or %APPDATA%\Cursor), read in place
// and read-only like opencode's (sqlite.go). Over its versions it held
// conversations four ways, all read:
//
//   - ItemTable "workbench.panel.aichat.view.aichat.chatdata" (the chat
//     panel to 0.4x): {tabs: [{tabId, chatTitle, lastSendTime, bubbles:
//     [{type: "user"|"ai", id, text}]}]}.
//   - ItemTable "composer.composerData" (0.4x composers, per workspace):
//     {allComposers: [{composerId, name, createdAt, conversation: [...]}]};
//     later the same key only lists the workspace's composers.
//   - cursorDiskKV "composerData:<id>" with the conversation inline
//     (conversation, or conversationMap), ≈0.43 on.
//   - cursorDiskKV "composerData:<id>" with fullConversationHeadersOnly
//     [{bubbleId, type}] and each bubble at "bubbleId:<id>:<bubble>" (0.45
//     to 3.x). A bubble is type 1 (the person) or 2 (the assistant), with
//     text (or, when empty, a Lexical richText), thinking, and for a tool
//     call toolFormerData {name, rawArgs, result, status}.
//
// A composer's folder is its workspace's: workspace.json {"folder": URI}
// beside a workspace database, whose "composer.composerData" names the
// composers it holds; a global database's composers are matched to the
// workspaces beside it (workspaceStorage/), and from 3.x, whose workspace
// databases list none, each composer names its own (workspaceIdentifier). Each composer or chat tab is
// one conversation, its id the composer's or tab's.
//
// The agent's own transcripts, ~/.cursor/projects/<encoded folder>/
// agent-transcripts/: <composer id>/<composer id>.jsonl with its
// sub-agents in <composer id>/subagents/<id>.jsonl, before that
// <composer id>.jsonl, and before that the .txt (user: / assistant:
// sections with [Thinking], [Tool call] and [Tool result] markers). A
// .jsonl line is {role, message: {content}} in Anthropic's shape: text and
// tool_use blocks, no results, no ids; the person's words in <user_query>
// after a <timestamp> of when they were sent ("Friday, May 8, 2026, 6:05
// AM (UTC+5:30)"), the only times a transcript holds (plumbing knows both
// wrappers). The encoded folder is the project's path with / and . as -. A transcript is the same conversation as the
// IDE's composer of that id: when the memory already holds the IDE's copy
// (with its times), that copy stands for the transcript, unchanged.

// Keys of Cursor's ItemTable that hold conversations.
const (
	cursorChatKey     = "workbench.panel.aichat.view.aichat.chatdata"
	cursorComposerKey = "composer.composerData"
)

// cursorMaxWorkspaces bounds how many workspace databases a global one's
// folders are looked up in.
const cursorMaxWorkspaces = 2000

type cursorBubble struct {
	BubbleID  looseString     `json:"bubbleId"`
	ID        looseString     `json:"id"`
	Type      json.RawMessage `json:"type"`
	Text      looseString     `json:"text"`
	RawText   looseString     `json:"rawText"`
	RichText  looseString     `json:"richText"`
	CreatedAt flexTime        `json:"createdAt"`
	Thinking  *struct {
		Text looseString `json:"text"`
	} `json:"thinking"`
	Tool *struct {
		Name       looseString     `json:"name"`
		RawArgs    looseString     `json:"rawArgs"`
		Params     json.RawMessage `json:"params"`
		Result     looseString     `json:"result"`
		Status     looseString     `json:"status"`
		ToolCallID looseString     `json:"toolCallId"`
	} `json:"toolFormerData"`
	Images []json.RawMessage `json:"images"`
	// The images a prompt carries: selectedImages on a 0.4x chat bubble,
	// context.selectedImages from the composers on (a prompt of images
	// only has no text at all).
	SelectedImages json.RawMessage `json:"selectedImages"`
	Context        json.RawMessage `json:"context"`
	WorkspaceURIs  []looseString   `json:"workspaceUris"`
	// 1.x writes no createdAt on a bubble but times the request:
	// timingInfo {clientRpcSendTime, clientEndTime} in epoch ms (its
	// clientStartTime is the window's clock, not a date).
	TimingInfo json.RawMessage `json:"timingInfo"`
}

// cursorTiming reads a bubble's timingInfo leniently: when its request
// was sent and when its reply ended, zero when absent or not a date.
func (b cursorBubble) timing() (sent, ended time.Time) {
	var ti struct {
		Sent  flexTime `json:"clientRpcSendTime"`
		Ended flexTime `json:"clientEndTime"`
	}
	if json.Unmarshal(b.TimingInfo, &ti) != nil {
		return time.Time{}, time.Time{}
	}
	date := func(t time.Time) time.Time {
		if t.Year() < 2000 {
			return time.Time{}
		}
		return t
	}
	return date(ti.Sent.Time), date(ti.Ended.Time)
}

// cursorImage is one of a prompt's selected images; 1.x writes a
// description of it (taskSpecificDescription) beside its path.
type cursorImage struct {
	Description looseString `json:"taskSpecificDescription"`
}

// images are the bubble's images, wherever its version keeps them; read
// leniently, so a shape not known here costs the images, not the bubble.
func (b cursorBubble) images() []cursorImage {
	var out []cursorImage
	add := func(raw json.RawMessage) {
		var ims []json.RawMessage
		if json.Unmarshal(raw, &ims) != nil {
			return
		}
		for _, im := range ims {
			var ci cursorImage
			json.Unmarshal(im, &ci) // an image of another shape is still an image
			out = append(out, ci)
		}
	}
	for range b.Images {
		out = append(out, cursorImage{})
	}
	add(b.SelectedImages)
	var ctx struct {
		SelectedImages json.RawMessage `json:"selectedImages"`
	}
	if json.Unmarshal(b.Context, &ctx) == nil {
		add(ctx.SelectedImages)
	}
	return out
}

type cursorComposer struct {
	ComposerID    looseString                `json:"composerId"`
	Name          looseString                `json:"name"`
	CreatedAt     flexTime                   `json:"createdAt"`
	LastUpdatedAt flexTime                   `json:"lastUpdatedAt"`
	Headers       []cursorBubble             `json:"fullConversationHeadersOnly"`
	Conversation  []json.RawMessage          `json:"conversation"`
	ConvMap       map[string]json.RawMessage `json:"conversationMap"`
	SubComposers  []looseString              `json:"subComposerIds"`
	// 3.x names the composer's workspace itself ({id, uri: {fsPath, path,
	// external}}); its workspace database no longer lists it.
	Workspace json.RawMessage `json:"workspaceIdentifier"`
}

// folder is the workspace folder a composer names, or "" (read
// leniently: a shape not known here costs the folder, not the composer).
func (c cursorComposer) folder() string {
	var w struct {
		URI struct {
			FsPath   looseString `json:"fsPath"`
			Path     looseString `json:"path"`
			External looseString `json:"external"`
			Scheme   looseString `json:"scheme"`
		} `json:"uri"`
	}
	if json.Unmarshal(c.Workspace, &w) != nil {
		return ""
	}
	if p := fileURIPath(string(w.URI.External)); p != "" {
		return p
	}
	if sc := string(w.URI.Scheme); sc != "" && sc != "file" {
		return "" // a remote workspace's path is not on this machine
	}
	if p := strings.TrimSpace(string(w.URI.FsPath)); p != "" {
		return p
	}
	return strings.TrimSpace(string(w.URI.Path))
}

// cursorRole reads a bubble's type: 1 or "user" is the person.
func cursorRole(raw json.RawMessage) string {
	switch strings.Trim(string(bytes.TrimSpace(raw)), `"`) {
	case "1", "user":
		return funes.RoleUser
	case "2", "ai", "assistant":
		return funes.RoleAssistant
	}
	return ""
}

// cursorTurns maps bubbles to turns: a tool call closes the assistant's
// turn and its result is a turn of its own.
func cursorTurns(id string, bubbles []cursorBubble, start time.Time) []funes.Turn {
	var turns []funes.Turn
	last := start
	for i, b := range bubbles {
		role := cursorRole(b.Type)
		if role == "" {
			continue
		}
		ts := b.CreatedAt.Time
		if ts.IsZero() && role == funes.RoleAssistant {
			sent, ended := b.timing()
			ts = ended
			if ts.IsZero() {
				ts = sent
			}
		}
		if ts.IsZero() && role == funes.RoleUser && i+1 < len(bubbles) && cursorRole(bubbles[i+1].Type) == funes.RoleAssistant {
			ts, _ = bubbles[i+1].timing() // sent when the reply's request was
		}
		if ts.IsZero() {
			ts = last
		}
		last = ts
		tid := strings.TrimSpace(string(b.BubbleID))
		if tid == "" {
			tid = strings.TrimSpace(string(b.ID))
		}
		if tid == "" {
			tid = fmt.Sprintf("%s-%d", id, i)
		}
		var blocks []funes.Block
		if b.Thinking != nil {
			blocks = addBlock(blocks, funes.BlockThinking, string(b.Thinking.Text), "")
		}
		text := string(b.Text)
		if blank(text) {
			text = string(b.RawText)
		}
		if blank(text) && b.RichText != "" {
			text = lexicalText(string(b.RichText))
		}
		blocks = addBlock(blocks, funes.BlockText, text, "")
		for _, im := range b.images() {
			mark := "[image]"
			if d := strings.TrimSpace(string(im.Description)); d != "" {
				mark = "[image] " + d
			}
			blocks = append(blocks, funes.Block{Type: funes.BlockText, Text: mark})
		}
		if tool := b.Tool; tool != nil && !blank(string(tool.Name)) {
			args := string(tool.RawArgs)
			if blank(args) {
				args = compactJSON(tool.Params)
			}
			if blank(args) {
				args = "{}"
			}
			blocks = append(blocks, funes.Block{Type: funes.BlockToolUse, Text: args, ToolName: string(tool.Name)})
			turns = append(turns, funes.Turn{TurnUUID: tid, TS: ts, Role: role, Blocks: blocks})
			out := string(tool.Result)
			if blank(out) && tool.Status != "" {
				out = "(" + string(tool.Status) + ")"
			}
			if !blank(out) {
				turns = append(turns, funes.Turn{TurnUUID: tid + "-result", TS: ts, Role: funes.RoleTool,
					Blocks: []funes.Block{{Type: funes.BlockToolResult, Text: out, ToolName: string(tool.Name)}}})
			}
			continue
		}
		if len(blocks) > 0 {
			turns = append(turns, funes.Turn{TurnUUID: tid, TS: ts, Role: role, Blocks: blocks})
		}
	}
	return turns
}

// lexicalText is the text of a Lexical editor state (Cursor's richText):
// its text nodes, a line per paragraph.
func lexicalText(rich string) string {
	var root any
	if json.Unmarshal([]byte(rich), &root) != nil {
		return ""
	}
	var b strings.Builder
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 64 {
			return
		}
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if t, ok := m["text"].(string); ok {
			b.WriteString(t)
		}
		if kids, ok := m["children"].([]any); ok {
			for _, k := range kids {
				walk(k, depth+1)
			}
		}
		if r, ok := m["root"]; ok {
			walk(r, depth+1)
		}
		if typ, _ := m["type"].(string); typ == "paragraph" || typ == "linebreak" {
			b.WriteString("\n")
		}
	}
	walk(root, 0)
	return strings.TrimSpace(b.String())
}

// cursorSession builds one conversation, or nil.
func cursorSession(id, title, folder string, turns []funes.Turn) *funes.Session {
	if blank(id) || len(turns) == 0 {
		return nil
	}
	s := &funes.Session{ID: id, Harness: funes.HarnessCursor, Workdir: folder, Turns: turns}
	dedupeTurnIDs(s)
	number(s)
	s.Project = repoProject(folder, "")
	s.Title = titleFrom(s.Turns)
	if !blank(title) {
		s.Title = firstWords(title)
	}
	return s
}

// ParseCursorDB reads every conversation of a Cursor state.vscdb. A
// conversation whose rows cannot be read is left out and named; a
// database that cannot be read at all changes nothing.
func ParseCursorDB(ctx context.Context, _ io.Reader, name string, h Handler) error {
	if h.Path == "" {
		return errors.New("a Cursor database inside an archive: extract it first")
	}
	db, err := openForeignDB(ctx, h.Path)
	if err != nil {
		return err
	}
	defer db.Close()
	ts, err := tables(ctx, db)
	if err != nil {
		return err
	}
	folder, err := cursorWorkspaceFolder(filepath.Dir(h.Path))
	if err != nil {
		return err
	}
	var folders map[string]string // composer id → folder, for a global database
	if folder == "" {
		folders = cursorComposerFolders(ctx, h.Path)
	}
	folderOf := func(cid string, c *cursorComposer, bubbles []cursorBubble) string {
		if folder != "" {
			return folder
		}
		if f := folders[cid]; f != "" {
			return f
		}
		if c != nil {
			if f := c.folder(); f != "" {
				return f
			}
		}
		for _, b := range bubbles {
			for _, u := range b.WorkspaceURIs {
				if p := fileURIPath(string(u)); p != "" {
					return p
				}
			}
		}
		return ""
	}
	found, skipped, firstSkip := 0, 0, ""
	skip := func(what string, err error) {
		h.skip(what, err.Error())
		if skipped == 0 {
			firstSkip = what + ": " + err.Error()
		}
		skipped++
	}
	emit := func(s *funes.Session) error {
		if s == nil {
			return nil
		}
		found++
		return h.Session(s)
	}
	done := map[string]bool{}
	subs := map[string]bool{}
	if ts["cursorDiskKV"] {
		keys, err := cursorKeys(ctx, db, "cursorDiskKV", "composerData:%")
		if err != nil {
			return err
		}
		for _, key := range keys {
			if err := ctx.Err(); err != nil {
				return err
			}
			cid := strings.TrimPrefix(key, "composerData:")
			var c cursorComposer
			if err := cursorValue(ctx, db, "cursorDiskKV", key, &c); errors.Is(err, sql.ErrNoRows) {
				continue // NULL: no composer to read
			} else if err != nil {
				skip("composer "+cid, err)
				continue
			}
			for _, sc := range c.SubComposers {
				subs[string(sc)] = true
			}
			bubbles, err := cursorComposerBubbles(ctx, db, cid, c)
			if err != nil {
				skip("composer "+cid, err)
				continue
			}
			done[cid] = true
			s := cursorSession(cid, string(c.Name), folderOf(cid, &c, bubbles), cursorTurns(cid, bubbles, c.CreatedAt.Time))
			if s != nil && subs[cid] {
				s.Title = "Sub-agent: " + s.Title
			}
			if err := emit(s); err != nil {
				return err
			}
		}
	}
	if ts["ItemTable"] {
		var all struct {
			AllComposers []cursorComposer `json:"allComposers"`
		}
		if err := cursorValue(ctx, db, "ItemTable", cursorComposerKey, &all); err != nil && !errors.Is(err, sql.ErrNoRows) {
			skip(cursorComposerKey, err)
		}
		for _, c := range all.AllComposers {
			cid := strings.TrimSpace(string(c.ComposerID))
			if done[cid] || len(c.Conversation) == 0 {
				continue // listed only: its conversation is in the global database
			}
			bubbles := cursorInline(c)
			done[cid] = true
			if err := emit(cursorSession(cid, string(c.Name), folderOf(cid, &c, bubbles), cursorTurns(cid, bubbles, c.CreatedAt.Time))); err != nil {
				return err
			}
		}
		var chat struct {
			Tabs []struct {
				TabID        looseString    `json:"tabId"`
				ChatTitle    looseString    `json:"chatTitle"`
				LastSendTime flexTime       `json:"lastSendTime"`
				Bubbles      []cursorBubble `json:"bubbles"`
			} `json:"tabs"`
		}
		if err := cursorValue(ctx, db, "ItemTable", cursorChatKey, &chat); err != nil && !errors.Is(err, sql.ErrNoRows) {
			skip(cursorChatKey, err)
		}
		for _, tab := range chat.Tabs {
			tid := strings.TrimSpace(string(tab.TabID))
			if done[tid] {
				continue
			}
			done[tid] = true
			if err := emit(cursorSession(tid, string(tab.ChatTitle), folderOf(tid, nil, tab.Bubbles), cursorTurns(tid, tab.Bubbles, tab.LastSendTime.Time))); err != nil {
				return err
			}
		}
	}
	if found == 0 && skipped > 0 {
		return &errWrongShape{msg: fmt.Sprintf("no readable Cursor conversation in %d (first: %s)", skipped, firstSkip), allSkipped: true}
	}
	if found == 0 {
		return errNoConversation
	}
	return nil
}

// cursorInline is a composer's inline conversation, in order.
func cursorInline(c cursorComposer) []cursorBubble {
	var out []cursorBubble
	for _, raw := range c.Conversation {
		var b cursorBubble
		if json.Unmarshal(raw, &b) == nil {
			out = append(out, b)
		}
	}
	return out
}

// cursorComposerBubbles is a composer's conversation: inline, or its
// headers' bubbles from their own rows (or the conversationMap).
func cursorComposerBubbles(ctx context.Context, db *sql.DB, cid string, c cursorComposer) ([]cursorBubble, error) {
	if len(c.Headers) == 0 {
		return cursorInline(c), nil
	}
	var out []cursorBubble
	for _, hd := range c.Headers {
		bid := strings.TrimSpace(string(hd.BubbleID))
		var b cursorBubble
		raw, inMap := c.ConvMap[bid]
		if !inMap || json.Unmarshal(raw, &b) != nil {
			err := cursorValue(ctx, db, "cursorDiskKV", "bubbleId:"+cid+":"+bid, &b)
			if errors.Is(err, sql.ErrNoRows) {
				continue // a header whose bubble was never written
			}
			if err != nil {
				return nil, fmt.Errorf("bubble %s: %w", bid, err)
			}
		}
		if b.BubbleID == "" {
			b.BubbleID = looseString(bid)
		}
		if len(b.Type) == 0 {
			b.Type = hd.Type
		}
		out = append(out, b)
	}
	return out, nil
}

// cursorKeys lists a table's keys matching a LIKE pattern, in order.
func cursorKeys(ctx context.Context, db *sql.DB, table, like string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT key FROM "+table+" WHERE key LIKE ? ORDER BY rowid", like)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, dbError(err)
		}
		out = append(out, k)
	}
	return out, dbError(rows.Err())
}

// cursorValue decodes one key's JSON value, refusing one too large or not
// UTF-8; sql.ErrNoRows when the key is not there or its value is NULL.
func cursorValue(ctx context.Context, db *sql.DB, table, key string, v any) error {
	var n sql.NullInt64
	var data []byte
	err := db.QueryRowContext(ctx, "SELECT length(value), CASE WHEN length(value) <= ? THEN value END FROM "+table+" WHERE key = ?", maxRowBytes, key).Scan(&n, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if err != nil {
		return dbError(err)
	}
	if !n.Valid {
		// A NULL value: Cursor leaves composerData:<id> rows NULL (16 of
		// 33 in a real 1.x database); nothing to read, nothing damaged.
		return sql.ErrNoRows
	}
	if err := ocCheckRow("its value", n, data); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("its value is not JSON (%v)", err)
	}
	return nil
}

// cursorWorkspaceFolder reads workspace.json beside a workspace database:
// the folder that workspace opens, or "" for the global database.
func cursorWorkspaceFolder(dir string) (string, error) {
	text, err := readSideFile(filepath.Join(dir, "workspace.json"))
	if err != nil || text == "" {
		return "", err
	}
	var ws struct {
		Folder    string `json:"folder"`
		Workspace string `json:"workspace"`
	}
	if json.Unmarshal([]byte(text), &ws) != nil {
		return "", nil // not the file Cursor writes: the folder stays unknown
	}
	if p := fileURIPath(ws.Folder); p != "" {
		return p, nil
	}
	return fileURIPath(ws.Workspace), nil
}

// cursorComposerFolders maps each composer a global database holds to its
// workspace's folder, from the workspace databases beside it
// (globalStorage/../workspaceStorage/<hash>/).
func cursorComposerFolders(ctx context.Context, global string) map[string]string {
	out := map[string]string{}
	root := filepath.Join(filepath.Dir(filepath.Dir(global)), "workspaceStorage")
	ents, err := os.ReadDir(root)
	if err != nil {
		return out
	}
	for i, e := range ents {
		if i >= cursorMaxWorkspaces || ctx.Err() != nil {
			break
		}
		dir := filepath.Join(root, e.Name())
		folder, err := cursorWorkspaceFolder(dir)
		if err != nil || folder == "" {
			continue
		}
		db, err := openForeignDB(ctx, filepath.Join(dir, "state.vscdb"))
		if err != nil {
			continue
		}
		var all struct {
			AllComposers []struct {
				ComposerID looseString `json:"composerId"`
			} `json:"allComposers"`
		}
		if cursorValue(ctx, db, "ItemTable", cursorComposerKey, &all) == nil {
			for _, c := range all.AllComposers {
				out[string(c.ComposerID)] = folder
			}
		}
		db.Close()
	}
	return out
}

// fileURIPath is the path of a file:// URI ("" for other schemes).
func fileURIPath(u string) string {
	u = strings.TrimSpace(u)
	if !strings.HasPrefix(u, "file://") {
		return ""
	}
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	p := pu.Path
	if len(p) > 2 && p[0] == '/' && p[2] == ':' { // file:///c:/src → c:/src
		p = p[1:]
	}
	return p
}

// ---- the agent's transcripts ----

// ParseCursorTranscript reads one agent transcript, .jsonl or the older
// .txt, named by its composer's id.
func ParseCursorTranscript(ctx context.Context, r io.Reader, name string, h Handler) error {
	id := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	_, parent := cursorTranscriptDirs(name)
	br := bufio.NewReaderSize(r, 64<<10)
	var turns []funes.Turn
	var st lineStats
	head, _ := br.Peek(1)
	if len(head) > 0 && head[0] == '{' {
		var err error
		st, err = readJSONLines(ctx, br, h.Progress, func(n int, line []byte) string {
			t, why := cursorJSONLTurn(line)
			if why == "" && len(t.Blocks) > 0 {
				t.TurnUUID = fmt.Sprintf("%s-%d", id, n)
				turns = append(turns, t)
			}
			return why
		})
		if err != nil {
			return err
		}
	} else {
		cr := &countReader{ctx: ctx, r: &utf8Reader{r: br}, progress: h.Progress, max: maxConversationBytes}
		data, err := io.ReadAll(cr)
		if err != nil {
			return fmt.Errorf("cannot read the transcript: %w", err)
		}
		turns = cursorTextTurns(id, string(data))
	}
	// A transcript's times are the <timestamp>s of the person's messages;
	// each reply takes its prompt's.
	var at time.Time
	for i := range turns {
		if turns[i].Role == funes.RoleUser {
			for _, b := range turns[i].Blocks {
				if ts := cursorSentAt(b.Text); !ts.IsZero() {
					at = ts
					break
				}
			}
		}
		turns[i].TS = at
	}
	// Tool results answer the call before them; they carry no name.
	name2 := ""
	for i := range turns {
		for j := range turns[i].Blocks {
			b := &turns[i].Blocks[j]
			switch {
			case b.Type == funes.BlockToolUse:
				name2 = b.ToolName
			case b.Type == funes.BlockToolResult && b.ToolName == "":
				b.ToolName = name2
			}
		}
	}
	if h.Lookup != nil && len(turns) > 0 {
		// The IDE's copy is known by its turns' ids, its bubbles'; a
		// transcript's are <id>-<line>.
		if stored, ok, err := h.Lookup.StoredSession(ctx, funes.HarnessCursor, id); err == nil && ok && len(stored.Turns) > 0 &&
			!strings.HasPrefix(stored.Turns[0].TurnUUID, id+"-") {
			// The IDE's copy stands for it (unchanged), with its times.
			return h.Session(stored)
		}
	}
	folder := cursorTranscriptFolder(name, turns)
	s := cursorSession(id, "", folder, turns)
	if s != nil {
		s.Project = repoProject(folder, "")
		if folder == "" {
			s.Project = cursorFolderGuess(name)
		}
		if parent != "" {
			s.Title = "Sub-agent: " + s.Title
		}
	}
	return st.emit(h, s)
}

// cursorJSONLTurn reads one line of a .jsonl transcript.
func cursorJSONLTurn(line []byte) (funes.Turn, string) {
	var rec struct {
		Role    looseString `json:"role"`
		Message *struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return funes.Turn{}, "not a JSON object"
	}
	if rec.Message == nil {
		// {type, status, error}: the agent stopped on an error.
		if e := rawText(rec.Error); !blank(e) {
			return funes.Turn{Role: funes.RoleSystem, Blocks: addBlock(nil, funes.BlockText, "Error: "+e, "")}, ""
		}
		return funes.Turn{}, ""
	}
	if rec.Role == "system" {
		return funes.Turn{}, "" // the agent's instructions, not kept (as Codex's are not)
	}
	t := funes.Turn{Role: funes.RoleUser}
	if rec.Role == "assistant" {
		t.Role = funes.RoleAssistant
	}
	nd := &ccNode{role: t.Role}
	(&ccParse{}).blocks(nd, rec.Message.Content)
	t.Role, t.Blocks = nd.role, nd.blocks
	return t, ""
}

var (
	cursorTurnLine = regexp.MustCompile(`(?m)^(user|assistant):[ \t]*$`)
	cursorMarker   = regexp.MustCompile(`(?m)^\[(Thinking|Tool call|Tool result)\][ \t]*`)
)

// cursorTextTurns parses a .txt transcript.
func cursorTextTurns(id string, text string) []funes.Turn {
	var turns []funes.Turn
	locs := cursorTurnLine.FindAllStringSubmatchIndex(text, -1)
	for i, loc := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		role := text[loc[2]:loc[3]]
		body := text[loc[1]:end]
		tid := fmt.Sprintf("%s-%d", id, i)
		if role == "user" {
			if bs := addBlock(nil, funes.BlockText, strings.Trim(body, "\n"), ""); len(bs) > 0 {
				turns = append(turns, funes.Turn{TurnUUID: tid, Role: funes.RoleUser, Blocks: bs})
			}
			continue
		}
		// An assistant section: text, with [Thinking], [Tool call] and
		// [Tool result] markers starting lines.
		cur := funes.Turn{TurnUUID: tid, Role: funes.RoleAssistant}
		seg := 0
		marks := cursorMarker.FindAllStringSubmatchIndex(body, -1)
		cur.Blocks = addBlock(cur.Blocks, funes.BlockText, strings.Trim(body[:firstIndex(marks, len(body))], "\n"), "")
		for j, m := range marks {
			mend := len(body)
			if j+1 < len(marks) {
				mend = marks[j+1][0]
			}
			kind, rest := body[m[2]:m[3]], strings.Trim(body[m[1]:mend], "\n")
			switch kind {
			case "Thinking":
				think, reply := cursorSplitThinking(rest)
				cur.Blocks = addBlock(cur.Blocks, funes.BlockThinking, think, "")
				cur.Blocks = addBlock(cur.Blocks, funes.BlockText, reply, "")
			case "Tool call":
				name, args, _ := strings.Cut(rest, "\n")
				cur.Blocks = append(cur.Blocks, funes.Block{Type: funes.BlockToolUse, Text: nonBlank(strings.Trim(args, "\n"), "{}"), ToolName: strings.TrimSpace(name)})
			case "Tool result":
				name, out, _ := strings.Cut(rest, "\n")
				if len(cur.Blocks) > 0 {
					turns = append(turns, cur)
				}
				seg++
				turns = append(turns, funes.Turn{TurnUUID: fmt.Sprintf("%s-r%d", tid, seg), Role: funes.RoleTool,
					Blocks: []funes.Block{{Type: funes.BlockToolResult, Text: nonBlank(strings.Trim(out, "\n"), "(no output)"), ToolName: strings.TrimSpace(name)}}})
				cur = funes.Turn{TurnUUID: fmt.Sprintf("%s-%d", tid, seg), Role: funes.RoleAssistant}
			}
		}
		if len(cur.Blocks) > 0 {
			turns = append(turns, cur)
		}
	}
	return turns
}

// cursorSplitThinking splits what follows a [Thinking] marker: the .txt
// writes the thinking ("**Title**", a blank line, its paragraphs), one
// line break, then the reply with no marker of its own, so the thinking
// ends at the first single line break (a real transcript's shape: the
// reply after it had been filed as thinking).
func cursorSplitThinking(rest string) (thinking, reply string) {
	for i := 0; i < len(rest); i++ {
		if rest[i] != '\n' {
			continue
		}
		if i+1 < len(rest) && rest[i+1] == '\n' {
			for i+1 < len(rest) && rest[i+1] == '\n' {
				i++ // a paragraph break inside the thinking
			}
			continue
		}
		return strings.TrimRight(rest[:i], "\n"), strings.Trim(rest[i+1:], "\n")
	}
	return rest, ""
}

func firstIndex(marks [][]int, def int) int {
	if len(marks) > 0 {
		return marks[0][0]
	}
	return def
}

func nonBlank(s, def string) string {
	if blank(s) {
		return def
	}
	return s
}

var absPath = regexp.MustCompile(`(?:/|[A-Za-z]:\\)[^\s"'<>|*?]+`)

// cursorTranscriptFolder finds the folder a transcript's project folder
// name encodes (projects/<folder with every / and . as ->/…): the longest
// prefix of an absolute path the transcript mentions that encodes to it.
// Only the file is read, so a re-import derives the same.
func cursorTranscriptFolder(name string, turns []funes.Turn) string {
	enc := cursorProjectDir(name)
	if enc == "" {
		return ""
	}
	best := ""
	for _, t := range turns {
		for _, b := range t.Blocks {
			for _, p := range absPath.FindAllString(b.Text, 50) {
				for q := p; len(q) > len(best); q = filepath.Dir(q) {
					if cursorEncode(q) == enc {
						best = q
						break
					}
					if q == filepath.Dir(q) {
						break
					}
				}
			}
		}
	}
	return best
}

// cursorTranscriptDirs finds, from a transcript's path, the
// agent-transcripts folder it is in and, for a sub-agent's
// (<composer>/subagents/<id>.jsonl), the composer it belongs to.
func cursorTranscriptDirs(name string) (transcripts, parent string) {
	dir := filepath.Dir(name)
	for i := 0; i < 3; i++ {
		if filepath.Base(dir) == "agent-transcripts" {
			return dir, parent
		}
		if filepath.Base(dir) == "subagents" {
			parent = filepath.Base(filepath.Dir(dir))
		}
		dir = filepath.Dir(dir)
	}
	return "", ""
}

// cursorProjectDir is the encoded folder a transcript lives under, or "".
func cursorProjectDir(name string) string {
	t, _ := cursorTranscriptDirs(name)
	if t == "" {
		return ""
	}
	return filepath.Base(filepath.Dir(t))
}

var cursorTimestamp = regexp.MustCompile(`<timestamp>([^<]{6,80})</timestamp>`)

// cursorSentAt reads the <timestamp> Cursor puts before a prompt: "Friday,
// May 8, 2026, 6:05 AM (UTC+5:30)", or "Wed Jul 1 2026 3:45 PM" (read as
// UTC: it names no zone).
func cursorSentAt(text string) time.Time {
	m := cursorTimestamp.FindStringSubmatch(text)
	if m == nil {
		return time.Time{}
	}
	v := strings.TrimSpace(m[1])
	loc := time.UTC
	if i := strings.LastIndex(v, "(UTC"); i > 0 && strings.HasSuffix(v, ")") {
		off := strings.TrimSuffix(v[i+4:], ")")
		v = strings.TrimSpace(v[:i])
		if off != "" {
			sign := 1
			switch off[0] {
			case '-':
				sign = -1
				off = off[1:]
			case '+':
				off = off[1:]
			}
			hh, mm, _ := strings.Cut(off, ":")
			h, err1 := strconv.Atoi(hh)
			mi := 0
			var err2 error
			if mm != "" {
				mi, err2 = strconv.Atoi(mm)
			}
			if err1 != nil || err2 != nil || h > 14 || mi > 59 {
				return time.Time{}
			}
			loc = time.FixedZone("", sign*(h*3600+mi*60))
		}
	}
	for _, layout := range []string{"Monday, Jan 2, 2006, 3:04 PM", "Mon Jan 2 2006 3:04 PM", "Monday, January 2, 2006, 3:04 PM"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// cursorEncode encodes a folder as Cursor names its project folder: every
// character that is not a letter or digit becomes '-', leading ones go.
func cursorEncode(p string) string {
	out := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return '-'
	}, p)
	return strings.TrimLeft(out, "-")
}

// cursorFolderGuess is a project from the encoded folder alone: its last
// dash-separated word (a guess: the encoding loses where names had dashes).
func cursorFolderGuess(name string) string {
	enc := cursorProjectDir(name)
	if i := strings.LastIndexByte(enc, '-'); i >= 0 {
		enc = enc[i+1:]
	}
	return enc
}

// looksLikeCursorTranscript reports the older .txt transcript by its
// opening: a "user:" line and the <user_query> Cursor wraps words in.
func looksLikeCursorTranscript(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	return bytes.HasPrefix(t, []byte("user:")) && bytes.Contains(t, []byte("<user_query>")) && utf8.Valid(head[:validPrefix(head)])
}
