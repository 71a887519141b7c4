package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/funes"
)

// seed adds every testdata file whose path contains one of subs, whole and
// cut short (a truncated export is the commonest damage).
func seed(f *testing.F, subs ...string) {
	filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() && (p == goldenDir || p == upgradeDir) {
			return fs.SkipDir
		}
		if err != nil || d.IsDir() {
			return nil
		}
		for _, s := range subs {
			if strings.Contains(p, s) {
				data, err := os.ReadFile(p)
				if err != nil {
					return nil
				}
				if len(data) > 64<<10 {
					data = data[:64<<10]
				}
				f.Add(data)
				f.Add(data[:len(data)/2])
				break
			}
		}
		return nil
	})
}

// fuzzParse runs a parser on arbitrary bytes: it may fail, but never panic,
// and whatever it yields keeps the session invariants.
func fuzzParse(t *testing.T, fn parseFunc, name string, data []byte) {
	err := fn(context.Background(), bytes.NewReader(data), name, Handler{
		Session: func(s *funes.Session) error {
			checkSession(t, s)
			for _, tu := range s.Turns {
				for _, b := range tu.Blocks {
					if !utf8.ValidString(b.Text) || !utf8.ValidString(b.ToolName) {
						t.Fatalf("session %s turn %d: text that is not UTF-8", s.ID, tu.Seq)
					}
				}
			}
			if _, err := funes.MarshalSession(s); err != nil {
				t.Fatalf("session %s does not encode: %v", s.ID, err)
			}
			return nil
		},
		Skip: func(what, why string) {
			if what == "" || why == "" {
				t.Fatalf("unnamed skip %q %q", what, why)
			}
		},
	})
	if err != nil && err.Error() == "" {
		t.Fatal("an error with no message")
	}
}

func FuzzChatGPT(f *testing.F) {
	seed(f, "chatgpt")
	f.Add([]byte(`{"conversations":[{"mapping":{"a":{"parent":"a","children":["a"],"message":{"content":{"parts":[{}]}}}},"current_node":"a","id":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, ParseChatGPT, "conversations.json", data) })
}

func FuzzClaude(f *testing.F) {
	seed(f, "claude/", "claude-2026", "claude-ai-conversation-api")
	f.Add([]byte(`[{"uuid":"u","chat_messages":[{"uuid":"a","parent_message_uuid":"b"},{"uuid":"b","parent_message_uuid":"a"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, ParseClaude, "conversations.json", data) })
}

func FuzzCodex(f *testing.F) {
	seed(f, "codex")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzParse(t, ParseCodex, "rollout-2026-01-01T00-00-00-0195a000-0000-7000-8000-000000000001.jsonl", data)
	})
}

func FuzzClaudeCode(f *testing.F) {
	seed(f, "claude-code", "claudecode")
	f.Add([]byte(`{"type":"user","uuid":"a","parentUuid":"b","message":{"content":"x"}}` + "\n" + `{"type":"user","uuid":"b","parentUuid":"a","message":{"content":"y"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzParse(t, ParseClaudeCode, "7d0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b.jsonl", data)
	})
}

// FuzzFunesJSONL, like its siblings, holds what the parser yields to the
// session invariants (fuzzParse), seeded with the golden outputs: every
// conversation the other parsers make, as funes jsonl.
func FuzzFunesJSONL(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","turn_uuid":"t","seq":0,"role":"user","harness":"codex","blocks":[{"block_type":"text","text":"hi"}]}`))
	f.Add([]byte(`{"session_id":"s","turn_uuid":"t","seq":0,"role":"user","harness":"codex","blocks":[{"block_type":"text","text":"hi"}]}` + "\n" +
		`{"session_id":"s","turn_uuid":"t","seq":0,"role":"assistant","harness":"codex","blocks":[]}`))
	filepath.WalkDir(goldenDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".funes.jsonl") {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil {
			data = data[:min(len(data), 64<<10)]
			f.Add(data)
			f.Add(data[:len(data)/2])
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, ParseFunesJSONL, "x.funes.jsonl", data) })
}

// FuzzDetect recognises arbitrary files (zips included) and parses what it
// recognises.
func FuzzDetect(f *testing.F) {
	seed(f, "")
	var zipped bytes.Buffer
	writeZipTo(&zipped, zipEnt{name: "conversations.json", data: []byte(`[{"mapping":{},"id":"x"}]`)}, zipEnt{name: "../x", data: []byte("[]")})
	f.Add(zipped.Bytes())
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "input")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ins, err := Detect(context.Background(), p)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error with no message")
			}
			return
		}
		for _, in := range ins {
			rc, err := in.Open()
			if err != nil {
				continue
			}
			fuzzParse(t, parsers[in.Format], in.Path, mustRead(t, rc))
			rc.Close()
		}
	})
}

