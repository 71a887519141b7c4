package clients

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/importers/harnesstest"
	"github.com/ireneo-app/ireneo/mcpserver"
)

// The entry connect writes is accepted by the client itself: each CLI that
// installs from npm lists Ireneo among its MCP servers from the file, into
// which connect merged it beside a server and settings already there, and
// (Gemini CLI and opencode test the connection as they list) reaches the
// real server with the token's header. Skipped loudly where a CLI is not
// installed (harnesstest.Find).
func TestConnectAcceptedByTheCLIs(t *testing.T) {
	ts := startTestServer(t, mcpserver.Options{})
	for _, c := range []struct {
		cli, client string
		existing    string // a config the person had: kept
		file        func(h *harnesstest.Home) string
		args        []string
		want        []string
	}{
		{"gemini", ClientGeminiCLI,
			"{\n  // the person's own settings\n  \"ui\": {\"theme\": \"GitHub\"},\n  \"mcpServers\": {\"other\": {\"command\": \"true\"}}\n}\n",
			func(h *harnesstest.Home) string { return filepath.Join(h.Dir, ".gemini", "settings.json") },
			[]string{"mcp", "list"}, []string{"ireneo: " + ts.url + " (http) - Connected", "other"}},
		{"opencode", ClientOpenCode, "",
			func(h *harnesstest.Home) string { return filepath.Join(h.Dir, ".config", "opencode", "opencode.json") },
			[]string{"mcp", "list"}, []string{"ireneo", "connected", ts.url}},
		{"copilot", ClientCopilotCLI, "{\n  \"mcpServers\": {\"other\": {\"type\": \"local\", \"command\": \"true\", \"args\": [], \"tools\": [\"*\"]}}\n}\n",
			func(h *harnesstest.Home) string { return filepath.Join(h.Dir, ".copilot", "mcp-config.json") },
			[]string{"mcp", "list"}, []string{"ireneo (http)", "other"}},
	} {
		t.Run(c.cli, func(t *testing.T) {
			bin := harnesstest.Find(t, c.cli)
			h := harnesstest.NewHome(t, c.cli, "http://127.0.0.1:9")
			path := c.file(h)
			if c.existing != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(c.existing), 0o644)
			}
			cfg, err := Connect(c.client, ConnectOptions{URL: ts.url, Token: ts.full, Home: h.Dir, GeminiHome: h.Dir,
				CopilotHome: filepath.Join(h.Dir, ".copilot"), XDGConfigHome: filepath.Join(h.Dir, ".config")})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Path != path {
				t.Fatalf("connect writes %s, the CLI reads %s", cfg.Path, path)
			}
			res, err := cfg.Write(time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if c.existing != "" && res.Backup == "" {
				t.Error("no backup of the config there was")
			}
			out := h.Run(t, 2*time.Minute, bin, c.args...)
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s %s lacks %q:\n%s", c.cli, strings.Join(c.args, " "), w, out)
				}
			}
			if data, _ := os.ReadFile(path); c.existing != "" && !strings.Contains(string(data), "other") {
				t.Errorf("the other server went:\n%s", data)
			}
		})
	}
}
