package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// inspector runs the official MCP inspector CLI ($IRENEO_INSPECTOR, the
// node_modules/.bin/mcp-inspector that `make test` installs) against url.
func inspector(t *testing.T, url, token string, args ...string) (string, error) {
	t.Helper()
	bin := os.Getenv("IRENEO_INSPECTOR")
	argv := []string{"--cli", url, "--transport", "http"}
	if token != "" {
		argv = append(argv, "--header", "Authorization: Bearer "+token)
	}
	argv = append(argv, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, argv...)
	// Its catalog and caches go to a temp home, not the person's.
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_CACHE_HOME="+home, "MCP_AUTO_OPEN_ENABLED=false", "CI=true")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestInspectorCLI: the official inspector lists and calls the tools with a
// token, and is refused without one or with a wrong one.
func TestInspectorCLI(t *testing.T) {
	if os.Getenv("IRENEO_INSPECTOR") == "" {
		t.Skip("IRENEO_INSPECTOR is not set; `make test` installs the inspector and sets it")
	}
	ts := startTestServer(t, Options{})

	out, err := inspector(t, ts.url, ts.full, "--method", "tools/list")
	if err != nil {
		t.Fatalf("tools/list with a token: %v\n%s", err, out)
	}
	start := strings.Index(out, "{")
	var list struct {
		Tools []struct {
			Name        string
			Annotations struct{ ReadOnlyHint bool }
		}
	}
	if start < 0 || json.Unmarshal([]byte(out[start:]), &list) != nil {
		t.Fatalf("tools/list output is not JSON:\n%s", out)
	}
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = tl.Annotations.ReadOnlyHint
	}
	for _, want := range []string{ToolRecall, ToolGet, ToolSessions, ToolListProjects} {
		if ro, ok := names[want]; !ok || !ro {
			t.Errorf("tool %s: listed=%v read-only=%v\n%s", want, ok, ro, out)
		}
	}

	out, err = inspector(t, ts.url, ts.full, "--method", "tools/call", "--tool-name", ToolRecall, "--tool-arg", "query=MT-4471", "--tool-arg", "top_k=5")
	if err != nil || !strings.Contains(out, markerAlpha) || !strings.Contains(out, `"structuredContent"`) {
		t.Fatalf("tools/call recall: %v\n%s", err, out)
	}
	out, err = inspector(t, ts.url, ts.scoped, "--method", "tools/call", "--tool-name", ToolRecall, "--tool-arg", "query=MT-4471")
	if err != nil || !strings.Contains(out, markerAlpha) || strings.Contains(out, markerBeta) {
		t.Fatalf("tools/call recall, scoped: %v\n%s", err, out)
	}

	for name, tok := range map[string]string{"no token": "", "wrong token": "ireneo_wrong"} {
		out, err = inspector(t, ts.url, tok, "--method", "tools/list")
		if err == nil || strings.Contains(out, `"tools"`) {
			t.Errorf("%s: inspector was let in: %v\n%s", name, err, out)
		}
	}
	ts.FlushAudit()
}
