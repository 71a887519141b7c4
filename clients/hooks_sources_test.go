package clients

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailscale/hujson"
)

// The capture hooks of Gemini CLI, Cursor, Copilot CLI and opencode: each
// joins the person's own hooks in the client's own shape, a second write
// changes nothing, an earlier Ireneo hook is replaced, the old file is
// backed up, and HooksInstalled sees them.

func sourceHookOpts(t *testing.T) ConnectOptions {
	o := hookOpts(t)
	o.GeminiHome = o.Home
	o.CopilotHome = filepath.Join(o.Home, ".copilot")
	o.XDGConfigHome = filepath.Join(o.Home, ".config")
	return o
}

func writeHooks(t *testing.T, client string, o ConnectOptions, before string) (*HookConfig, []byte) {
	t.Helper()
	h, err := Hooks(client, o)
	if err != nil {
		t.Fatal(err)
	}
	if before != "" {
		os.MkdirAll(filepath.Dir(h.Path), 0o700)
		os.WriteFile(h.Path, []byte(before), 0o600)
	}
	if st := HooksInstalled(client, o); st.Installed || st.Problem != "" {
		t.Fatalf("%s before: %+v", client, st)
	}
	res, err := h.Write(time.Unix(1e9, 0))
	if err != nil {
		t.Fatalf("%s write: %v", client, err)
	}
	if before != "" {
		if b, _ := os.ReadFile(res.Backup); string(b) != before {
			t.Fatalf("%s backup holds %q", client, b)
		}
	}
	first, _ := os.ReadFile(h.Path)
	res, err = h.Write(time.Unix(1e9+1, 0))
	if err != nil || res.Backup != "" {
		t.Fatalf("%s second write: %+v %v", client, res, err)
	}
	if again, _ := os.ReadFile(h.Path); string(again) != string(first) {
		t.Fatalf("%s: a second write changed the file:\n%s\n%s", client, first, again)
	}
	if st := HooksInstalled(client, o); !st.Installed || st.Path != h.Path {
		t.Fatalf("%s after: %+v", client, st)
	}
	// Moved binary: the earlier Ireneo hook is replaced, not added to.
	o2 := o
	o2.Command = "/usr/local/bin/ireneo"
	h2, _ := Hooks(client, o2)
	res, err = h2.Write(time.Unix(1e9+2, 0))
	if err != nil || !res.Replaced {
		t.Fatalf("%s rewrite: %+v %v", client, res, err)
	}
	out, _ := os.ReadFile(h.Path)
	if strings.Contains(string(out), "/opt/ireneo/ireneo") || !strings.Contains(string(out), "/usr/local/bin/ireneo") {
		t.Fatalf("%s: the old hook stayed:\n%s", client, out)
	}
	return h2, out
}

func TestGeminiHooksMerge(t *testing.T) {
	o := sourceHookOpts(t)
	// settings.json with a comment, Ireneo's MCP entry and a hook of the
	// person's own (Gemini CLI reads it with comments stripped).
	before := `{
  // my settings
  "general": {"vimMode": true},
  "mcpServers": {"ireneo": {"httpUrl": "http://127.0.0.1:8765/mcp"}},
  "hooks": {
    "AfterAgent": [{"matcher": "*", "hooks": [{"type": "command", "command": "notify-send done", "timeout": 5000}]}]
  }
}
`
	h, out := writeHooks(t, ClientGeminiCLI, o, before)
	if !strings.Contains(string(out), "// my settings") {
		t.Fatalf("the comment was lost:\n%s", out)
	}
	std, err := hujson.Standardize(out)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		General    map[string]any
		MCPServers map[string]any `json:"mcpServers"`
		Hooks      map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command, Name string
				Timeout             int
			}
		}
	}
	if err := json.Unmarshal(std, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.General["vimMode"] != true || cfg.MCPServers["ireneo"] == nil {
		t.Fatalf("settings lost: %+v", cfg)
	}
	after := cfg.Hooks["AfterAgent"]
	if len(after) != 2 || after[0].Hooks[0].Command != "notify-send done" || after[1].Hooks[0].Command != h.Command || after[1].Hooks[0].Timeout != 10000 {
		t.Fatalf("AfterAgent: %+v", after)
	}
	for _, ev := range GeminiHookEvents {
		if len(cfg.Hooks[ev]) == 0 || cfg.Hooks[ev][len(cfg.Hooks[ev])-1].Hooks[0].Type != "command" {
			t.Errorf("%s: %+v", ev, cfg.Hooks[ev])
		}
	}
	if !strings.HasSuffix(h.Command, " hook gemini-cli") {
		t.Errorf("command %s", h.Command)
	}
	// Plain JSON stays plain JSON.
	o = sourceHookOpts(t)
	_, out = writeHooks(t, ClientGeminiCLI, o, `{"general":{"vimMode":true}}`)
	if !json.Valid(out) {
		t.Fatalf("not JSON:\n%s", out)
	}
}

