package importers

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/funes"
)

// opencode keeps its sessions in three shapes, all of the same objects
// (Session.Info, Message and Part, as opencode's source names them):
//
//   - 1.2 on: one SQLite database, $XDG_DATA_HOME/opencode/opencode.db
//     (opencode-<channel>.db for other channels), tables session, message
//     and part, each row's JSON in data with its ids in columns. It runs in
//     WAL mode, and after opencode exits most of its data may still sit in
//     opencode.db-wal; it is read in place, read-only (sqlite.go).
//   - `opencode export <id>`: one session as {info, messages: [{info,
//     parts}]}.
//   - 1.1 and before: storage/session/<project>/<ses>.json, with
//     storage/message/<ses>/<msg>.json and storage/part/<msg>/<prt>.json
//     beside it; the session file is the input, and its messages and parts
//     are read from the tree.
//
// A message's parts become turns in their order: text and reasoning, and
// each tool part as a call closing the assistant's turn and its result (or
// error) as a turn of its own, so what came after a result stays after it.
// Synthetic text (what opencode adds to a prompt, such as an attached
// file's content) is kept as a result of opencode's, not the person's
// words. A session with parentID is a sub-agent (the task tool), titled
// "Sub-agent: …", in its parent's project. Messages after a revert point
// (an undo not yet redone) are left out, as opencode shows them.

type ocSession struct {
	ID        looseString `json:"id"`
	ProjectID looseString `json:"projectID"`
	ParentID  looseString `json:"parentID"`
	Directory looseString `json:"directory"`
	Title     looseString `json:"title"`
	Version   looseString `json:"version"`
	Time      struct {
		Created flexTime `json:"created"`
	} `json:"time"`
	Revert *struct {
		MessageID looseString `json:"messageID"`
		PartID    looseString `json:"partID"`
	} `json:"revert"`
}

type ocMessage struct {
	ID   looseString `json:"id"`
	Role looseString `json:"role"`
	Time struct {
		Created flexTime `json:"created"`
	} `json:"time"`
	Path *struct {
		Cwd  looseString `json:"cwd"`
		Root looseString `json:"root"`
	} `json:"path"`
	Error *struct {
		Name looseString `json:"name"`
		Data struct {
			Message looseString `json:"message"`
		} `json:"data"`
	} `json:"error"`
	parts []ocPart
}

