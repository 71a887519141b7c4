package clients

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/tailscale/hujson"

	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/mcpserver/mcptest"
)

func connectOpts(t *testing.T, url, token string) ConnectOptions {
	t.Helper()
	home := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	return ConnectOptions{URL: url, Token: token, Command: "/opt/ireneo/bin/ireneo", MemoryDir: "/srv/memory", Home: home, ConfigDir: filepath.Join(home, ".config")}
}

// entryOf reads Ireneo's entry back out of a written config file.
func entryOf(t *testing.T, c *ClientConfig, data []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if c.format == "jsonc" {
		std, err := hujson.Standardize(bytes.Clone(data))
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.Path, err, data)
		}
		data = std
	}
	if c.format == "toml" {
		if _, err := toml.Decode(string(data), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", c.Path, err, data)
		}
		return doc["mcp_servers"].(map[string]any)[ServerName].(map[string]any)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v\n%s", c.Path, err, data)
	}
	return doc[c.key].(map[string]any)[ServerName].(map[string]any)
}

// TestConnectConfigsWork: the HTTP entry each client would read gets a
// working, authenticated connection to a real server; the stdio entry runs
// `ireneo mcp`.
func TestConnectConfigsWork(t *testing.T) {
	ts := startTestServer(t, mcpserver.Options{})
	for _, name := range Clients {
		t.Run(name, func(t *testing.T) {
			c, err := Connect(name, connectOpts(t, ts.url, ts.full))
			if err != nil {
				t.Fatal(err)
			}
			e := entryOf(t, c, []byte(c.Snippet))
			if c.Transport == TransportStdio {
				args, _ := e["args"].([]any)
				if e["command"] != "/opt/ireneo/bin/ireneo" || len(args) != 3 || args[0] != "--memory" || args[1] != "/srv/memory" || args[2] != "mcp" {
					t.Fatalf("stdio entry = %v", e)
				}
				return
			}
			url, _ := e["url"].(string)
			hdrs, _ := e["headers"].(map[string]any)
			if c.format == "toml" {
				hdrs, _ = e["http_headers"].(map[string]any)
			}
			auth, _ := hdrs["Authorization"].(string)
			if url != ts.url || auth != "Bearer "+ts.full {
				t.Fatalf("entry = %v", e)
			}
			if typ, ok := e["type"]; ok && typ != "http" && !(name == ClientOpenCode && typ == "remote") {
				t.Fatalf("type = %v", typ)
			}
			tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": auth}))
			if err != nil {
				t.Fatal(err)
			}
			cl := client.NewClient(tr)
			defer cl.Close()
			if err := cl.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			if _, err := cl.Initialize(t.Context(), mcptest.InitRequest()); err != nil {
				t.Fatalf("a client configured this way cannot connect: %v", err)
			}
			if res := mcptest.CallTool(t, cl, mcpserver.ToolRecall, map[string]any{"query": "MT-4471"}); res.IsError {
				t.Fatal(mcptest.ResultText(res))
			}
		})
	}
	if c, _ := Connect(ClientClaudeCode, connectOpts(t, ts.url, ts.full)); !strings.HasPrefix(c.Command, "claude mcp add --transport http --scope user ireneo "+ts.url+" --header 'Authorization: Bearer ireneo_") {
		t.Fatalf("claude-code command = %s", c.Command)
	}
	if _, err := Connect(ClientCursor, connectOpts(t, ts.url, "")); err == nil || !strings.Contains(err.Error(), "ireneo token create cursor") {
		t.Fatalf("no token: %v", err)
	}
	if _, err := Connect("emacs", connectOpts(t, ts.url, "x")); err == nil {
		t.Fatal("unknown client accepted")
	}
}

// Sample configs with other servers and settings, as people have them.
var sampleConfigs = map[string]string{
	ClientClaudeDesktop: `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"]}
  }
}`,
	ClientClaudeCode: `{"numStartups": 42, "theme": "dark", "userID": "12345678901234567890",
 "projects": {"/home/me/x": {"allowedTools": [], "mcpServers": {"local": {"command": "x"}}}},
 "mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer gh"}},
                "ireneo": {"type": "http", "url": "http://127.0.0.1:1/mcp"}},
 "bigNumber": 12345678901234567890123}`,
	ClientCodex: `# my codex settings
model = "o3"   # keep this comment

[mcp_servers.docs]
command = "docs-mcp"
args = ["--stdio"]

[mcp_servers.ireneo]
url = "http://127.0.0.1:1/mcp"

[mcp_servers.ireneo.env]
OLD = "1"

[profiles.fast]
model = "o4-mini"
`,
	ClientCursor: `{"mcpServers": {"linear": {"url": "https://mcp.linear.app/mcp"}}}`,
	ClientVSCode: `{"servers": {"playwright": {"command": "npx", "args": ["@playwright/mcp@latest"]}}, "inputs": []}`,
}

