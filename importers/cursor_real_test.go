package importers

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// testdata/cursor-real holds real Cursor databases from public
// repositories, reduced to a few conversations and with every human
// string rewritten (README: "real, reduced and redacted"); their keys,
// JSON fields, nesting, value types, order, versions and bubble counts
// are Cursor's own.
const (
	cursorReal044       = "cursor-real/2024-12-global/User/globalStorage/state.vscdb"
	cursorReal3x        = "cursor-real/2026-07-global/User/globalStorage/state.vscdb"
	cursorRealGlobal    = "cursor-real/2025-09-global/User/globalStorage/state.vscdb"
	cursorRealWorkspace = "cursor-real/2024-11-workspace/User/workspaceStorage/3f9c2a7e51d84b06a1e7c0d92b5f4e18/state.vscdb"
)

// expTurn is one turn a sample must yield: its role and the texts it must
// hold (each a bubble's words, a Lexical text node, an image mark, a tool
// name or result).
type expTurn struct {
	role  string
	holds []string
	at    time.Time // when set, the turn's time
}

// expConv is one conversation a sample must yield, read from the
// database by this test alone: from Cursor's JSON through generic maps,
// not through the importer's types.
type expConv struct {
	id     string
	turns  []expTurn
	absent []string // texts of bubbles no header names: a branch left behind
}

// realDB opens a sample read-only, for the test's own reading.
func realDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// realValue reads one key's JSON as generic values; nil for NULL or absent.
func realValue(t *testing.T, db *sql.DB, table, key string) map[string]any {
	t.Helper()
	var v sql.NullString
	err := db.QueryRow("SELECT value FROM "+table+" WHERE key = ?", key).Scan(&v)
	if err == sql.ErrNoRows || !v.Valid {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(v.String), &m); err != nil {
		t.Fatalf("%s %s: %v", table, key, err)
	}
	return m
}

func str(v any) string { s, _ := v.(string); return strings.TrimSpace(s) }

func list(v any) []any { l, _ := v.([]any); return l }

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }

// lexicalNodes are the non-blank text nodes of a Lexical editor state.
func lexicalNodes(rich string) []string {
	var root any
	if json.Unmarshal([]byte(rich), &root) != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		m := obj(v)
		if s := str(m["text"]); s != "" {
			out = append(out, s)
		}
		for _, k := range list(m["children"]) {
			walk(k)
		}
		if r, ok := m["root"]; ok {
			walk(r)
		}
	}
	walk(root)
	return out
}

// bubbleTurns is what one bubble must become: nothing for an empty one
// (the chat panel's unsent draft, a bubble with neither words nor
// images), a user or assistant turn with its texts, and for a tool call
// the call's turn and, when the call has a result or a status, a tool turn.
func bubbleTurns(b map[string]any) []expTurn {
	role := ""
	switch fmt.Sprint(b["type"]) {
	case "1", "user":
		role = funes.RoleUser
	case "2", "ai":
		role = funes.RoleAssistant
	}
	if role == "" {
		return nil
	}
	var holds []string
	if th := str(obj(b["thinking"])["text"]); th != "" {
		holds = append(holds, th)
	}
	if s := str(b["text"]); s != "" {
		holds = append(holds, s)
	} else if s := str(b["rawText"]); s != "" {
		holds = append(holds, s)
	} else {
		holds = append(holds, lexicalNodes(str(b["richText"]))...)
	}
	images := len(list(b["images"])) + len(list(b["selectedImages"])) + len(list(obj(b["context"])["selectedImages"]))
	for i := 0; i < images; i++ {
		holds = append(holds, "[image]")
	}
	tool := obj(b["toolFormerData"])
	if name := str(tool["name"]); name != "" {
		out := []expTurn{{role: role, holds: append(holds, name)}}
		// The call's result; a call with none but a status (3.x's
		// ripgrep_raw_search: "completed") is that status.
		if res := str(tool["result"]); res != "" {
			out = append(out, expTurn{role: funes.RoleTool, holds: []string{res}})
		} else if st := str(tool["status"]); st != "" {
			out = append(out, expTurn{role: funes.RoleTool, holds: []string{st}})
		}
		return out
	}
	if len(holds) == 0 {
		return nil
	}
	return []expTurn{{role: role, holds: holds}}
}