type ocPart struct {
	ID        looseString `json:"id"`
	Type      looseString `json:"type"`
	Text      looseString `json:"text"`
	Synthetic looseBool   `json:"synthetic"`
	Time      struct {
		Start flexTime `json:"start"`
	} `json:"time"`
	Tool   looseString `json:"tool"`
	CallID looseString `json:"callID"`
	State  *struct {
		Status looseString     `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output json.RawMessage `json:"output"`
		Error  looseString     `json:"error"`
		Time   struct {
			Start flexTime `json:"start"`
			End   flexTime `json:"end"`
		} `json:"time"`
	} `json:"state"`
	Filename    looseString `json:"filename"`
	Mime        looseString `json:"mime"`
	URL         looseString `json:"url"`
	Name        looseString `json:"name"`
	Prompt      looseString `json:"prompt"`
	Description looseString `json:"description"`
	Agent       looseString `json:"agent"`
}

// ocBuild turns one session's objects into a conversation, or nil.
func ocBuild(ctx context.Context, info ocSession, msgs []ocMessage, worktree string, look Lookup) *funes.Session {
	s := &funes.Session{ID: strings.TrimSpace(string(info.ID)), Harness: funes.HarnessOpenCode, Workdir: strings.TrimSpace(string(info.Directory))}
	if s.ID == "" {
		return nil
	}
	// A revert point hides what follows it until it is redone.
	if rv := info.Revert; rv != nil && rv.MessageID != "" {
		for i, m := range msgs {
			if m.ID != rv.MessageID {
				continue
			}
			if rv.PartID == "" {
				msgs = msgs[:i]
				break
			}
			for j, pt := range m.parts {
				if pt.ID == rv.PartID {
					msgs[i].parts = m.parts[:j]
					break
				}
			}
			msgs = msgs[:i+1]
			break
		}
	}
	last := info.Time.Created.Time
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
	for _, m := range msgs {
		if s.Workdir == "" && m.Path != nil {
			s.Workdir = strings.TrimSpace(string(m.Path.Cwd))
		}
		role := funes.RoleUser
		if m.Role == "assistant" {
			role = funes.RoleAssistant
		}
		cur := funes.Turn{TurnUUID: string(m.ID), TS: m.Time.Created.Time, Role: role}
		segment := 0
		flush := func() {
			add(cur)
			segment++
			cur = funes.Turn{TurnUUID: fmt.Sprintf("%s-%d", m.ID, segment), Role: role}
		}
		for _, pt := range m.parts {
			if cur.TS.IsZero() {
				cur.TS = pt.Time.Start.Time
			}
			switch pt.Type {
			case "text":
				if pt.Synthetic {
					cur.Blocks = addBlock(cur.Blocks, funes.BlockToolResult, string(pt.Text), "opencode")
				} else {
					cur.Blocks = addBlock(cur.Blocks, funes.BlockText, string(pt.Text), "")
				}
			case "reasoning":
				cur.Blocks = addBlock(cur.Blocks, funes.BlockThinking, string(pt.Text), "")
			case "file":
				what := strings.TrimSpace(string(pt.Filename))
				if what == "" && !strings.HasPrefix(string(pt.URL), "data:") {
					what = strings.TrimSpace(string(pt.URL))
				}
				cur.Blocks = append(cur.Blocks, funes.Block{Type: funes.BlockText, Text: mediaPlaceholder(string(pt.Mime), what)})
			case "agent":
				cur.Blocks = addBlock(cur.Blocks, funes.BlockText, "@"+strings.TrimSpace(string(pt.Name)), "")
			case "subtask":
				cur.Blocks = addBlock(cur.Blocks, funes.BlockText, joinNonBlank("\n\n", string(pt.Description), string(pt.Prompt)), "")
			case "tool":
				if pt.State == nil {
					continue
				}
				if cur.TS.IsZero() {
					cur.TS = pt.State.Time.Start.Time
				}
				cur.Blocks = append(cur.Blocks, toolUseBlock(string(pt.Tool), pt.State.Input))
				flush()
				out := rawText(pt.State.Output)
				switch {
				case !blank(out):
				case !blank(string(pt.State.Error)):
					out = "Error: " + string(pt.State.Error)
				case pt.State.Status != "" && pt.State.Status != "completed":
					out = "(" + string(pt.State.Status) + ")"
				default:
					out = "(no output)"
				}
				add(funes.Turn{TurnUUID: string(pt.ID), TS: pt.State.Time.End.Time, Role: funes.RoleTool,
					Blocks: []funes.Block{{Type: funes.BlockToolResult, Text: out, ToolName: string(pt.Tool)}}})
			}
			// step-start, step-finish, snapshot, patch, retry, compaction:
			// bookkeeping, not conversation.
		}
		if m.Error != nil {
			msg := joinNonBlank(": ", string(m.Error.Name), string(m.Error.Data.Message))
			if msg != "" {
				cur.Blocks = addBlock(cur.Blocks, funes.BlockText, "Error: "+msg, "")
			}
		}
		add(cur)
	}
	if len(s.Turns) == 0 {
		return nil
	}
	// A turn of synthetic parts only is opencode speaking.
	for i := range s.Turns {
		t := &s.Turns[i]
		if t.Role != funes.RoleUser {
			continue
		}
		all := true
		for _, b := range t.Blocks {
			all = all && b.Type == funes.BlockToolResult
		}
		if all {
			t.Role = funes.RoleTool
		}
	}
	dedupeTurnIDs(s)
	number(s)
	root := s.Workdir
	if w := strings.TrimSpace(worktree); w != "" && w != "/" {
		root = w
	}
	s.Project = repoProject(root, "")
	title := strings.TrimSpace(string(info.Title))
	if title == "" || strings.HasPrefix(title, "New session - ") || strings.HasPrefix(title, "Child session - ") {
		title = titleFrom(s.Turns)
	}
	s.Title = firstWords(title)
	if parent := strings.TrimSpace(string(info.ParentID)); parent != "" {
		s.Title = "Sub-agent: " + s.Title
		if look != nil {
			if proj, ok, err := look.Project(ctx, funes.HarnessOpenCode, parent); err == nil && ok {
				s.Project = proj
			}
		}
	}
	return s
}

// ParseOpenCodeExport reads what `opencode export` prints: one session.
func ParseOpenCodeExport(ctx context.Context, r io.Reader, name string, h Handler) error {
	dec, cr := newJSONInput(ctx, r, h.Progress)
	var doc struct {
		Info     ocSession `json:"info"`
		Messages []struct {
			Info  json.RawMessage   `json:"info"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"messages"`
	}
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("not an opencode export: %w", jsonError(err, dec, cr))
	}
	var msgs []ocMessage
	for _, m := range doc.Messages {
		var om ocMessage
		if json.Unmarshal(m.Info, &om) != nil {
			continue
		}
		for _, raw := range m.Parts {
			var pt ocPart
			if json.Unmarshal(raw, &pt) == nil {
				om.parts = append(om.parts, pt)
			}
		}
		msgs = append(msgs, om)
	}
	var st lineStats
	return st.emit(h, ocBuild(ctx, doc.Info, msgs, "", h.Lookup))
}

// ParseOpenCodeStorage reads a session of opencode's older storage/ tree:
// the session's own file is the input, its messages and parts the files
// the tree keeps for it.
func ParseOpenCodeStorage(ctx context.Context, r io.Reader, name string, h Handler) error {
	var info ocSession
	data, err := io.ReadAll(io.LimitReader(r, maxSideFile+1))
	if err != nil {
		return fmt.Errorf("cannot read: %w", err)
	}
	if err := json.Unmarshal(data, &info); err != nil || info.ID == "" {
		return errors.New("not an opencode session file")
	}
	if h.Path == "" {
		return errors.New("an opencode storage session read from inside an archive: extract the archive, its messages are files beside it")
	}
	// storage/session/<project>/<ses>.json
	root := filepath.Dir(filepath.Dir(filepath.Dir(h.Path)))
	var msgs []ocMessage
	files, err := ocJSONFiles(filepath.Join(root, "message", string(info.ID)))
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		var m ocMessage
		if err := readJSONFile(f, &m); err != nil {
			return err
		}
		pfiles, err := ocJSONFiles(filepath.Join(root, "part", string(m.ID)))
		if err != nil {
			return err
		}
		for _, pf := range pfiles {
			var pt ocPart
			if err := readJSONFile(pf, &pt); err != nil {
				return err
			}
			m.parts = append(m.parts, pt)
		}
		msgs = append(msgs, m)
	}
	// Ids sort in time order (opencode makes them so); creation times break
	// nothing when they agree.
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].ID < msgs[j].ID })
	var proj struct {
		Worktree looseString `json:"worktree"`
	}
	if info.ProjectID != "" {
		readJSONFile(filepath.Join(root, "project", string(info.ProjectID)+".json"), &proj)
	}
	var st lineStats
	return st.emit(h, ocBuild(ctx, info, msgs, string(proj.Worktree), h.Lookup))
}

// ocJSONFiles lists a storage folder's .json files by name (ids sort in
// time order); a missing folder holds none.
func ocJSONFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, unwrapPathErr(err))
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// readJSONFile decodes one of the tree's small files, naming it on error.
func readJSONFile(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPathErr(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRowBytes+1))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > maxRowBytes {
		return fmt.Errorf("%s: larger than %s", path, byteSize(maxRowBytes))
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("%s: not UTF-8 text", path)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: not the JSON opencode writes (%v)", path, err)
	}
	return nil
}

// ParseOpenCodeDB reads every session of an opencode database. A session
// whose rows cannot be read (too large, not UTF-8, not JSON) is left out
// and named; a database that cannot be read at all changes nothing.
func ParseOpenCodeDB(ctx context.Context, _ io.Reader, name string, h Handler) error {
	if h.Path == "" {
		return errors.New("an opencode database inside an archive: extract it first")
	}
	db, err := openForeignDB(ctx, h.Path)
	if err != nil {
		return err
	}
	defer db.Close()
	worktrees := map[string]string{}
	if rows, err := db.QueryContext(ctx, "SELECT id, worktree FROM project"); err == nil {
		for rows.Next() {
			var id, wt sql.NullString
			if rows.Scan(&id, &wt) == nil {
				worktrees[id.String] = wt.String
			}
		}
		rows.Close()
	}
	// Parents before their sub-agents, for the sub-agents' project.
	rows, err := db.QueryContext(ctx, `SELECT id, project_id FROM session ORDER BY parent_id IS NOT NULL, time_created, id`)
	if err != nil {
		return ocSessionsError(ctx, db, err)
	}
	type ref struct{ id, project string }
	var refs []ref
	for rows.Next() {
		var id, project sql.NullString
		if err := rows.Scan(&id, &project); err != nil {
			rows.Close()
			return dbError(err)
		}
		refs = append(refs, ref{id.String, project.String})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return dbError(err)
	}
	found, skipped, firstSkip := 0, 0, ""
	for i, r := range refs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if h.Progress != nil {
			h.Progress(int64(i))
		}
		info, msgs, err := ocReadSession(ctx, db, r.id)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			h.skip("session "+r.id, err.Error())
			if skipped == 0 {
				firstSkip = r.id + ": " + err.Error()
			}
			skipped++
			continue
		}
		s := ocBuild(ctx, info, msgs, worktrees[r.project], h.Lookup)
		if s == nil {
			continue
		}
		found++
		if err := h.Session(s); err != nil {
			return err
		}
	}
	if found == 0 && skipped > 0 {
		return &errWrongShape{msg: fmt.Sprintf("no readable opencode session in %d (first: %s)", skipped, firstSkip), allSkipped: true}
	}
	if found == 0 {
		return errNoConversation
	}
	return nil
}

// ocSessionsError explains a database without opencode's session table.
func ocSessionsError(ctx context.Context, db *sql.DB, err error) error {
	if ts, terr := tables(ctx, db); terr == nil && !ts["session"] {
		return errors.New("not an opencode database (no session table)")
	}
	return dbError(err)
}

// ocReadSession reads one session's rows, each checked for size and
// encoding before it is decoded.
func ocReadSession(ctx context.Context, db *sql.DB, id string) (ocSession, []ocMessage, error) {
	var info ocSession
	row, err := ocSessionColumns(ctx, db, id)
	if err != nil {
		return info, nil, err
	}
	if err := json.Unmarshal(row, &info); err != nil {
		return info, nil, fmt.Errorf("its row is not JSON (%v)", err)
	}
	info.ID = looseString(id)
	mrows, err := db.QueryContext(ctx, `SELECT id, length(data), CASE WHEN length(data) <= ? THEN data END FROM message WHERE session_id = ? ORDER BY time_created, id`, maxRowBytes, id)
	if err != nil {
		return info, nil, dbError(err)
	}
	var msgs []ocMessage
	for mrows.Next() {
		var mid string
		var n sql.NullInt64
		var data []byte
		if err := mrows.Scan(&mid, &n, &data); err != nil {
			mrows.Close()
			return info, nil, dbError(err)
		}
		if err := ocCheckRow("message "+mid, n, data); err != nil {
			mrows.Close()
			return info, nil, err
		}
		var m ocMessage
		if err := json.Unmarshal(data, &m); err != nil {
			mrows.Close()
			return info, nil, fmt.Errorf("message %s is not JSON (%v)", mid, err)
		}
		m.ID = looseString(mid)
		msgs = append(msgs, m)
	}
	mrows.Close()
	if err := mrows.Err(); err != nil {
		return info, nil, dbError(err)
	}
	at := map[string]int{}
	for i, m := range msgs {
		at[string(m.ID)] = i
	}
	prows, err := db.QueryContext(ctx, `SELECT id, message_id, length(data), CASE WHEN length(data) <= ? THEN data END FROM part WHERE session_id = ? ORDER BY message_id, id`, maxRowBytes, id)
	if err != nil {
		return info, nil, dbError(err)
	}
	defer prows.Close()
	for prows.Next() {
		var pid, mid string
		var n sql.NullInt64
		var data []byte
		if err := prows.Scan(&pid, &mid, &n, &data); err != nil {
			return info, nil, dbError(err)
		}
		if err := ocCheckRow("part "+pid, n, data); err != nil {
			return info, nil, err
		}
		i, ok := at[mid]
		if !ok {
			continue // a part whose message is gone
		}
		var pt ocPart
		if err := json.Unmarshal(data, &pt); err != nil {
			return info, nil, fmt.Errorf("part %s is not JSON (%v)", pid, err)
		}
		pt.ID = looseString(pid)
		msgs[i].parts = append(msgs[i].parts, pt)
	}
	return info, msgs, dbError(prows.Err())
}

// ocSessionColumns is a session row (its fields are columns, unlike a
// message's or a part's) as the JSON of opencode's Session.Info.
func ocSessionColumns(ctx context.Context, db *sql.DB, id string) ([]byte, error) {
	var project, parent, dir, title, version, revert sql.NullString
	var created sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT project_id, parent_id, directory, title, version, revert, time_created FROM session WHERE id = ?`, id).
		Scan(&project, &parent, &dir, &title, &version, &revert, &created)
	if err != nil {
		return nil, dbError(err)
	}
	for _, s := range []sql.NullString{project, parent, dir, title, version, revert} {
		if !utf8.ValidString(s.String) {
			return nil, errors.New("its row is not UTF-8 text")
		}
	}
	m := map[string]any{"projectID": project.String, "parentID": parent.String, "directory": dir.String,
		"title": title.String, "version": version.String, "time": map[string]any{"created": created.Int64}}
	if revert.Valid && json.Valid([]byte(revert.String)) {
		m["revert"] = json.RawMessage(revert.String)
	}
	return json.Marshal(m)
}

// ocCheckRow refuses a row too large to be a conversation's, or one whose
// text is not UTF-8.
func ocCheckRow(what string, n sql.NullInt64, data []byte) error {
	switch {
	case n.Int64 > maxRowBytes:
		return fmt.Errorf("%s is %s, larger than the %s a row may be", what, byteSize(n.Int64), byteSize(maxRowBytes))
	case data == nil:
		return fmt.Errorf("%s has no data", what)
	case !utf8.Valid(data):
		return fmt.Errorf("%s is not UTF-8 text", what)
	}
	return nil
}
