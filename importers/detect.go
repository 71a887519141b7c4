package importers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Format names a kind of input Ireneo can import.
type Format string

// Formats recognised by Detect.
const (
	FormatChatGPT    Format = "chatgpt"     // ChatGPT conversations.json or a shard of it
	FormatClaude     Format = "claude"      // Claude.ai conversations.json or one API conversation
	FormatCodex      Format = "codex"       // a Codex CLI rollout
	FormatClaudeCode Format = "claude_code" // a Claude Code transcript
	FormatFunes      Format = "funes"       // funes jsonl
	FormatGeminiCLI  Format = "gemini_cli"  // a Gemini CLI session (JSONL, or the older whole JSON)
	FormatCopilotCLI Format = "copilot_cli" // a GitHub Copilot CLI events.jsonl
	FormatOpenCodeDB Format = "opencode_db" // opencode's SQLite database (1.2 on)
	FormatOpenCode   Format = "opencode"    // `opencode export` JSON
	FormatOpenCodeV1 Format = "opencode_v1" // a session of opencode's storage/ tree (1.1 and before)
	FormatCursorDB   Format = "cursor_db"   // a Cursor state.vscdb
	FormatCursor     Format = "cursor"      // a Cursor agent transcript (.jsonl, or the older .txt)

	formatEmpty Format = "empty" // sniffing only: an export with no conversations
)

var parsers = map[Format]parseFunc{
	FormatChatGPT:    ParseChatGPT,
	FormatClaude:     ParseClaude,
	FormatCodex:      ParseCodex,
	FormatClaudeCode: ParseClaudeCode,
	FormatFunes:      ParseFunesJSONL,
	FormatGeminiCLI:  ParseGeminiCLI,
	FormatCopilotCLI: ParseCopilotCLI,
	FormatOpenCodeDB: ParseOpenCodeDB,
	FormatOpenCode:   ParseOpenCodeExport,
	FormatOpenCodeV1: ParseOpenCodeStorage,
	FormatCursorDB:   ParseCursorDB,
	FormatCursor:     ParseCursorTranscript,
}

// Input is one importable file: a plain file, or an entry of an archive.
type Input struct {
	// Path names the input for people: a file path, or archive!/entry.
	Path   string
	Format Format
	Size   int64
	// Archive is the zip file this input is inside; "" for a plain file.
	// Run imports all inputs of one archive together, all or nothing.
	Archive string
	// Err is why this found file cannot be imported (unreadable, unsafe
	// archive); Format is then empty.
	Err error

	// Why says what the format was recognised by, for --detect.
	Why string

	file   string // the plain file to open
	entry  string // the archive entry to open
	inWalk bool   // found by walking a folder, not named by the person
}

// Open opens the input for reading.
func (in Input) Open() (io.ReadCloser, error) {
	if in.Archive != "" {
		return openZipEntry(in.Archive, in.entry)
	}
	return os.Open(in.file)
}

// sniffLimit caps how much of a file Detect reads to recognise it.
const sniffLimit = 1 << 20

// Detect finds what can be imported at path: a file (recognised by its
// content, not its name), a folder (walked recursively), or a zip archive
// (its entries recognised by content). An error means path itself cannot
// be used; problems with files found inside a folder come back as Inputs
// with Err set, and files that are not conversations are ignored.
func Detect(ctx context.Context, path string) ([]Input, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", unwrapPathErr(err))
	}
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			// A FIFO or device would block or never end.
			return nil, fmt.Errorf("cannot read: not a regular file (%s)", fi.Mode().Type())
		}
		return detectFile(path, fi, false)
	}
	var out []Input
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == path {
				return err
			}
			out = append(out, Input{Path: p, Err: fmt.Errorf("cannot read: %w", unwrapPathErr(err)), inWalk: true})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != path && (d.Name() == ".git" || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		fi, err := os.Stat(p) // follows a symlink to a file; walks never follow linked folders
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		ins, err := detectFile(p, fi, true)
		if err != nil {
			if !errors.Is(err, errUnknownFormat) && !errors.Is(err, errEmptyExport) {
				out = append(out, Input{Path: p, Err: err, inWalk: true})
			}
			return nil
		}
		out = append(out, ins...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read folder: %w", unwrapPathErr(err))
	}
	// Sessions before sub-agents: a sub-agent takes the project of the
	// session that spawned it, which must be stored by then. (A walk visits
	// <session>/subagents/ before <session>.jsonl.)
	sort.SliceStable(out, func(i, j int) bool { return !isSubagentFile(out[i]) && isSubagentFile(out[j]) })
	return out, nil
}