func TestConnectWriteMerges(t *testing.T) {
	now := time.Date(2026, 10, 8, 9, 14, 0, 0, time.UTC)
	for _, name := range Clients {
		t.Run(name, func(t *testing.T) {
			c, err := Connect(name, connectOpts(t, "http://127.0.0.1:47119/mcp", "ireneo_secret"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
				t.Fatal(err)
			}
			orig := sampleConfigs[name]
			if err := os.WriteFile(c.Path, []byte(orig), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := c.Write(now)
			if err != nil {
				t.Fatal(err)
			}
			if res.Backup == "" || !strings.Contains(res.Backup, ".ireneo-backup-20261008-091400") {
				t.Fatalf("backup = %q", res.Backup)
			}
			if b, _ := os.ReadFile(res.Backup); string(b) != orig {
				t.Fatalf("backup differs from the original:\n%s", b)
			}
			got, _ := os.ReadFile(c.Path)
			e := entryOf(t, c, got)
			if e["url"] != nil && e["url"] != "http://127.0.0.1:47119/mcp" {
				t.Fatalf("entry = %v", e)
			}
			// The file and its backup may hold a secret: 0600, though the
			// original was 0644.
			for _, f := range []string{c.Path, res.Backup} {
				if st, _ := os.Stat(f); st.Mode().Perm() != 0o600 {
					t.Errorf("%s is %v, want 0600", f, st.Mode().Perm())
				}
			}
			// Everything else survives.
			for _, keep := range map[string][]string{
				ClientClaudeDesktop: {`"globalShortcut": "Ctrl+Space"`, `"filesystem"`, "server-filesystem"},
				ClientClaudeCode:    {`"numStartups": 42`, `"github"`, "Bearer gh", `"local"`, "12345678901234567890123", `"userID": "12345678901234567890"`},
				ClientCodex:         {"# my codex settings", `model = "o3"   # keep this comment`, "[mcp_servers.docs]", `args = ["--stdio"]`, "[profiles.fast]", `model = "o4-mini"`},
				ClientCursor:        {`"linear"`, "https://mcp.linear.app/mcp"},
				ClientVSCode:        {`"playwright"`, `"inputs": []`},
			}[name] {
				if !strings.Contains(string(got), keep) {
					t.Errorf("lost %q:\n%s", keep, got)
				}
			}
			if name == ClientCodex {
				if strings.Contains(string(got), "OLD") || strings.Count(string(got), "[mcp_servers.ireneo]") != 1 {
					t.Errorf("old ireneo table not replaced:\n%s", got)
				}
			}
			if name == ClientClaudeCode {
				if !res.Replaced || strings.Contains(string(got), "127.0.0.1:1/") {
					t.Errorf("old entry not replaced (replaced=%v):\n%s", res.Replaced, got)
				}
				// Key order is kept.
				if strings.Index(string(got), "numStartups") > strings.Index(string(got), "bigNumber") {
					t.Errorf("keys reordered:\n%s", got)
				}
			}

			// A second write replaces our entry and keeps a second backup.
			res2, err := c.Write(now)
			if err != nil {
				t.Fatal(err)
			}
			if !res2.Replaced || res2.Backup == res.Backup {
				t.Fatalf("second write: %+v", res2)
			}
			again, _ := os.ReadFile(c.Path)
			if string(again) != string(got) {
				t.Errorf("second write changed the file:\n%s\nvs\n%s", got, again)
			}
		})
	}
}

func TestConnectWriteNewFile(t *testing.T) {
	c, err := Connect(ClientCursor, connectOpts(t, "http://127.0.0.1:47119/mcp", "ireneo_secret"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Write(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if res.Backup != "" {
		t.Fatalf("backup of nothing: %q", res.Backup)
	}
	st, err := os.Stat(c.Path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("new config holding a token: %v %v", st.Mode(), err)
	}
}

func TestConnectWriteRefusesWhatItCannotParse(t *testing.T) {
	for name, content := range map[string]string{
		ClientVSCode:        "{\n  // my servers\n  \"servers\": {,,}\n}\n",
		ClientClaudeDesktop: "{\n  // comments are not JSON\n  \"mcpServers\": {}\n}\n",
		ClientCursor:        `["not", "an", "object"]`,
		ClientCodex:         "this is = = not toml",
	} {
		c, err := Connect(name, connectOpts(t, "http://127.0.0.1:47119/mcp", "ireneo_secret"))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(c.Path), 0o700)
		os.WriteFile(c.Path, []byte(content), 0o600)
		if _, err := c.Write(time.Now()); err == nil || !strings.Contains(err.Error(), "by hand") {
			t.Errorf("%s: %v", name, err)
		}
		if b, _ := os.ReadFile(c.Path); string(b) != content {
			t.Errorf("%s: file changed", name)
		}
		if m, _ := filepath.Glob(c.Path + ".ireneo-backup-*"); len(m) != 0 {
			t.Errorf("%s: backup written for a refused merge", name)
		}
	}
}

// TestConnectWriteKeepsVSCodeComments: VS Code's mcp.json is JSON with
// comments and trailing commas; the merge keeps both.
func TestConnectWriteKeepsVSCodeComments(t *testing.T) {
	c, err := Connect(ClientVSCode, connectOpts(t, "http://127.0.0.1:47119/mcp", "ireneo_secret"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(c.Path), 0o700)
	orig := `// VS Code MCP servers
{
  "servers": {
    // the browser one
    "playwright": {"command": "npx", "args": ["@playwright/mcp@latest",],},
    "ireneo": {"type": "http", "url": "http://127.0.0.1:1/mcp"}, /* old */
  },
  "inputs": [], // none yet
}
`
	os.WriteFile(c.Path, []byte(orig), 0o644)
	res, err := c.Write(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(c.Path)
	for _, keep := range []string{"// VS Code MCP servers", "// the browser one", `"args": ["@playwright/mcp@latest",],}`, "// none yet", `"inputs": [],`} {
		if !strings.Contains(string(got), keep) {
			t.Errorf("lost %q:\n%s", keep, got)
		}
	}
	if e := entryOf(t, c, got); e["url"] != "http://127.0.0.1:47119/mcp" || !res.Replaced || strings.Contains(string(got), "127.0.0.1:1/") {
		t.Errorf("entry %v, replaced %v:\n%s", e, res.Replaced, got)
	}
	// Into a file without a "servers" object yet.
	os.WriteFile(c.Path, []byte("{\n  // nothing yet\n  \"inputs\": [],\n}\n"), 0o600)
	if _, err := c.Write(time.Now()); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(c.Path)
	if e := entryOf(t, c, got); e["url"] != "http://127.0.0.1:47119/mcp" || !strings.Contains(string(got), "// nothing yet") {
		t.Errorf("new servers object:\n%s", got)
	}
}

// TestConnectWriteThroughSymlink: a config kept in a dotfiles checkout and
// linked into place is written through the link; the link stays.
func TestConnectWriteThroughSymlink(t *testing.T) {
	c, err := Connect(ClientCursor, connectOpts(t, "http://127.0.0.1:47119/mcp", "ireneo_secret"))
	if err != nil {
		t.Fatal(err)
	}
	dotfiles := t.TempDir()
	target := filepath.Join(dotfiles, "cursor-mcp.json")
	os.WriteFile(target, []byte(sampleConfigs[ClientCursor]), 0o644)
	os.MkdirAll(filepath.Dir(c.Path), 0o700)
	if err := os.Symlink(target, c.Path); err != nil {
		t.Fatal(err)
	}
	res, err := c.Write(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(c.Path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v %v", fi.Mode(), err)
	}
	got, _ := os.ReadFile(target)
	if e := entryOf(t, c, got); e["url"] != "http://127.0.0.1:47119/mcp" || !strings.Contains(string(got), "linear") {
		t.Fatalf("target:\n%s", got)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v", st.Mode().Perm())
	}
	if b, _ := os.ReadFile(res.Backup); string(b) != sampleConfigs[ClientCursor] {
		t.Errorf("backup:\n%s", b)
	}
	// A dangling link: the file is made where it points.
	os.Remove(target)
	if _, err := c.Write(time.Now()); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(c.Path); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("dangling link replaced")
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("target not made: %v", err)
	}
}

// TestConnectStdioNamesTheMemory: a stdio entry always names the memory,
// absolute, and without one Connect refuses.
func TestConnectStdioNamesTheMemory(t *testing.T) {
	o := connectOpts(t, "", "")
	o.MemoryDir = ""
	if _, err := Connect(ClientClaudeDesktop, o); err == nil || !strings.Contains(err.Error(), "--memory") {
		t.Fatalf("no memory: %v", err)
	}
	o.MemoryDir = "rel/mem"
	c, err := Connect(ClientClaudeDesktop, o)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("rel/mem")
	if !strings.Contains(c.Snippet, jsonQuote(abs)) {
		t.Fatalf("snippet does not name %s:\n%s", abs, c.Snippet)
	}
}

// TestClaudeCodeSafeCommand: besides the command with the secret written
// out, connect offers one that reads it from the token store as it runs.
func TestClaudeCodeSafeCommand(t *testing.T) {
	o := connectOpts(t, "http://127.0.0.1:47119/mcp", "ireneo_secretvalue")
	o.TokenName, o.TokenStore = "claude-code", "file"
	c, err := Connect(ClientClaudeCode, o)
	if err != nil {
		t.Fatal(err)
	}
	want := `claude mcp add --transport http --scope user ireneo http://127.0.0.1:47119/mcp --header "Authorization: Bearer $(/opt/ireneo/bin/ireneo --memory /srv/memory token secret claude-code --token-store file)"`
	if c.SafeCommand != want || strings.Contains(c.SafeCommand, "ireneo_secretvalue") {
		t.Fatalf("safe command:\n%s\nwant\n%s", c.SafeCommand, want)
	}
	if !strings.Contains(c.Command, "ireneo_secretvalue") {
		t.Fatalf("command: %s", c.Command)
	}
}