// expectGlobal reads a global database's composers as Cursor shows them:
// each composerData row's headers in order, each header's bubble from its
// own row (a NULL row is an emptied composer, no conversation).
func expectGlobal(t *testing.T, path string) []expConv {
	db := realDB(t, path)
	rows, err := db.Query("SELECT key FROM cursorDiskKV WHERE key LIKE 'composerData:%' ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for rows.Next() {
		var k string
		rows.Scan(&k)
		keys = append(keys, k)
	}
	rows.Close()
	var out []expConv
	for _, k := range keys {
		c := realValue(t, db, "cursorDiskKV", k)
		cid := strings.TrimPrefix(k, "composerData:")
		conv := expConv{id: cid}
		named := map[string]bool{}
		var bubbles []map[string]any
		for _, h := range list(c["fullConversationHeadersOnly"]) {
			bid := str(obj(h)["bubbleId"])
			named[bid] = true
			if b := realValue(t, db, "cursorDiskKV", "bubbleId:"+cid+":"+bid); b != nil {
				bubbles = append(bubbles, b)
			}
		}
		// Times: 1.x bubbles have no createdAt; a reply's timingInfo
		// has when its request was sent (the prompt's time) and when it
		// ended (the reply's), in epoch milliseconds.
		ms := func(b map[string]any, k string) time.Time {
			v, ok := obj(b["timingInfo"])[k].(float64)
			if !ok || v < 1e12 {
				return time.Time{}
			}
			return time.UnixMilli(int64(v)).UTC()
		}
		if len(bubbles) == 0 { // ≈0.43 to 0.44: the conversation inline
			for _, b := range list(c["conversation"]) {
				bubbles = append(bubbles, obj(b))
			}
		}
		for i, b := range bubbles {
			turns := bubbleTurns(b)
			if len(turns) > 0 && b["createdAt"] == nil {
				switch {
				case turns[0].role == funes.RoleAssistant:
					turns[0].at = ms(b, "clientEndTime")
				case i+1 < len(bubbles) && fmt.Sprint(bubbles[i+1]["type"]) == "2":
					turns[0].at = ms(bubbles[i+1], "clientRpcSendTime")
				}
			}
			conv.turns = append(conv.turns, turns...)
		}
		brows, err := db.Query("SELECT key FROM cursorDiskKV WHERE key LIKE ?", "bubbleId:"+cid+":%")
		if err != nil {
			t.Fatal(err)
		}
		var orphans []string
		for brows.Next() {
			var bk string
			brows.Scan(&bk)
			if !named[bk[strings.LastIndexByte(bk, ':')+1:]] {
				orphans = append(orphans, bk)
			}
		}
		brows.Close()
		for _, bk := range orphans {
			for _, e := range bubbleTurns(realValue(t, db, "cursorDiskKV", bk)) {
				for _, h := range e.holds {
					if len(h) >= 20 {
						conv.absent = append(conv.absent, h)
					}
				}
			}
		}
		if len(conv.turns) > 0 {
			out = append(out, conv)
		}
	}
	return out
}

// expectWorkspace reads a 0.4x workspace database: the chat panel's tabs
// and the composers whose conversation is inline.
func expectWorkspace(t *testing.T, path string) []expConv {
	db := realDB(t, path)
	var out []expConv
	for _, c := range list(realValue(t, db, "ItemTable", cursorComposerKey)["allComposers"]) {
		conv := expConv{id: str(obj(c)["composerId"])}
		for _, b := range list(obj(c)["conversation"]) {
			conv.turns = append(conv.turns, bubbleTurns(obj(b))...)
		}
		if len(conv.turns) > 0 {
			out = append(out, conv)
		}
	}
	for _, tab := range list(realValue(t, db, "ItemTable", cursorChatKey)["tabs"]) {
		conv := expConv{id: str(obj(tab)["tabId"])}
		for _, b := range list(obj(tab)["bubbles"]) {
			conv.turns = append(conv.turns, bubbleTurns(obj(b))...)
		}
		if len(conv.turns) > 0 {
			out = append(out, conv)
		}
	}
	return out
}

