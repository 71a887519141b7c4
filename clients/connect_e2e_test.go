package clients

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
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

// TestConnectWriteReachesTheMemory: for every client, `ireneo connect
// CLIENT --write`, run as a person whose memory is chosen by IRENEO_HOME,
// writes a config that, used the way that client uses it, reaches that same
// memory: Claude Desktop's entry is started with only HOME and PATH, as
// Claude Desktop starts it; the HTTP clients' URL and header reach the
// person's `ireneo serve`.
func TestConnectWriteReachesTheMemory(t *testing.T) {
	bin := mcptest.BuildIreneo(t)
	m := mcptest.NewFixtureMemory(t)
	home := t.TempDir()
	person := []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8",
		"IRENEO_HOME=" + m.Dir(), "IRENEO_CONFIG=" + filepath.Join(home, "ireneo-config"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = person
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("ireneo %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	for _, c := range Clients {
		run("connect", c, "--write", "--addr", addr, "--token-store", "file")
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve := exec.CommandContext(ctx, bin, "serve", "--addr", addr, "--token-store", "file")
	serve.Env = person
	var serveLog bytes.Buffer
	serve.Stdout, serve.Stderr = &serveLog, &serveLog
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); serve.Wait() })
	for deadline := time.Now().Add(20 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", serveLog.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	cfgDir := filepath.Join(home, ".config")
	paths := map[string]string{
		ClientClaudeDesktop: filepath.Join(cfgDir, "Claude", "claude_desktop_config.json"),
		ClientClaudeCode:    filepath.Join(home, ".claude.json"),
		ClientCodex:         filepath.Join(home, ".codex", "config.toml"),
		ClientCursor:        filepath.Join(home, ".cursor", "mcp.json"),
		ClientVSCode:        filepath.Join(cfgDir, "Code", "User", "mcp.json"),
		ClientGeminiCLI:     filepath.Join(home, ".gemini", "settings.json"),
		ClientOpenCode:      filepath.Join(cfgDir, "opencode", "opencode.json"),
		ClientCopilotCLI:    filepath.Join(home, ".copilot", "mcp-config.json"),
	}
	for _, name := range Clients {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(paths[name])
			if err != nil {
				t.Fatal(err)
			}
			if st, _ := os.Stat(paths[name]); st.Mode().Perm() != 0o600 {
				t.Errorf("%s is %v", paths[name], st.Mode().Perm())
			}
			var entry map[string]any
			switch name {
			case ClientCodex:
				var doc map[string]any
				if _, err := toml.Decode(string(data), &doc); err != nil {
					t.Fatal(err)
				}
				entry = doc["mcp_servers"].(map[string]any)[ServerName].(map[string]any)
				entry["headers"] = entry["http_headers"]
			default:
				std, err := hujson.Standardize(data)
				if err != nil {
					t.Fatal(err)
				}
				var doc map[string]map[string]map[string]any
				if err := json.Unmarshal(std, &doc); err != nil {
					t.Fatalf("%v\n%s", err, data)
				}
				key := "mcpServers"
				switch name {
				case ClientVSCode:
					key = "servers"
				case ClientOpenCode:
					key = "mcp"
				}
				entry = doc[key][ServerName]
			}
			var c *client.Client
			if name == ClientClaudeDesktop {
				cmd, _ := entry["command"].(string)
				var args []string
				for _, a := range entry["args"].([]any) {
					args = append(args, a.(string))
				}
				// Claude Desktop passes only HOME and PATH.
				bare := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
				c, err = client.NewStdioMCPClient(cmd, bare, args...)
				if err != nil {
					t.Fatal(err)
				}
			} else {
				url, _ := entry["url"].(string)
				hdrs := map[string]string{}
				for k, v := range entry["headers"].(map[string]any) {
					hdrs[k] = fmt.Sprint(v)
				}
				tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(hdrs))
				if err != nil {
					t.Fatal(err)
				}
				c = client.NewClient(tr)
				if err := c.Start(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			defer c.Close()
			ictx, icancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer icancel()
			if _, err := c.Initialize(ictx, mcptest.InitRequest()); err != nil {
				t.Fatalf("%s cannot connect with the config written: %v\n%s", name, err, data)
			}
			res := mcptest.CallTool(t, c, mcpserver.ToolRecall, map[string]any{"query": "MT-4471"})
			if res.IsError || !strings.Contains(mcptest.ResultText(res), mcptest.MarkerAlpha) {
				t.Fatalf("%s does not reach the person's memory:\n%s", name, mcptest.ResultText(res))
			}
		})
	}
	// Nothing was made where a bare `ireneo mcp` would have looked.
	if _, err := os.Stat(filepath.Join(home, ".local", "share", "ireneo")); err == nil {
		t.Error("a second, empty memory was created under the bare environment's default")
	}
}