// isSubagentFile reports a Claude Code sub-agent transcript (agent-<id>.jsonl).
func isSubagentFile(in Input) bool {
	return in.Format == FormatClaudeCode && strings.HasPrefix(filepath.Base(in.Path), "agent-")
}

var (
	errUnknownFormat = errors.New("not a format Ireneo imports (a ChatGPT or Claude export, a Codex or Claude Code session, or funes jsonl)")
	errEmptyExport   = errors.New("empty export: no conversations in it")
)

func detectFile(path string, fi os.FileInfo, inWalk bool) ([]Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", unwrapPathErr(err))
	}
	head := make([]byte, 8)
	n, err := io.ReadFull(f, head)
	head = head[:n]
	f.Close()
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("cannot read: %w", unwrapPathErr(err))
	}
	for _, m := range zipMagic {
		if bytes.HasPrefix(head, []byte(m)) {
			return detectZip(path, inWalk)
		}
	}
	if bytes.HasPrefix(head, []byte(sqliteMagic[:len(head)])) && len(head) == 8 {
		format, why, err := sniffDB(path)
		if err != nil {
			return nil, err
		}
		return []Input{{Path: path, Format: format, Size: fi.Size(), file: path, inWalk: inWalk, Why: why}}, nil
	}
	f, err = os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", unwrapPathErr(err))
	}
	defer f.Close()
	format, why, err := sniff(f)
	if err != nil {
		return nil, err
	}
	return []Input{{Path: path, Format: format, Size: fi.Size(), file: path, inWalk: inWalk, Why: why}}, nil
}

func detectZip(path string, inWalk bool) ([]Input, error) {
	zr, err := openZip(path)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var out []Input
	empty, companion := false, false
	for _, f := range zr.File {
		if isCompanion(f.Name) {
			companion = true
		}
		if !worthReading(f) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, &errArchive{fmt.Sprintf("entry %q: %v", f.Name, err)}
		}
		er := &errRecorder{r: rc}
		format, why, err := sniff(er)
		rc.Close()
		if er.err != nil {
			// Damaged data is a broken export, not a file to pass over.
			return nil, &errArchive{fmt.Sprintf("entry %q: corrupt zip data: %v", f.Name, er.err)}
		}
		if errors.Is(err, errEmptyExport) {
			empty = true
		}
		if err != nil {
			continue // users.json, projects.json, memories.json, media: not conversations
		}
		out = append(out, Input{
			Path: path + "!/" + f.Name, Format: format, Size: int64(f.UncompressedSize64),
			Archive: path, entry: f.Name, inWalk: inWalk, Why: why,
		})
	}
	// Shards in name order, so conversations-000 comes before -001.
	sort.SliceStable(out, func(i, j int) bool { return out[i].entry < out[j].entry })
	switch {
	case len(out) > 0:
		return out, nil
	case empty:
		return nil, errEmptyExport
	case companion:
		// One part of a split export (Claude's projects or memories zip):
		// nothing to import, and nothing wrong.
		return nil, nil
	case inWalk:
		return nil, errUnknownFormat // some other zip in a folder: not ours
	}
	return nil, errors.New("no conversations found in the archive (not a ChatGPT or Claude export?)")
}