// FuzzUnquote checks the fast string decoder against encoding/json: when it
// accepts a literal, it must agree.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\t\"q\"\\ \/"`, `"\u00e9\u20ac"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\udc00x"`, `"bad \x"`, `"é ✓"`, `"\u0000"`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want string
		if json.Unmarshal(data, &want) != nil {
			return
		}
		if got, ok := unquote(data); ok && got != want {
			t.Errorf("unquote(%q) = %q, json says %q", data, got, want)
		}
	})
}

func FuzzGeminiCLI(f *testing.F) {
	seed(f, "gemini-cli")
	f.Add([]byte(`{"sessionId":"s","projectHash":"h"}` + "\n" + `{"id":"a","type":"user","content":[{"functionResponse":{"id":"x"}}]}` + "\n" + `{"$rewindTo":"a"}` + "\n" + `{"$set":{"messages":[{"id":"b","type":"gemini","toolCalls":[{"id":"c","result":"r"}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzParse(t, ParseGeminiCLI, "session-2026-01-01T00-00-0195a000.jsonl", data)
	})
}

func FuzzCopilotCLI(f *testing.F) {
	seed(f, "copilot-cli")
	f.Add([]byte(`{"type":"assistant.message","id":"a","agentId":"x","data":{"toolRequests":[{"toolCallId":"t","name":"n","arguments":null}]}}` + "\n" + `{"type":"tool.execution_complete","id":"b","data":{"toolCallId":"t","result":{"content":[1]},"error":"e"}}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, ParseCopilotCLI, "events.jsonl", data) })
}

func FuzzOpenCodeExport(f *testing.F) {
	seed(f, "opencode/1.18/export-")
	f.Add([]byte(`{"info":{"id":"ses_1","revert":{"messageID":"m","partID":"p"}},"messages":[{"info":{"id":"m","role":"assistant"},"parts":[{"id":"p","type":"tool","state":{}},{"type":"file","url":"data:x"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, ParseOpenCodeExport, "export.json", data) })
}

// FuzzOpenCodeStorage parses a session file of the 1.1 tree with the
// sample's messages and parts beside it.
func FuzzOpenCodeStorage(f *testing.F) {
	seed(f, "opencode/1.1/storage/session/")
	path, _ := filepath.Abs(testdata(opencodeV1Main))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := ParseOpenCodeStorage(context.Background(), bytes.NewReader(data), path, Handler{Path: path,
			Session: func(s *funes.Session) error { checkSession(t, s); return nil }})
		if err != nil && err.Error() == "" {
			t.Fatal("an error with no message")
		}
	})
}

// FuzzOpenCodeDB opens damaged copies of the sample database: each is
// read or refused with a reason, never a panic.
func FuzzOpenCodeDB(f *testing.F) {
	data, err := os.ReadFile(testdata(opencodeDB))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "opencode.db")
		os.Remove(p + "-wal")
		os.Remove(p + "-shm")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		err := ParseOpenCodeDB(context.Background(), nil, p, Handler{Path: p,
			Session: func(s *funes.Session) error { checkSession(t, s); return nil }})
		if err != nil && err.Error() == "" {
			t.Fatal("an error with no message")
		}
	})
}

func FuzzCursorTranscript(f *testing.F) {
	seed(f, "cursor/projects")
	seed(f, "cursor-real/txt/projects")
	f.Add([]byte("user:\n<user_query>\nx\n</user_query>\nassistant:\n[Tool call] A\n[Tool result] A\n[Thinking]\n"))
	f.Add([]byte(`{"role":"user","message":{"content":"<timestamp>Monday, Sep 21, 2026, 9:14 AM (UTC+99:99)</timestamp>"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzParse(t, ParseCursorTranscript, "/h/.cursor/projects/home-a-src-x/agent-transcripts/6b7c8d9e.jsonl", data)
	})
}

// FuzzCursorDB opens damaged copies of the hand-made global database and
// of the real ones (a 1.x global database with NULL composer rows and
// prompts of images only, a 0.4x workspace's, a 3.7 global one, a 0.44
// global one with its conversations inline).
func FuzzCursorDB(f *testing.F) {
	for _, p := range []string{cursorGlobal, cursorRealGlobal, cursorRealWorkspace, cursorReal3x, cursorReal044} {
		data, err := os.ReadFile(testdata(p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	dir := filepath.Join(f.TempDir(), "globalStorage")
	os.MkdirAll(dir, 0o755)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "state.vscdb")
		os.Remove(p + "-wal")
		os.Remove(p + "-shm")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		err := ParseCursorDB(context.Background(), nil, p, Handler{Path: p,
			Session: func(s *funes.Session) error { checkSession(t, s); return nil }})
		if err != nil && err.Error() == "" {
			t.Fatal("an error with no message")
		}
	})
}
