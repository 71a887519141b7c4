package importers

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// zipEnt is one entry of a test archive.
type zipEnt struct {
	name string
	data []byte
	mode os.FileMode // 0: a regular file
}

func file(name, path string) zipEnt {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return zipEnt{name: name, data: data}
}

func writeZip(t testing.TB, path string, ents ...zipEnt) string {
	t.Helper()
	var buf bytes.Buffer
	if err := writeZipTo(&buf, ents...); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func formats(ins []Input) map[string]Format {
	out := map[string]Format{}
	for _, in := range ins {
		out[in.Path] = in.Format
	}
	return out
}

func TestDetectByContent(t *testing.T) {
	dir := t.TempDir()
	// Names that lie: only the content counts.
	cases := map[string]struct {
		src  string
		want Format
	}{
		"notes.txt":      {testdata("chatgpt", "conversations.json"), FormatChatGPT},
		"chatgpt.json":   {testdata("claude", "conversations.json"), FormatClaude},
		"one.dat":        {testdata("real", "claude-ai-conversation-api", "claude-bakery-chat.json"), FormatClaude},
		"session.json":   {codexFile("2026/03/01/rollout-2026-03-01T10-00-00-0195a000-0000-7000-8000-000000000001.jsonl"), FormatCodex},
		"legacy":         {codexFile("2025/08/11/rollout-2025-08-11T09-00-00-5f1c2d3e-0000-4000-8000-000000000003.jsonl"), FormatCodex},
		"paginated.log":  {codexFile("2026/03/01/rollout-2026-03-01T13-00-00-0195a000-0000-7000-8000-000000000002.jsonl"), FormatCodex},
		"rollout-x.json": {testdata("claudecode", "projects", "-home-ana-llama-cpp", "7d0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b.jsonl"), FormatClaudeCode},
		"snapshots":      {testdata("claudecode", "projects", "-home-ana-llama-cpp", "0a0b0c0d-0000-4000-8000-00000000000e.jsonl"), FormatClaudeCode},
		"shard":          {testdata("chatgpt-sharded", "conversations-000.json"), FormatChatGPT},
	}
	for name, c := range cases {
		data, _ := os.ReadFile(c.src)
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		ins, err := Detect(context.Background(), p)
		if err != nil || len(ins) != 1 || ins[0].Format != c.want {
			t.Errorf("%s: %v %+v, want %s", name, err, ins, c.want)
		}
	}
	// funes jsonl, as Ireneo writes it.
	p := filepath.Join(dir, "memory.txt")
	os.WriteFile(p, []byte(`{"session_id":"s","turn_uuid":"t","seq":0,"role":"user","harness":"codex","blocks":[{"block_type":"text","text":"hi"}]}`+"\n"), 0o644)
	if ins, err := Detect(context.Background(), p); err != nil || ins[0].Format != FormatFunes {
		t.Errorf("funes: %v %+v", err, ins)
	}
	// A single conversation, pretty-printed, and {"conversations": [...]}.
	p = filepath.Join(dir, "wrapped")
	os.WriteFile(p, []byte("{\n  \"version\": 1,\n  \"conversations\": [\n    {\"uuid\": \"x\", \"chat_messages\": []}\n  ]\n}\n"), 0o644)
	if ins, err := Detect(context.Background(), p); err != nil || ins[0].Format != FormatClaude {
		t.Errorf("wrapped: %v %+v", err, ins)
	}
}

func TestDetectRejects(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		data string
		want string
	}{
		"empty":       {"", "empty export"},
		"empty list":  {" [ ] ", "empty export"},
		"empty obj":   {`{"conversations":[]}`, "empty export"},
		"projects":    {`[{"uuid":"p","name":"Catalog","docs":[]}]`, "not a format Ireneo imports"},
		"memories":    {`{"conversations_memory":"x"}`, "not a format Ireneo imports"},
		"text":        {"hello world\n", "not a format Ireneo imports"},
		"nul":         {"\x00\x00\x00\x00", "only NUL bytes"},
		"utf16":       {"\xff\xfe[\x00{\x00", "UTF-16"},
		"numbers":     {"[1,2,3]", "not a format Ireneo imports"},
		"other jsonl": {`{"level":"info","msg":"x"}` + "\n" + `{"level":"warn"}` + "\n", "not a format Ireneo imports"},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(c.data), 0o644)
		_, err := Detect(context.Background(), p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
	if _, err := Detect(context.Background(), filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing: %v", err)
	}
}

func TestDetectFolder(t *testing.T) {
	var ins []Input
	var err error
	for _, dir := range fixtureDirs(t) {
		var more []Input
		if more, err = Detect(context.Background(), dir); err != nil {
			break
		}
		ins = append(ins, more...)
	}
	if err != nil {
		t.Fatal(err)
	}
	got := formats(ins)
	want := map[string]Format{
		"testdata/chatgpt/conversations.json":                              FormatChatGPT,
		"testdata/chatgpt-sharded/conversations-000.json":                  FormatChatGPT,
		"testdata/chatgpt-sharded/conversations-001.json":                  FormatChatGPT,
		"testdata/claude/conversations.json":                               FormatClaude,
		"testdata/claude-2026/conversations.json":                          FormatClaude,
		"testdata/real/claude-ai-conversation-api/claude-bakery-chat.json": FormatClaude,
	}
	for p, f := range want {
		if got[p] != f {
			t.Errorf("%s: %q, want %q", p, got[p], f)
		}
	}
	count := map[Format]int{}
	for _, in := range ins {
		if in.Err != nil {
			t.Errorf("%s: %v", in.Path, in.Err)
		}
		count[in.Format]++
	}
	// README.md, users.json, projects.json, memories.json, the manifest and
	// the index are not conversations, and are silently left alone.
	// opencode's messages and parts, Copilot CLI's workspace.yaml, Gemini
	// CLI's .project_root, Cursor's workspace.json and a state.vscdb with no
	// chat in it are not inputs either.
	if count[FormatCodex] != 5 || count[FormatClaudeCode] != 12 || count[FormatChatGPT] != 3 || count[FormatClaude] != 3 ||
		count[FormatGeminiCLI] != 3 || count[FormatCopilotCLI] != 1 || count[FormatOpenCodeDB] != 1 || count[FormatOpenCode] != 2 ||
		count[FormatOpenCodeV1] != 2 || count[FormatCursorDB] != 7 || count[FormatCursor] != 4 || len(ins) != 43 {
		paths := make([]string, 0, len(ins))
		for _, in := range ins {
			paths = append(paths, string(in.Format)+" "+in.Path)
		}
		sort.Strings(paths)
		t.Errorf("found %v:\n%s", count, strings.Join(paths, "\n"))
	}
}

func TestDetectZips(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	t.Run("chatgpt classic", func(t *testing.T) {
		z := writeZip(t, filepath.Join(dir, "chatgpt.zip"),
			file("conversations.json", testdata("chatgpt", "conversations.json")),
			zipEnt{name: "chat.html", data: []byte("<html><script>var jsonData = [];</script></html>")},
			zipEnt{name: "user.json", data: []byte(`{"id":"u"}`)},
			zipEnt{name: "file-abc.png", data: []byte("\x89PNG....")},
			zipEnt{name: "__MACOSX/._conversations.json", data: []byte("\x00\x05\x16\x07")},
			zipEnt{name: "dalle-generations/", data: nil})
		ins, err := Detect(ctx, z)
		if err != nil || len(ins) != 1 || ins[0].Format != FormatChatGPT || ins[0].Archive != z || ins[0].Path != z+"!/conversations.json" {
			t.Fatalf("%v %+v", err, ins)
		}
	})
	t.Run("chatgpt sharded", func(t *testing.T) {
		z := writeZip(t, filepath.Join(dir, "sharded.zip"),
			file("conversations-001.json", testdata("chatgpt-sharded", "conversations-001.json")),
			file("conversations-000.json", testdata("chatgpt-sharded", "conversations-000.json")),
			file("conversations.json.index", testdata("chatgpt-sharded", "conversations.json.index")),
			file("export_manifest.json", testdata("chatgpt-sharded", "export_manifest.json")),
			file("user_settings.json", testdata("chatgpt-sharded", "user_settings.json")))
		ins, err := Detect(ctx, z)
		if err != nil || len(ins) != 2 || ins[0].entry != "conversations-000.json" || ins[1].entry != "conversations-001.json" {
			t.Fatalf("%v %+v", err, ins)
		}
	})
	t.Run("claude 2026 delivery", func(t *testing.T) {
		conv := writeZip(t, filepath.Join(dir, "data-2026-batch-0000.zip"),
			file("conversations.json", testdata("claude-2026", "conversations.json")),
			file("users.json", testdata("claude", "users.json")))
		projects := writeZip(t, filepath.Join(dir, "projects-000.zip"),
			file("projects/0195b000-0000-7000-8000-0000000000aa.json", testdata("claude-2026", "projects", "0195b000-0000-7000-8000-0000000000aa.json")))
		memories := writeZip(t, filepath.Join(dir, "memories-000.zip"),
			file("memories.json", testdata("claude-2026", "memories.json")))
		if ins, err := Detect(ctx, conv); err != nil || len(ins) != 1 || ins[0].Format != FormatClaude {
			t.Errorf("conversations zip: %v %+v", err, ins)
		}
		for _, z := range []string{projects, memories} {
			if ins, err := Detect(ctx, z); err != nil || len(ins) != 0 {
				t.Errorf("%s: %v %+v; want nothing, gracefully", z, err, ins)
			}
		}
	})
	t.Run("folder of zips", func(t *testing.T) {
		ins, err := Detect(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, in := range ins {
			if in.Err != nil {
				t.Errorf("%s: %v", in.Path, in.Err)
			}
			if in.Archive != "" {
				n++
			}
		}
		if n < 4 {
			t.Errorf("%d archive inputs: %+v", n, ins)
		}
	})
}

func TestZipSafety(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	conv := file("conversations.json", testdata("chatgpt", "conversations.json"))
	zeros := make([]byte, 8<<20)
	for name, c := range map[string]struct {
		ents []zipEnt
		want string
	}{
		"slip":     {[]zipEnt{conv, {name: "../../.bashrc", data: []byte("evil")}}, "zip-slip"},
		"slip abs": {[]zipEnt{conv, {name: "/etc/cron.d/x", data: []byte("evil")}}, "zip-slip"},
		"slip win": {[]zipEnt{conv, {name: `..\..\evil.json`, data: []byte("[]")}}, "zip-slip"},
		"symlink":  {[]zipEnt{conv, {name: "link.json", data: []byte("/etc/passwd"), mode: os.ModeSymlink | 0o777}}, "symbolic link"},
		"bomb":     {[]zipEnt{conv, {name: "conversations-001.json", data: zeros}}, "zip bomb"},
		"empty":    {[]zipEnt{{name: "conversations.json", data: []byte("[]")}, {name: "user.json", data: []byte("{}")}}, "empty export"},
		"not ours": {[]zipEnt{{name: "photo.jpg", data: []byte("jpeg")}, {name: "readme.txt", data: []byte("hi")}}, "no conversations found"},
	} {
		z := writeZip(t, filepath.Join(dir, name+".zip"), c.ents...)
		_, err := Detect(ctx, z)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
	t.Run("total cap", func(t *testing.T) {
		defer func(v int64) { maxArchiveBytes = v }(maxArchiveBytes)
		maxArchiveBytes = 4 << 10
		z := writeZip(t, filepath.Join(dir, "big.zip"), conv, conv)
		if _, err := Detect(ctx, z); err == nil || !strings.Contains(err.Error(), "would expand to more than 4.0 KiB") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("corrupt", func(t *testing.T) {
		p := filepath.Join(dir, "corrupt.zip")
		os.WriteFile(p, append([]byte("PK\x03\x04"), bytes.Repeat([]byte("garbage"), 100)...), 0o644)
		if _, err := Detect(ctx, p); err == nil || !strings.Contains(err.Error(), "corrupt or truncated zip") {
			t.Errorf("err %v", err)
		}
		good := writeZip(t, filepath.Join(dir, "good.zip"), conv)
		data, _ := os.ReadFile(good)
		os.WriteFile(p, data[:len(data)/2], 0o644)
		if _, err := Detect(ctx, p); err == nil || !strings.Contains(err.Error(), "corrupt or truncated zip") {
			t.Errorf("truncated: err %v", err)
		}
	})
}

func TestUnsafeEntryName(t *testing.T) {
	for name, bad := range map[string]bool{
		"conversations.json": false, "a/b/c.json": false, "a/..b/c": false, "..": true, "a/../../b": true,
		"/abs": true, `C:\x`: true, `a\..\b`: true, "nul\x00": true,
	} {
		if unsafeEntryName(name) != bad {
			t.Errorf("unsafeEntryName(%q) = %v", name, !bad)
		}
	}
}

func zipReader(data []byte) (*zip.Reader, error) {
	return zip.NewReader(bytes.NewReader(data), int64(len(data)))
}

func writeZipTo(w io.Writer, ents ...zipEnt) error {
	zw := zip.NewWriter(w)
	for _, e := range ents {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		fw.Write(e.data)
	}
	return zw.Close()
}

func mustRead(t testing.TB, r io.Reader) []byte {
	t.Helper()
	data, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return data // a damaged entry: parse what there is
	}
	return data
}