// isCompanion reports the files that come with a ChatGPT or Claude export
// beside its conversations.
func isCompanion(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(name, `\`, "/"))
	base := path.Base(n)
	switch base {
	case "users.json", "user.json", "projects.json", "memories.json", "message_feedback.json",
		"shared_conversations.json", "export_manifest.json", "user_settings.json", "model_comparisons.json":
		return true
	}
	return strings.HasPrefix(n, "projects/") && strings.HasSuffix(n, ".json") ||
		strings.HasPrefix(base, "manifest-") && strings.HasSuffix(base, ".json")
}

// sniff recognises a file from its first bytes: the keys of its first JSON
// object (or first line's), never its name.
func sniff(r io.Reader) (Format, string, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, sniffLimit), 64<<10)
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, []byte("\xff\xfe")), bytes.HasPrefix(head, []byte("\xfe\xff")):
		return "", "", errors.New("UTF-16 text; Ireneo reads UTF-8 (re-save the file as UTF-8)")
	case bytes.HasPrefix(head, []byte("\xef\xbb\xbf")):
		br.Discard(3)
	}
	// Skip leading white space and NUL padding.
	for {
		b, err := br.ReadByte()
		if err != nil {
			if len(head) > 0 && head[0] == 0 {
				return "", "", fmt.Errorf("%w; the file holds only NUL bytes", errUnknownFormat)
			}
			if len(head) == 0 {
				return "", "", errEmptyExport
			}
			return "", "", errUnknownFormat
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' && b != 0 {
			br.UnreadByte()
			break
		}
	}
	first, _ := br.Peek(1)
	switch first[0] {
	case '[':
		return sniffArray(br)
	case '{':
		return sniffObjects(br)
	case 'u':
		if head, _ := br.Peek(64 << 10); looksLikeCursorTranscript(head) {
			return FormatCursor, "a Cursor agent transcript (user: and <user_query>)", nil
		}
	}
	return "", "", errUnknownFormat
}

// sniffArray recognises an export that is a JSON list of conversations.
func sniffArray(r io.Reader) (Format, string, error) {
	dec := json.NewDecoder(r)
	dec.Token() // [
	if !dec.More() {
		if _, err := dec.Token(); err == nil {
			return "", "", errEmptyExport
		}
		return "", "", errUnknownFormat
	}
	t, err := dec.Token()
	if err != nil || t != json.Delim('{') {
		return "", "", errUnknownFormat
	}
	keys, _, _ := objectKeys(dec, nil)
	if f, why := classifyExport(keys); f != "" {
		return f, why, nil
	}
	return "", "", errUnknownFormat
}

// sniffObjects recognises a file starting with an object: a single JSON
// conversation, {"conversations":[…]}, or a JSONL transcript. Several
// lines are tried, since a transcript may open with records (snapshots,
// queue operations) that don't say whose they are.
func sniffObjects(br *bufio.Reader) (Format, string, error) {
	var buf []byte
	for tries := 0; tries < 50; tries++ {
		line, tooLong, err := readLine(br, &buf)
		line = bytes.Trim(line, "\x00 \t\r\n")
		if len(line) == 0 && !tooLong {
			if err != nil {
				break
			}
			continue
		}
		if !tooLong && json.Valid(line) {
			f, why := classifyObject(bytes.NewReader(line))
			if f == formatEmpty {
				return "", "", errEmptyExport
			}
			if f != "" {
				return f, why, nil
			}
		} else if tries == 0 {
			// Not one line of JSON: a pretty-printed document, or a line
			// longer than the sniff limit. Judge it by its opening keys.
			var rest io.Reader = br
			if tooLong {
				rest = strings.NewReader("")
			}
			f, why := classifyObject(io.MultiReader(bytes.NewReader(line), strings.NewReader("\n"), rest))
			if f == formatEmpty {
				return "", "", errEmptyExport
			}
			if f != "" {
				return f, why, nil
			}
			break
		}
		if err != nil {
			break
		}
	}
	return "", "", errUnknownFormat
}

// classifyObject recognises the JSON object r starts with by its keys
// (and, for {"conversations": […]}, the keys of the first conversation).
func classifyObject(r io.Reader) (Format, string) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", ""
	}
	keys, vals := map[string]bool{}, map[string]string{}
	complete := false
	for {
		if !dec.More() {
			complete = true
			break
		}
		kt, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := kt.(string)
		keys[key] = true
		if f, why := classifyExport(map[string]bool{key: true}); f != "" {
			return f, why
		}
		vt, err := dec.Token()
		if err != nil {
			break
		}
		d, isDelim := vt.(json.Delim)
		if key == "conversations" && d == '[' {
			if dec.More() {
				if t, err := dec.Token(); err == nil && t == json.Delim('{') {
					ck, _, _ := objectKeys(dec, nil)
					return classifyExport(ck)
				}
				return "", ""
			}
			return formatEmpty, ""
		}
		if s, ok := vt.(string); ok && (key == "type" || key == "record_type") {
			vals[key] = s
		}
		if isDelim && (d == '{' || d == '[') && !skipRest(dec) {
			break
		}
	}
	return classifyLine(keys, vals, complete)
}

// objectKeys reads the keys of the object the decoder is inside, skipping
// values without buffering them, until the object ends or the input does.
// For the keys named in want it returns their string values.
func objectKeys(dec *json.Decoder, want map[string]bool) (keys map[string]bool, vals map[string]string, complete bool) {
	keys, vals = map[string]bool{}, map[string]string{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return keys, vals, false
		}
		key, _ := kt.(string)
		keys[key] = true
		if want[key] {
			vt, err := dec.Token()
			if err != nil {
				return keys, vals, false
			}
			if s, ok := vt.(string); ok {
				vals[key] = s
				continue
			}
			if d, ok := vt.(json.Delim); ok && (d == '{' || d == '[') {
				if !skipRest(dec) {
					return keys, vals, false
				}
			}
			continue
		}
		if !skipValue(dec) {
			return keys, vals, false
		}
	}
	return keys, vals, true
}

// skipValue reads past one value token by token.
func skipValue(dec *json.Decoder) bool {
	t, err := dec.Token()
	if err != nil {
		return false
	}
	if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
		return skipRest(dec)
	}
	return true
}

// skipRest reads to the end of the container just opened.
func skipRest(dec *json.Decoder) bool {
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return true
}

// classifyExport recognises a conversation object of a JSON export.
func classifyExport(keys map[string]bool) (Format, string) {
	switch {
	case keys["mapping"] || keys["current_node"] || keys["conversation_template_id"] || keys["default_model_slug"]:
		return FormatChatGPT, "a ChatGPT conversation (mapping)"
	case keys["chat_messages"] || keys["current_leaf_message_uuid"]:
		return FormatClaude, "a Claude conversation (chat_messages)"
	}
	return "", ""
}

var (
	codexEnvelopeTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true}
	codexBareTypes     = map[string]bool{"message": true, "reasoning": true, "function_call": true, "function_call_output": true, "local_shell_call": true, "custom_tool_call": true}
	claudeCodeTypes    = map[string]bool{"user": true, "assistant": true, "summary": true, "file-history-snapshot": true, "system": true,
		"queue-operation": true, "custom-title": true, "progress": true, "attachment": true, "agent-name": true}
)

// classifyLine recognises one line of a JSONL transcript by its keys.
func classifyLine(keys map[string]bool, vals map[string]string, complete bool) (Format, string) {
	typ := vals["type"]
	switch {
	case keys["payload"] && codexEnvelopeTypes[typ]:
		return FormatCodex, "a Codex rollout (" + typ + " envelope)"
	case keys["session_id"] && (keys["turn_uuid"] || keys["blocks"]):
		return FormatFunes, "funes jsonl (session_id, turn_uuid)"
	case keys["sessionId"] && keys["projectHash"]:
		return FormatGeminiCLI, "a Gemini CLI session (sessionId, projectHash)"
	case keys["role"] && keys["message"] && typ == "" && !keys["uuid"]:
		return FormatCursor, "a Cursor agent transcript (role, message)"
	case keys["info"] && keys["messages"]:
		return FormatOpenCode, "an opencode export (info, messages)"
	case keys["id"] && keys["projectID"] && keys["directory"] && keys["time"]:
		return FormatOpenCodeV1, "an opencode session (storage/session)"
	case keys["sessionID"] && (keys["messageID"] || keys["role"]):
		return "", "" // an opencode message or part: read with its session
	case keys["data"] && keys["id"] && copilotEvent(typ):
		return FormatCopilotCLI, "a GitHub Copilot CLI session (" + typ + " event)"
	case len(keys) == 1 && (keys["$set"] || keys["$rewindTo"]):
		return FormatGeminiCLI, "a Gemini CLI session (a " + firstKey(keys) + " record)"
	case keys["sessionId"] || keys["parentUuid"] || keys["leafUuid"] || (typ != "" && claudeCodeTypes[typ] && !keys["payload"] && !keys["role"]):
		return FormatClaudeCode, "a Claude Code transcript (" + typ + " record)"
	case vals["record_type"] != "":
		return FormatCodex, "a legacy Codex rollout (record_type)"
	case complete && typ == "" && keys["id"] && keys["timestamp"] && (keys["instructions"] || keys["git"]):
		return FormatCodex, "a legacy Codex rollout (session header)"
	case codexBareTypes[typ] && !keys["uuid"]:
		return FormatCodex, "a legacy Codex rollout (bare " + typ + ")"
	}
	return "", ""
}

// sniffDB recognises another app's SQLite database by its tables (and,
// for Cursor's state.vscdb, its keys): the file is opened read-only.
func sniffDB(path string) (Format, string, error) {
	ctx := context.Background()
	db, err := openForeignDB(ctx, path)
	if err != nil {
		return "", "", err
	}
	defer db.Close()
	ts, err := tables(ctx, db)
	if err != nil {
		return "", "", err
	}
	switch {
	case ts["session"] && ts["message"] && ts["part"]:
		return FormatOpenCodeDB, "an opencode database (session, message, part)", nil
	case ts["cursorDiskKV"] || ts["ItemTable"]:
		// Every editor built on VS Code has an ItemTable; Cursor's hold its
		// conversations' keys.
		var n int
		if ts["cursorDiskKV"] {
			db.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM cursorDiskKV WHERE key LIKE 'composerData:%' LIMIT 1)").Scan(&n)
		}
		if n == 0 && ts["ItemTable"] {
			db.QueryRowContext(ctx, "SELECT count(*) FROM ItemTable WHERE key IN (?, ?)", cursorChatKey, cursorComposerKey).Scan(&n)
		}
		if n > 0 {
			return FormatCursorDB, "a Cursor state.vscdb (composers, chat tabs)", nil
		}
	}
	return "", "", errUnknownFormat
}

// copilotEvent reports an event type of Copilot CLI's events.jsonl.
func copilotEvent(typ string) bool {
	for _, p := range []string{"session.", "user.", "assistant.", "tool.", "subagent.", "hook.", "system."} {
		if strings.HasPrefix(typ, p) {
			return true
		}
	}
	return typ == "abort"
}

// firstKey is the one key of a one-key set.
func firstKey(keys map[string]bool) string {
	for k := range keys {
		return k
	}
	return ""
}

// unwrapPathErr drops the path from an *fs.PathError: the caller names the
// file already.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// errRecorder remembers the first read error other than EOF.
type errRecorder struct {
	r   io.Reader
	err error
}

func (e *errRecorder) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}