func TestCursorHooksMerge(t *testing.T) {
	o := sourceHookOpts(t)
	before := `{"version":1,"hooks":{"stop":[{"command":"./hooks/audit.sh","loop_limit":3}],"afterFileEdit":[{"command":"fmt.sh"}]}}`
	h, out := writeHooks(t, ClientCursor, o, before)
	var cfg struct {
		Version int
		Hooks   map[string][]struct {
			Command   string
			Timeout   int
			LoopLimit int `json:"loop_limit"`
		}
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Version != 1 || len(cfg.Hooks["afterFileEdit"]) != 1 || len(cfg.Hooks["stop"]) != 2 || cfg.Hooks["stop"][0].LoopLimit != 3 ||
		cfg.Hooks["stop"][1].Command != h.Command || cfg.Hooks["sessionEnd"][0].Command != h.Command || cfg.Hooks["sessionEnd"][0].Timeout != 10 {
		t.Fatalf("hooks.json:\n%s", out)
	}
	// A new file gets its version.
	o = sourceHookOpts(t)
	_, out = writeHooks(t, ClientCursor, o, "")
	if !strings.HasPrefix(strings.TrimSpace(string(out)), `{
  "version": 1,`) {
		t.Fatalf("new hooks.json:\n%s", out)
	}
}

func TestCopilotHooksFile(t *testing.T) {
	o := sourceHookOpts(t)
	// Another hooks file in the folder is not touched.
	other := filepath.Join(o.CopilotHome, "hooks", "mine.json")
	os.MkdirAll(filepath.Dir(other), 0o700)
	os.WriteFile(other, []byte(`{"version":1,"hooks":{"sessionEnd":[{"type":"command","bash":"echo bye"}]}}`), 0o600)
	h, out := writeHooks(t, ClientCopilotCLI, o, "")
	if h.Path != filepath.Join(o.CopilotHome, "hooks", "ireneo.json") {
		t.Fatalf("path %s", h.Path)
	}
	var cfg struct {
		Version int
		Hooks   map[string][]struct {
			Type, Bash, Powershell string
			TimeoutSec             int
		}
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, ev := range CopilotHookEvents {
		hs := cfg.Hooks[ev]
		if len(hs) != 1 || hs[0].Type != "command" || hs[0].Bash != h.Command || hs[0].TimeoutSec != 10 ||
			!strings.HasPrefix(hs[0].Powershell, "& '/usr/local/bin/ireneo'") || !strings.HasSuffix(hs[0].Powershell, "'hook' 'copilot-cli'") {
			t.Fatalf("%s: %+v", ev, hs)
		}
	}
	if b, _ := os.ReadFile(other); !strings.Contains(string(b), "echo bye") {
		t.Fatal("the other hooks file changed")
	}
}

func TestOpenCodePlugin(t *testing.T) {
	o := sourceHookOpts(t)
	h, out := writeHooks(t, ClientOpenCode, o, "")
	if h.Path != filepath.Join(o.XDGConfigHome, "opencode", "plugins", "ireneo-capture.js") {
		t.Fatalf("path %s", h.Path)
	}
	for _, want := range []string{openCodePluginMark, `const ARGV = ["/usr/local/bin/ireneo","--memory",`, `"hook","opencode"]`, `"session.idle"`, "detached: true", "child.unref()"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("plugin lacks %s:\n%s", want, out)
		}
	}
	// Someone else's file of that name is not overwritten.
	o = sourceHookOpts(t)
	hh, _ := Hooks(ClientOpenCode, o)
	os.MkdirAll(filepath.Dir(hh.Path), 0o700)
	os.WriteFile(hh.Path, []byte("export const Mine = async () => ({})\n"), 0o600)
	if _, err := hh.Write(time.Now()); err == nil || !strings.Contains(err.Error(), "not Ireneo's") {
		t.Fatalf("overwrote another plugin: %v", err)
	}
	if b, _ := os.ReadFile(hh.Path); !strings.Contains(string(b), "Mine") {
		t.Fatal("the other plugin changed")
	}
}

// TestSourceHooksBadFiles: a file Ireneo cannot parse is left alone with an
// error naming it.
func TestSourceHooksBadFiles(t *testing.T) {
	for _, c := range []struct{ client, body string }{
		{ClientGeminiCLI, `{"hooks": [1,2]}`},
		{ClientGeminiCLI, `{"hooks": {"SessionEnd": {"x": 1}}}`},
		{ClientGeminiCLI, `{"hooks": {"SessionEnd": [{"hooks": 3}]}}`},
		{ClientCursor, `{"version":1,"hooks":{"stop":"nope"}}`},
		{ClientCursor, `not json at all {`},
		{ClientCopilotCLI, `[]`},
	} {
		o := sourceHookOpts(t)
		h, _ := Hooks(c.client, o)
		os.MkdirAll(filepath.Dir(h.Path), 0o700)
		os.WriteFile(h.Path, []byte(c.body), 0o600)
		_, err := h.Write(time.Now())
		if err == nil || !strings.Contains(err.Error(), h.Path) {
			t.Errorf("%s %s: %v", c.client, c.body, err)
		}
		if b, _ := os.ReadFile(h.Path); string(b) != c.body {
			t.Errorf("%s: the file changed to %s", c.client, b)
		}
	}
}

func TestGeminiRetention(t *testing.T) {
	for _, c := range []struct {
		body string
		on   bool
		age  time.Duration
	}{
		{"", true, 30 * 24 * time.Hour},
		{`{"general":{}}`, true, 30 * 24 * time.Hour},
		{`{"general":{"sessionRetention":{"enabled":false}}}`, false, 0},
		{`{/* c */ "general":{"sessionRetention":{"enabled":true,"maxAge":"2w"}}}`, true, 14 * 24 * time.Hour},
		{`{"general":{"sessionRetention":{"maxAge":"3m"}}}`, true, 90 * 24 * time.Hour},
		{`{"general":{"sessionRetention":{"maxAge":"36h"}}}`, true, 36 * time.Hour},
		{`{"general":{"sessionRetention":{"maxAge":"forever"}}}`, false, 0},
	} {
		o := sourceHookOpts(t)
		if c.body != "" {
			p, _ := GeminiSettingsPath(o)
			os.MkdirAll(filepath.Dir(p), 0o700)
			os.WriteFile(p, []byte(c.body), 0o600)
		}
		on, age, err := GeminiRetention(o)
		if err != nil || on != c.on || age != c.age {
			t.Errorf("%s: %v %v %v", c.body, on, age, err)
		}
	}
}

// TestHookClientsHere: Claude Code and Codex always; the others when their
// folder is there.
func TestHookClientsHere(t *testing.T) {
	o := sourceHookOpts(t)
	if got := HookClientsHere(o); len(got) != 2 {
		t.Fatalf("empty home: %v", got)
	}
	for _, d := range []string{".gemini", ".cursor", ".copilot", ".config/opencode"} {
		os.MkdirAll(filepath.Join(o.Home, d), 0o700)
	}
	if got := HookClientsHere(o); len(got) != len(HookClients) {
		t.Fatalf("all here: %v", got)
	}
}
