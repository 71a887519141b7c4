package clients

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func hookOpts(t *testing.T) ConnectOptions {
	home := t.TempDir()
	return ConnectOptions{Home: home, MemoryDir: filepath.Join(home, "mem"), Command: "/opt/ireneo/ireneo"}
}

// TestClaudeHooksMerge: Ireneo's hooks join the person's own, writing
// twice leaves one of each, the old file is backed up, and a file Ireneo
// cannot parse is left alone.
func TestClaudeHooksMerge(t *testing.T) {
	o := hookOpts(t)
	h, err := Hooks(ClientClaudeCode, o)
	if err != nil {
		t.Fatal(err)
	}
	mine := `{"theme":"dark","hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"say done"}]}],"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"lint"}]}]}}`
	os.MkdirAll(filepath.Dir(h.Path), 0o700)
	os.WriteFile(h.Path, []byte(mine), 0o644)
	if st := HooksInstalled(ClientClaudeCode, o); st.Installed || len(st.Missing) != 3 {
		t.Fatalf("before: %+v", st)
	}
	res, err := h.Write(time.Unix(1e9, 0))
	if err != nil || res.Backup == "" {
		t.Fatalf("write: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(res.Backup); string(b) != mine {
		t.Fatalf("backup holds %s", b)
	}
	if _, err := h.Write(time.Unix(1e9+1, 0)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(h.Path)
	var cfg struct {
		Theme string
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Theme != "dark" || len(cfg.Hooks["PostToolUse"]) != 1 || len(cfg.Hooks["Stop"]) != 2 || cfg.Hooks["Stop"][0].Hooks[0].Command != "say done" {
		t.Fatalf("merged settings lost the person's own:\n%s", b)
	}
	for _, ev := range ClaudeCodeHookEvents {
		n := 0
		for _, g := range cfg.Hooks[ev] {
			for _, hk := range g.Hooks {
				if strings.HasSuffix(hk.Command, " hook claude-code") {
					n++
					if hk.Timeout != HookTimeout || !strings.Contains(hk.Command, "--memory "+o.MemoryDir) {
						t.Errorf("%s hook: %+v", ev, hk)
					}
				}
			}
		}
		if n != 1 {
			t.Errorf("%s has %d Ireneo hooks after two writes", ev, n)
		}
	}
	if st := HooksInstalled(ClientClaudeCode, o); !st.Installed {
		t.Fatalf("after: %+v", st)
	}
	os.WriteFile(h.Path, []byte(`{"hooks": [1,2]}`), 0o644)
	if _, err := h.Write(time.Now()); err == nil || !strings.Contains(err.Error(), "add the hook by hand") {
		t.Fatalf("a hooks list: %v", err)
	}
	if b, _ := os.ReadFile(h.Path); string(b) != `{"hooks": [1,2]}` {
		t.Fatalf("an unparseable file was changed: %s", b)
	}
}

// TestCodexNotifyMerge: notify goes first (top-level), a notify program
// spread over lines is chained once, and the rest of the file is kept.
func TestCodexNotifyMerge(t *testing.T) {
	o := hookOpts(t)
	h, err := Hooks(ClientCodex, o)
	if err != nil {
		t.Fatal(err)
	}
	old := "# my codex\nmodel = \"o3\"\nnotify = [\n  \"python3\", # the script\n  \"/home/me/notify.py\",\n]\n\n[mcp_servers.other]\nurl = \"http://x\"\n"
	os.MkdirAll(filepath.Dir(h.Path), 0o700)
	os.WriteFile(h.Path, []byte(old), 0o600)
	for range 2 {
		if _, err := h.Write(time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(h.Path)
	var cfg struct {
		Model      string
		Notify     []string
		MCPServers map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(b), &cfg); err != nil {
		t.Fatal(err)
	}
	want := []string{"/opt/ireneo/ireneo", "--memory", o.MemoryDir, "hook", "codex", "--", "python3", "/home/me/notify.py"}
	if cfg.Model != "o3" || cfg.MCPServers["other"] == nil || strings.Join(cfg.Notify, " ") != strings.Join(want, " ") || !strings.Contains(string(b), "# my codex") {
		t.Fatalf("config.toml:\n%s", b)
	}
	if st := HooksInstalled(ClientCodex, o); !st.Installed {
		t.Fatalf("state: %+v", st)
	}
	os.WriteFile(h.Path, []byte("notify = \"say\"\n"), 0o600)
	if _, err := h.Write(time.Now()); err == nil {
		t.Fatal("a notify that is not a list was overwritten")
	}
}