// importToFunes imports one database the way `import` does and reads the
// funes file it wrote back.
func importToFunes(t *testing.T, path string) []*funes.Session {
	t.Helper()
	p := parseFile(t, ParseCursorDB, path)
	if p.err != nil || len(p.skipped) > 0 {
		t.Fatalf("%s: err %v, skipped %v", path, p.err, p.skipped)
	}
	var buf bytes.Buffer
	for _, s := range p.sessions {
		if err := funes.WriteSession(&buf, s); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "cursor.funes.jsonl")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, _, err := funes.ReadSessions(f)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// checkNothingLost compares each expected conversation with the funes
// file's, turn by turn, and counts.
func checkNothingLost(t *testing.T, want []expConv, got []*funes.Session) (users, assistants, tools int) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d conversations in the funes file, want %d", len(got), len(want))
	}
	byID := map[string]*funes.Session{}
	for _, s := range got {
		byID[s.ID] = s
	}
	for _, c := range want {
		s := byID[c.id]
		if s == nil {
			t.Errorf("conversation %s missing", c.id)
			continue
		}
		if len(s.Turns) != len(c.turns) {
			t.Errorf("%s: %d turns, want %d: %s", c.id, len(s.Turns), len(c.turns), roleSeq(s))
		}
		for i := 0; i < len(s.Turns) && i < len(c.turns); i++ {
			turn, e := s.Turns[i], c.turns[i]
			var all strings.Builder
			for _, b := range turn.Blocks {
				all.WriteString(b.Text)
				all.WriteString(b.ToolName)
				all.WriteByte('\n')
			}
			if turn.Role != e.role {
				t.Errorf("%s turn %d: role %s, want %s", c.id, i, turn.Role, e.role)
			}
			if !e.at.IsZero() && !turn.TS.Equal(e.at) {
				t.Errorf("%s turn %d (%s): at %s, want %s", c.id, i, e.role, turn.TS, e.at)
			}
			if i > 0 && turn.TS.Before(s.Turns[i-1].TS) {
				t.Errorf("%s turn %d: at %s, before turn %d's %s", c.id, i, turn.TS, i-1, s.Turns[i-1].TS)
			}
			for _, h := range e.holds {
				if !strings.Contains(all.String(), h) {
					t.Errorf("%s turn %d (%s) lacks %.60q", c.id, i, e.role, h)
				}
			}
			if i > 0 && turn.Seq <= s.Turns[i-1].Seq {
				t.Errorf("%s turn %d: seq %d after %d", c.id, i, turn.Seq, s.Turns[i-1].Seq)
			}
			switch e.role {
			case funes.RoleUser:
				users++
			case funes.RoleAssistant:
				assistants++
			case funes.RoleTool:
				tools++
			}
		}
		for _, a := range c.absent {
			for _, turn := range s.Turns {
				for _, b := range turn.Blocks {
					if strings.Contains(b.Text, a) {
						t.Errorf("%s: a bubble no header names is in turn %d: %.60q", c.id, turn.Seq, a)
					}
				}
			}
		}
	}
	return
}

// A real 1.x global database (composer _v 9, bubbles _v 3, September
// 2025): every header's bubble is a turn of the funes file, in order,
// prompts of images only included, each at its time (the reply's
// timingInfo: no bubble has a createdAt); the NULL composerData rows and the
// empty composer are no conversation and no warning; the thirteen bubbles
// of a first attempt that the person stopped and re-ran (rows no header
// names, tool calls with their results) stay out, as Cursor shows them.
func TestCursorRealGlobalNothingLost(t *testing.T) {
	path := testdata(cursorRealGlobal)
	want := expectGlobal(t, path)
	users, assistants, tools := checkNothingLost(t, want, importToFunes(t, path))
	absent := 0
	for _, c := range want {
		absent += len(c.absent)
	}
	t.Logf("%d conversations: %d user, %d assistant, %d tool turns; %d texts of the abandoned attempt absent", len(want), users, assistants, tools, absent)
	// The sample's own figures, so a rewritten sample is noticed.
	if len(want) != 2 || users != 12 || assistants != 12 || tools != 0 || absent == 0 {
		t.Errorf("the sample changed: %d conversations, %d/%d/%d turns, %d absent", len(want), users, assistants, tools, absent)
	}
}

