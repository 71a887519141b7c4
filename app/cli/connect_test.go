package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConnectCommand(t *testing.T) {
	home, mem := mcpEnv(t)
	m := "--memory=" + mem

	// An HTTP client with no token yet gets one named after it.
	code, out, errs := ireneo(t, m, "connect", "claude-code", "--token-store", "file")
	if code != 0 {
		t.Fatalf("connect: %d %s", code, errs)
	}
	if !strings.Contains(out, `Made token "claude-code"`) || !strings.Contains(out, "claude mcp add --transport http --scope user ireneo http://127.0.0.1:47119/mcp --header 'Authorization: Bearer ireneo_") {
		t.Fatalf("connect claude-code:\n%s", out)
	}
	// The second time it reuses that token.
	_, out2, _ := ireneo(t, m, "connect", "claude-code", "--token-store", "file")
	if strings.Contains(out2, "Made token") || !strings.Contains(out2, secretOf(out)) {
		t.Fatalf("second connect made another token:\n%s", out2)
	}
	if code, _, errs = ireneo(t, m, "connect", "cursor", "--token", "nope", "--token-store", "file"); code != 1 || !strings.Contains(errs, "ireneo token create nope") {
		t.Fatalf("explicit missing token: %d %s", code, errs)
	}
	if code, _, _ = ireneo(t, m, "connect", "emacs"); code != ExitUsage {
		t.Fatalf("unknown client: %d", code)
	}
	if code, _, _ = ireneo(t, m, "connect", "cursor", "--addr", "0.0.0.0:1"); code != ExitUsage {
		t.Fatalf("non-loopback addr: %d", code)
	}

	// --write merges into a config that has other servers, after a backup.
	cursorCfg := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cursorCfg), 0o700)
	orig := `{"mcpServers": {"linear": {"url": "https://mcp.linear.app/mcp"}}, "other": true}`
	os.WriteFile(cursorCfg, []byte(orig), 0o600)
	code, out, errs = ireneo(t, m, "connect", "cursor", "--write", "--addr", "127.0.0.1:47200", "--token-store", "file")
	if code != 0 || !strings.Contains(out, "Wrote "+cursorCfg) || !strings.Contains(out, "ireneo-backup-") {
		t.Fatalf("connect --write: %d %s\n%s", code, errs, out)
	}
	var doc struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
		Other      bool                      `json:"other"`
	}
	b, _ := os.ReadFile(cursorCfg)
	if err := json.Unmarshal(b, &doc); err != nil || !doc.Other || doc.MCPServers["linear"] == nil || doc.MCPServers["ireneo"]["url"] != "http://127.0.0.1:47200/mcp" {
		t.Fatalf("merged config:\n%s", b)
	}
	backups, _ := filepath.Glob(cursorCfg + ".ireneo-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	if bb, _ := os.ReadFile(backups[0]); string(bb) != orig {
		t.Fatalf("backup:\n%s", bb)
	}

	// Claude Desktop runs `ireneo mcp`, with the memory passed along; no token.
	code, out, _ = ireneo(t, m, "connect", "claude-desktop", "--json")
	var res struct {
		Config struct{ Snippet, Transport string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Config.Transport != "stdio" ||
		!strings.Contains(res.Config.Snippet, `"mcp"`) || !strings.Contains(res.Config.Snippet, mem) {
		t.Fatalf("claude-desktop:\n%s", out)
	}
}

func secretOf(out string) string {
	i := strings.Index(out, "ireneo_")
	if i < 0 {
		return "\x00none"
	}
	end := strings.IndexAny(out[i:], "'\"\n ")
	return out[i : i+end]
}

// TestConnectHintReproduces: the hint at the end of connect is the exact
// command that writes what was shown, given flags and all.
func TestConnectHintReproduces(t *testing.T) {
	home, mem := mcpEnv(t)
	code, _, errs := ireneo(t, "--memory="+mem, "connect", "cursor", "--addr", "127.0.0.1:47231", "--token", "mine", "--token-store", "file")
	if code != 1 || !strings.Contains(errs, "ireneo token create mine") {
		t.Fatalf("explicit token that does not exist: %d %s", code, errs)
	}
	if code, _, errs = ireneo(t, "--memory="+mem, "token", "create", "mine", "--token-store", "file"); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := ireneo(t, "--memory="+mem, "connect", "cursor", "--addr", "127.0.0.1:47231", "--token", "mine", "--token-store", "file")
	if code != 0 {
		t.Fatal(errs)
	}
	i := strings.LastIndex(out, "`ireneo ")
	if i < 0 {
		t.Fatalf("no hint:\n%s", out)
	}
	hint := out[i+1:]
	hint = hint[:strings.Index(hint, "`")]
	want := "ireneo --memory " + mem + " connect cursor --write --addr 127.0.0.1:47231 --token mine --token-store file"
	if hint != want {
		t.Fatalf("hint:\n%s\nwant\n%s", hint, want)
	}
	// Following it writes the config that was shown.
	if code, _, errs = ireneo(t, strings.Fields(hint)[1:]...); code != 0 {
		t.Fatal(errs)
	}
	b, _ := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json"))
	if !strings.Contains(string(b), "http://127.0.0.1:47231/mcp") || !strings.Contains(out, secretOf(string(b))) {
		t.Fatalf("written config differs from the one shown:\n%s\nshown:\n%s", b, out)
	}
}

// TestConnectClaudeCodeSecretOutOfHistory: connect claude-code offers a
// command that reads the secret with `ireneo token secret`, which prints it.
func TestConnectClaudeCodeSecretOutOfHistory(t *testing.T) {
	_, mem := mcpEnv(t)
	code, out, errs := ireneo(t, "--memory="+mem, "connect", "claude-code", "--token-store", "file")
	if code != 0 {
		t.Fatal(errs)
	}
	secret := secretOf(out)
	safe := ""
	for _, ln := range strings.Split(out, "\n") {
		if strings.Contains(ln, "$(") {
			safe = strings.TrimSpace(ln)
		}
	}
	if safe == "" || strings.Contains(safe, secret) || !strings.Contains(safe, "token secret claude-code --token-store file") || !strings.Contains(out, "stays out of your shell history") {
		t.Fatalf("no safe command:\n%s", out)
	}
	code, got, errs := ireneo(t, "--memory="+mem, "token", "secret", "claude-code", "--token-store", "file")
	if code != 0 || strings.TrimSpace(got) != secret {
		t.Fatalf("token secret: %d %q %s", code, got, errs)
	}
	if code, _, errs = ireneo(t, "--memory="+mem, "token", "secret", "nope", "--token-store", "file"); code != 1 || !strings.Contains(errs, `no token named "nope"`) {
		t.Fatalf("unknown token: %d %s", code, errs)
	}
}

// TestMCPNeverCreatesAMemory: `ireneo mcp` with no memory at the resolved
// path fails with one line naming it, and makes nothing there.
func TestMCPNeverCreatesAMemory(t *testing.T) {
	home, _ := mcpEnv(t)
	missing := filepath.Join(home, "no-such-memory")
	code, out, errs := ireneo(t, "--memory="+missing, "mcp")
	if code != 1 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, missing) {
		t.Fatalf("mcp without a memory: %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("mcp made a memory")
	}
}
