package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestConnectCodexWriteHooksOnce: `connect codex --write --hooks` puts the
// server entry and the notify hook in the same config.toml. It used to
// write the file twice, and the backup it named for the hooks as "the old
// file" was its own half-way copy. Now the file is written once, with one
// backup, which holds the person's file as it was, and both lines name it.
func TestConnectCodexWriteHooksOnce(t *testing.T) {
	home, mem := mcpEnv(t)
	cfg := filepath.Join(home, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	orig := "model = \"o3\"\n\n[mcp_servers.linear]\nurl = \"https://mcp.linear.app/mcp\"\n"
	if err := os.WriteFile(cfg, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := ireneo(t, "--memory="+mem, "connect", "codex", "--write", "--hooks", "--token-store", "file")
	if code != 0 {
		t.Fatalf("connect codex --write --hooks: %d %s\n%s", code, errs, out)
	}
	b, _ := os.ReadFile(cfg)
	if !strings.Contains(string(b), "[mcp_servers.ireneo]") || !strings.Contains(string(b), "notify = [") ||
		!strings.Contains(string(b), "[mcp_servers.linear]") || !strings.Contains(string(b), `model = "o3"`) {
		t.Fatalf("config.toml after connect:\n%s", b)
	}
	backups, _ := filepath.Glob(cfg + ".ireneo-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups: %v (want one, of the file as it was)", backups)
	}
	if bb, _ := os.ReadFile(backups[0]); string(bb) != orig {
		t.Fatalf("the backup is not the person's file as it was:\n%s", bb)
	}
	named := regexp.MustCompile(`the old file is kept as (\S+)\)`).FindAllStringSubmatch(out, -1)
	if len(named) != 2 || named[0][1] != backups[0] || named[1][1] != backups[0] {
		t.Fatalf("the entry and the hooks should both name %s as the old file:\n%s", backups[0], out)
	}
}