// A real 0.4x workspace database (November 2024): its three composers
// with the conversation inline and its two chat tabs, every bubble a
// turn in order (the tab's unsent, empty last bubble is none), in the
// workspace's folder.
func TestCursorRealWorkspaceNothingLost(t *testing.T) {
	path := testdata(cursorRealWorkspace)
	want := expectWorkspace(t, path)
	got := importToFunes(t, path)
	users, assistants, tools := checkNothingLost(t, want, got)
	t.Logf("%d conversations: %d user, %d assistant, %d tool turns", len(want), users, assistants, tools)
	if len(want) != 5 || users != 11 || assistants != 11 || tools != 0 {
		t.Errorf("the sample changed: %d conversations, %d/%d/%d turns", len(want), users, assistants, tools)
	}
	for _, s := range got {
		if s.Workdir != "/home/ana/src/ticket-triage" || s.Project != "ticket-triage" {
			t.Errorf("%s: workdir %q project %q", s.ID, s.Workdir, s.Project)
		}
	}
}

// `import --detect` finds the real databases where Cursor keeps them in a
// home folder (~/.config/Cursor/User on Linux) and the real transcript in
// ~/.cursor/projects, and what it finds imports as the samples do.
func TestCursorRealDetectedInHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("APPDATA", "")
	user := filepath.Join(home, ".config", "Cursor", "User")
	if dir, ok := cursorUserDirsFor(home); ok {
		user = dir
	}
	copyDir(t, testdata("cursor-real/2025-09-global/User"), user)
	copyDir(t, testdata("cursor-real/2024-11-workspace/User"), user)
	copyDir(t, testdata("cursor-real/txt/projects"), filepath.Join(home, ".cursor", "projects"))
	found := map[string]int{}
	for _, l := range DefaultLocations(Homes{}) {
		if l.What != WhatCursorIDE && l.What != WhatCursorWorkspaces && l.What != WhatCursorAgent {
			continue
		}
		ins, err := Detect(context.Background(), l.Path)
		if err != nil {
			t.Fatalf("%s: %v", l.Path, err)
		}
		for _, in := range ins {
			parse := ParseCursorDB
			if l.What == WhatCursorAgent {
				parse = ParseCursorTranscript
			}
			if in.Err != nil || (in.Format != FormatCursorDB) != (l.What == WhatCursorAgent) {
				t.Errorf("%s: %s %v", in.Path, in.Format, in.Err)
				continue
			}
			p := parseFile(t, parse, in.Path)
			if p.err != nil {
				t.Errorf("%s: %v", in.Path, p.err)
			}
			found[l.What] += len(p.sessions)
		}
	}
	if found[WhatCursorIDE] != 2 || found[WhatCursorWorkspaces] != 5 || found[WhatCursorAgent] != 1 {
		t.Errorf("found %v, want 2 conversations in %q, 5 in %q, 1 in %q", found, WhatCursorIDE, WhatCursorWorkspaces, WhatCursorAgent)
	}

	// A 3.x home and a 0.44 one: each global database is found and read,
	// its conversation in its workspace's folder; the workspace databases
	// hold none (3.x: settings only; 0.44: the list of its composers).
	for _, sample := range []string{"2026-07-global", "2024-12-global"} {
		h := t.TempDir()
		t.Setenv("HOME", h)
		u := filepath.Join(h, ".config", "Cursor", "User")
		if dir, ok := cursorUserDirsFor(h); ok {
			u = dir
		}
		copyDir(t, testdata("cursor-real/"+sample+"/User"), u)
		n := 0
		for _, l := range DefaultLocations(Homes{}) {
			if l.What != WhatCursorIDE && l.What != WhatCursorWorkspaces {
				continue
			}
			ins, err := Detect(context.Background(), l.Path)
			if err != nil {
				t.Fatalf("%s: %v", l.Path, err)
			}
			for _, in := range ins {
				if in.Format != FormatCursorDB || in.Err != nil {
					t.Errorf("%s: %s %s %v", sample, in.Path, in.Format, in.Err)
					continue
				}
				p := parseFile(t, ParseCursorDB, in.Path)
				for _, s := range p.sessions {
					if l.What != WhatCursorIDE || s.Workdir == "" {
						t.Errorf("%s: %s from %s in %q", sample, s.ID, l.What, s.Workdir)
					}
				}
				n += len(p.sessions)
			}
		}
		if n != 1 {
			t.Errorf("%s home: %d conversations, want 1", sample, n)
		}
	}
}

// cursorUserDirsFor is where this platform's Cursor keeps User/ (the first
// place DefaultLocations looks).
func cursorUserDirsFor(home string) (string, bool) {
	dirs := cursorUserDirs(home)
	if len(dirs) == 0 {
		return "", false
	}
	return dirs[0], true
}

