package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/adrg/xdg"
)

// syncBuffer is a bytes.Buffer safe to read while a command writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// mcpEnv points HOME and the XDG dirs at a temp dir and returns a memory
// dir inside it.
func mcpEnv(t *testing.T) (home, mem string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	xdg.Reload()
	t.Cleanup(xdg.Reload)
	return home, filepath.Join(home, "mem")
}

// ireneo runs the CLI in process and returns its exit code and output.
func ireneo(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestTokenCommandsFileStore(t *testing.T) {
	home, mem := mcpEnv(t)
	m := "--memory=" + mem

	code, out, errs := ireneo(t, m, "token", "create", "cursor", "--project", "alpha", "--project", "beta", "--token-store", "file")
	if code != 0 {
		t.Fatalf("create: %d %s", code, errs)
	}
	if !strings.Contains(errs, "not in the OS keyring") {
		t.Errorf("no file-store warning: %q", errs)
	}
	secret := ""
	for _, ln := range strings.Split(out, "\n") {
		if strings.HasPrefix(ln, "ireneo_") {
			secret = ln
		}
	}
	if secret == "" || !strings.Contains(out, "only projects alpha, beta") {
		t.Fatalf("create output:\n%s", out)
	}
	file := filepath.Join(home, ".config", "ireneo", "token-secrets.json")
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", st, err)
	}

	code, out, _ = ireneo(t, m, "token", "list")
	if code != 0 || !strings.Contains(out, "cursor") || !strings.Contains(out, "alpha,beta") || strings.Contains(out, secret) {
		t.Fatalf("list: %d\n%s", code, out)
	}
	code, out, _ = ireneo(t, m, "token", "list", "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || strings.Contains(out, secret) {
		t.Fatalf("list --json: %d\n%s", code, out)
	}
	code, out, _ = ireneo(t, m, "token", "show", "cursor")
	if code != 0 || strings.Contains(out, secret) {
		t.Fatalf("show without --reveal: %d\n%s", code, out)
	}
	code, out, _ = ireneo(t, m, "token", "show", "cursor", "--reveal", "--token-store", "file")
	if code != 0 || !strings.Contains(out, "secret:    "+secret) {
		t.Fatalf("show --reveal: %d\n%s", code, out)
	}
	if code, _, errs = ireneo(t, m, "token", "create", "cursor", "--token-store", "file"); code != 1 || !strings.Contains(errs, "already exists") {
		t.Fatalf("duplicate: %d %s", code, errs)
	}
	if code, _, errs = ireneo(t, m, "token", "create", "bad name", "--token-store", "file"); code != 1 || !strings.Contains(errs, "letters, digits") {
		t.Fatalf("bad name: %d %s", code, errs)
	}
	if code, _, errs = ireneo(t, m, "token", "create", "x", "--token-store", "vault"); code != 2 {
		t.Fatalf("bad store: %d %s", code, errs)
	}
	if code, out, _ = ireneo(t, m, "token", "revoke", "cursor", "--token-store", "file"); code != 0 || !strings.Contains(out, "Revoked") {
		t.Fatalf("revoke: %d %s", code, out)
	}
	if b, _ := os.ReadFile(file); strings.Contains(string(b), secret) {
		t.Fatal("revoked secret still in the token file")
	}
	if code, _, errs = ireneo(t, m, "token", "revoke", "nobody", "--token-store", "file"); code != 1 || !strings.Contains(errs, `no token named "nobody"`) {
		t.Fatalf("revoke unknown: %d %s", code, errs)
	}
	if code, _, errs = ireneo(t, m, "token", "show", "cursor", "--reveal", "--token-store", "file"); code != 1 || !strings.Contains(errs, "revoked") {
		t.Fatalf("reveal revoked: %d %s", code, errs)
	}
	if _, out, _ = ireneo(t, m, "token", "list"); !strings.Contains(out, "revoked") {
		t.Fatalf("list after revoke:\n%s", out)
	}
}
