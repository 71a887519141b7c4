package mcpserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
)

func connectOpts(t *testing.T, url, token string) ConnectOptions {
	t.Helper()
	home := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	return ConnectOptions{URL: url, Token: token, Command: "/opt/ireneo/bin/ireneo", Home: home, ConfigDir: filepath.Join(home, ".config")}
}

// entryOf reads Ireneo's entry back out of a written config file.
func entryOf(t *testing.T, c *ClientConfig, data []byte) map[string]any {
	t.Helper()
	var doc map[string]any
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
	ts := startTestServer(t, Options{})
	for _, name := range Clients {
		t.Run(name, func(t *testing.T) {
			c, err := Connect(name, connectOpts(t, ts.url, ts.full))
			if err != nil {
				t.Fatal(err)
			}
			e := entryOf(t, c, []byte(c.Snippet))
			if c.Transport == TransportStdio {
				args, _ := e["args"].([]any)
				if e["command"] != "/opt/ireneo/bin/ireneo" || len(args) != 1 || args[0] != "mcp" {
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
			if typ, ok := e["type"]; ok && typ != "http" {
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
			if _, err := cl.Initialize(t.Context(), initRequest()); err != nil {
				t.Fatalf("a client configured this way cannot connect: %v", err)
			}
			if res := callTool(t, cl, ToolRecall, map[string]any{"query": "MT-4471"}); res.IsError {
				t.Fatal(resultText(res))
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
			if st, _ := os.Stat(c.Path); st.Mode().Perm() != 0o644 {
				t.Errorf("mode changed to %v", st.Mode().Perm())
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
		ClientVSCode: "{\n  // my servers\n  \"servers\": {}\n}\n",
		ClientCursor: `["not", "an", "object"]`,
		ClientCodex:  "this is = = not toml",
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