// copyDir copies a folder of testdata into a fake home.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if fi.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

const cursorRealTxt = "cursor-real/txt/projects/Vxuta-ttvm-ezkdjc-fzuuat-zjd-Iqyvbei-qxsgbd-Kapedb-Hs/agent-transcripts/5d2e8c41-7a9b-4f63-b0e5-19c4a8d7f326.txt"

// expectTxt reads an older .txt transcript line by line, by itself: a
// "user:" section is a prompt; an "assistant:" section holds thinking,
// text and [Tool call]s, and each [Tool result] ends the assistant's turn
// so far and is a turn of its own (the .txt keeps only the result's tool
// name, no output).
func expectTxt(t *testing.T, path string) []expTurn {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []expTurn
	var cur *expTurn
	closeTurn := func() {
		if cur != nil && len(cur.holds) > 0 {
			out = append(out, *cur)
		}
		cur = nil
	}
	section := ""
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "user:" || line == "assistant:":
			closeTurn()
			section = strings.TrimSuffix(line, ":")
			cur = &expTurn{role: section}
		case strings.HasPrefix(line, "[Tool result]"):
			closeTurn()
			out = append(out, expTurn{role: funes.RoleTool, holds: []string{strings.TrimSpace(strings.TrimPrefix(line, "[Tool result]"))}})
			cur = &expTurn{role: section}
		case cur == nil:
		default:
			s := strings.TrimSpace(line)
			for _, m := range []string{"[Thinking]", "[Tool call]"} {
				s = strings.TrimSpace(strings.TrimPrefix(s, m))
			}
			if s != "" && s != "<user_query>" && s != "</user_query>" {
				cur.holds = append(cur.holds, s)
			}
		}
	}
	closeTurn()
	return out
}

// A real .txt agent transcript (Cursor's older layout): every prompt,
// every assistant step (thinking, text, the call's name and arguments)
// and every [Tool result] is a turn of the funes file, in order, and the
// project folder it lives under is found again among the paths it names.
func TestCursorRealTxtNothingLost(t *testing.T) {
	path := testdata(cursorRealTxt)
	want := expectTxt(t, path)
	p := parseFile(t, ParseCursorTranscript, path)
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	var buf bytes.Buffer
	if err := funes.WriteSession(&buf, p.sessions[0]); err != nil {
		t.Fatal(err)
	}
	got, _, err := funes.ReadSessions(&buf)
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %d", err, len(got))
	}
	conv := expConv{id: strings.TrimSuffix(filepath.Base(path), ".txt"), turns: want}
	users, assistants, tools := checkNothingLost(t, []expConv{conv}, got)
	t.Logf("%d user, %d assistant, %d tool turns", users, assistants, tools)
	if users != 2 || assistants != 9 || tools != 7 {
		t.Errorf("the sample changed: %d/%d/%d turns", users, assistants, tools)
	}
	// The fourth assistant step thinks, then answers: its reply is text,
	// not thinking.
	if tn := got[0].Turns[7]; tn.Role != funes.RoleAssistant || len(tn.Blocks) != 2 || tn.Blocks[0].Type != funes.BlockThinking ||
		tn.Blocks[1].Type != funes.BlockText || !strings.HasPrefix(tn.Blocks[1].Text, "Qrw xth fecmor vz cnupsbf.") ||
		!strings.HasSuffix(tn.Blocks[0].Text, "vaakuzgxno.") {
		t.Errorf("thinking then reply: %+v", tn.Blocks)
	}
	if s := got[0]; s.Workdir != "/Vxuta/ttvm.ezkdjc@fzuuat.zjd/Iqyvbei/qxsgbd/Kapedb-Hs" || s.Project != "Kapedb-Hs" {
		t.Errorf("workdir %q project %q", s.Workdir, s.Project)
	}
}

