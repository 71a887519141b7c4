package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// connect for the clients of issue 31: --stdio makes no token and writes
// the entry that starts `ireneo mcp`; --hooks is accepted for each client
// with hooks and refused, as usage, for one without.
func TestConnectSourcesCommand(t *testing.T) {
	home, mem := mcpEnv(t)
	t.Setenv("GEMINI_CLI_HOME", "")
	t.Setenv("COPILOT_HOME", "")
	m := "--memory=" + mem
	code, out, errs := ireneo(t, m, "connect", "gemini-cli", "--stdio", "--write", "--token-store", "file")
	if code != 0 || strings.Contains(out, "Made token") || !strings.Contains(out, "starts Ireneo itself (stdio)") {
		t.Fatalf("connect gemini-cli --stdio: %d %s\n%s", code, errs, out)
	}
	b, _ := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	if !strings.Contains(string(b), `"mcp"`) || strings.Contains(string(b), "Bearer") {
		t.Fatalf("settings.json:\n%s", b)
	}
	code, out, errs = ireneo(t, m, "connect", "copilot-cli", "--hooks", "--token-store", "file")
	if code != 0 || !strings.Contains(out, "Capture hooks (sessionEnd, agentStop) for copilot-cli") || !strings.Contains(out, "--hooks` merges") {
		t.Fatalf("connect copilot-cli --hooks: %d %s\n%s", code, errs, out)
	}
	code, out, errs = ireneo(t, m, "connect", "opencode", "--write", "--hooks", "--stdio", "--token-store", "file")
	if code != 0 || !strings.Contains(out, "Wrote capture plugin (on session.idle, session.compacted)") {
		t.Fatalf("connect opencode --write --hooks: %d %s\n%s", code, errs, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "opencode", "plugins", "ireneo-capture.js")); err != nil {
		t.Fatal(err)
	}
	if code, _, errs = ireneo(t, m, "connect", "vscode", "--hooks", "--token-store", "file"); code != ExitUsage || !strings.Contains(errs, "gemini-cli") {
		t.Fatalf("vscode --hooks: %d %s", code, errs)
	}
	if code, _, errs = ireneo(t, m, "connect", "claude-code", "--stdio", "--token-store", "file"); code == 0 || !strings.Contains(errs, "HTTP only") {
		t.Fatalf("claude-code --stdio: %d %s", code, errs)
	}
}

// TestStatusWarnsGeminiRetention: status warns of Gemini CLI sessions its
// retention will delete before Ireneo has them, and lists the hooks of the
// harnesses on this machine.
func TestStatusWarnsGeminiRetention(t *testing.T) {
	home, mem := mcpEnv(t)
	t.Setenv("GEMINI_CLI_HOME", "")
	src := "../../importers/testdata/gemini-cli/0.61/tmp/proj/chats/session-2026-12-01T19-54-7e832400.jsonl"
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(home, ".gemini", "tmp", "proj", "chats", filepath.Base(src))
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, b, 0o600)
	old := time.Now().Add(-28 * 24 * time.Hour)
	os.Chtimes(p, old, old)
	code, out, errs := ireneo(t, "--memory="+mem, "status")
	if code != 0 || !strings.Contains(out, "Gemini CLI deletes sessions after 30 days (general.sessionRetention): 1 Gemini CLI session that is not in Ireneo") ||
		!strings.Contains(out, "Gemini CLI: not installed (`ireneo connect gemini-cli --write --hooks`") {
		t.Fatalf("status: %d %s\n%s", code, errs, out)
	}
	// Retention off: no warning.
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"general":{"sessionRetention":{"enabled":false}}}`), 0o600)
	if _, out, _ = ireneo(t, "--memory="+mem, "status"); strings.Contains(out, "Gemini CLI deletes") {
		t.Fatalf("status with retention off:\n%s", out)
	}
	// Imported: no warning either.
	os.Remove(filepath.Join(home, ".gemini", "settings.json"))
	if code, _, errs = ireneo(t, "--memory="+mem, "import", filepath.Join(home, ".gemini", "tmp")); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	if _, out, _ = ireneo(t, "--memory="+mem, "status"); strings.Contains(out, "Gemini CLI deletes") {
		t.Fatalf("status after import:\n%s", out)
	}
}