// The abandoned attempt's bubbles are real 1.x tool calls (toolFormerData
// with name, rawArgs, params, result, status, toolCallId): in a copy of
// the global sample whose headers name every bubble row in its order,
// each call is a turn and each result a tool turn after it, in order.
func TestCursorRealToolCalls(t *testing.T) {
	data, err := os.ReadFile(testdata(cursorRealGlobal))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "globalStorage", "state.vscdb")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%' AND value IS NOT NULL")
	if err != nil {
		t.Fatal(err)
	}
	composers := map[string]map[string]any{}
	for rows.Next() {
		var k, v string
		rows.Scan(&k, &v)
		var c map[string]any
		json.Unmarshal([]byte(v), &c)
		composers[k] = c
	}
	rows.Close()
	for k, c := range composers {
		cid := strings.TrimPrefix(k, "composerData:")
		brows, err := db.Query("SELECT key, value FROM cursorDiskKV WHERE key LIKE ? ORDER BY rowid", "bubbleId:"+cid+":%")
		if err != nil {
			t.Fatal(err)
		}
		var headers []any
		for brows.Next() {
			var bk, bv string
			brows.Scan(&bk, &bv)
			var b map[string]any
			json.Unmarshal([]byte(bv), &b)
			headers = append(headers, map[string]any{"bubbleId": bk[strings.LastIndexByte(bk, ':')+1:], "type": b["type"]})
		}
		brows.Close()
		c["fullConversationHeadersOnly"] = headers
		v, _ := json.Marshal(c)
		if _, err := db.Exec("UPDATE cursorDiskKV SET value = ? WHERE key = ?", string(v), k); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	want := expectGlobal(t, path)
	users, assistants, tools := checkNothingLost(t, want, importToFunes(t, path))
	t.Logf("every bubble row a header: %d user, %d assistant, %d tool turns", users, assistants, tools)
	if users != 12 || assistants != 24 || tools != 8 {
		t.Errorf("%d/%d/%d turns, want 12/24/8", users, assistants, tools)
	}
}

// A real 3.7 global database (composer _v 16, July 2026): 99 headers
// (grouping hints), bubbles with createdAt, thinking bubbles, tool calls
// of read_file_v2, edit_file_v2, run_terminal_command_v2, … with their
// results, some calls without one; every bubble a turn in order at its
// time; the NULL composer and the two empty ones are none. The
// workspace's database beside it lists no composer (3.x keeps the link in
// the composer's workspaceIdentifier), and the conversation still gets
// its folder.
func TestCursorReal3xNothingLost(t *testing.T) {
	path := testdata(cursorReal3x)
	want := expectGlobal(t, path)
	got := importToFunes(t, path)
	users, assistants, tools := checkNothingLost(t, want, got)
	t.Logf("%d conversations: %d user, %d assistant, %d tool turns", len(want), users, assistants, tools)
	if len(want) != 1 || users != 2 || assistants != 97 || tools != 75 {
		t.Errorf("the sample changed: %d conversations, %d/%d/%d turns", len(want), users, assistants, tools)
	}
	// The folder the composer names, as the workspace.json beside says.
	data, err := os.ReadFile(testdata("cursor-real/2026-07-global/User/workspaceStorage/67db7f0a86e6ee4a31fd884fea7568eb/workspace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ws struct{ Folder string }
	json.Unmarshal(data, &ws)
	folder := strings.TrimPrefix(ws.Folder, "file://")
	for _, s := range got {
		if s.Workdir != folder || s.Project != filepath.Base(folder) {
			t.Errorf("%s: workdir %q project %q, want %q", s.ID, s.Workdir, s.Project, folder)
		}
	}
}

// A real 0.44 global database (December 2024): composerData rows with
// the conversation inline (tool bubbles of that version hold no call, so
// they are no turn), three empty composers; the workspace database beside
// lists the composers it opened, and the conversation takes its folder.
func TestCursorReal044NothingLost(t *testing.T) {
	path := testdata(cursorReal044)
	want := expectGlobal(t, path)
	got := importToFunes(t, path)
	users, assistants, tools := checkNothingLost(t, want, got)
	t.Logf("%d conversations: %d user, %d assistant, %d tool turns", len(want), users, assistants, tools)
	if len(want) != 1 || users != 5 || assistants != 9 || tools != 0 {
		t.Errorf("the sample changed: %d conversations, %d/%d/%d turns", len(want), users, assistants, tools)
	}
	data, err := os.ReadFile(testdata("cursor-real/2024-12-global/User/workspaceStorage/8d41c0e7a95b3f26d1e04c7b9a2f5813/workspace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ws struct{ Folder string }
	json.Unmarshal(data, &ws)
	folder := strings.TrimPrefix(ws.Folder, "file://")
	for _, s := range got {
		if s.Workdir != folder {
			t.Errorf("%s: workdir %q, want %q", s.ID, s.Workdir, folder)
		}
	}
}
