package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// The capture hooks of Gemini CLI, Cursor, Copilot CLI and opencode, run as
// each harness runs them: the real binary, installed by `connect --write
// --hooks` beside the person's own hooks, fed the inputs those harnesses
// send, each importing the session it names from where the harness keeps
// it (the real sample sessions in importers/testdata).

const (
	geminiSession  = "7e832400-ac0f-47d2-b7e7-fc08e8a714ea"
	cursorConv     = "6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e"
	copilotSession = "3e2a61be-75c7-4cbe-a3b6-4acc266ce68b"
	opencodeSess   = "ses_dccd14224ffev10NAckpUvb0HO"
)

// copyTree copies the folder from to to.
func copyTree(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		copyFile(t, p, filepath.Join(to, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// jsonHookCommand finds Ireneo's command for client in a hooks file
// (grouped as Gemini CLI's, or flat as Cursor's and Copilot CLI's) and
// returns it as the harness runs it: through the shell.
func jsonHookCommand(t *testing.T, path, event, client string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	std, err := hujson.Standardize(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Command, Bash string
			Hooks         []struct{ Command string }
		}
	}
	if err := json.Unmarshal(std, &cfg); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, e := range cfg.Hooks[event] {
		for _, c := range append([]string{e.Command, e.Bash}, func() (cs []string) {
			for _, hk := range e.Hooks {
				cs = append(cs, hk.Command)
			}
			return
		}()...) {
			if strings.HasSuffix(c, " hook "+client) {
				return []string{"/bin/sh", "-c", c}
			}
		}
	}
	t.Fatalf("no Ireneo %s hook in %s:\n%s", event, path, b)
	return nil
}

func TestSourceHooksRealBinary(t *testing.T) {
	h := newHookEnv(t)
	h.env = append(h.env, "GEMINI_CLI_HOME=", "COPILOT_HOME=")
	// Each harness's history where it keeps it, and settings of the
	// person's own with hooks of their own.
	copyTree(t, "importers/testdata/gemini-cli/0.61/tmp", filepath.Join(h.home, ".gemini", "tmp"))
	gemini := filepath.Join(h.home, ".gemini", "settings.json")
	writeFile(t, gemini, "{\n  // mine\n  \"general\": {\"vimMode\": true},\n  \"hooks\": {\"AfterAgent\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}]}\n}\n")
	copyTree(t, "importers/testdata/cursor/projects", filepath.Join(h.home, ".cursor", "projects"))
	cursor := filepath.Join(h.home, ".cursor", "hooks.json")
	writeFile(t, cursor, `{"version":1,"hooks":{"stop":[{"command":"true"}]}}`)
	copyTree(t, "importers/testdata/copilot-cli/1.0/session-state", filepath.Join(h.home, ".copilot", "session-state"))
	copyFile(t, "importers/testdata/opencode/1.18/opencode.db", filepath.Join(h.home, ".local", "share", "opencode", "opencode.db"))
	os.MkdirAll(filepath.Join(h.home, ".config", "opencode"), 0o700)

	for _, c := range []string{"gemini-cli", "cursor", "copilot-cli", "opencode"} {
		h.ok("--memory", h.mem, "connect", c, "--write", "--hooks", "--token-store", "file")
	}
	status := h.ok("--memory", h.mem, "status")
	for _, want := range []string{"Gemini CLI: installed", "Cursor: installed", "Copilot CLI: installed", "opencode: installed"} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	if b, _ := os.ReadFile(gemini); !strings.Contains(string(b), "// mine") || !strings.Contains(string(b), `"command":"true"`) {
		t.Fatalf("Gemini CLI's settings lost the person's own:\n%s", b)
	}

	n := 0
	fire := func(what, input string, argv []string, want string) {
		t.Helper()
		code, out, errs := h.run(input, argv...)
		quiet(t, what, code, out, errs)
		n++
		if last := h.waitLog(n); !strings.Contains(last, want) {
			t.Fatalf("%s: %s", what, last)
		}
	}
	// Gemini CLI 0.61's SessionEnd.
	tp := filepath.Join(h.home, ".gemini", "tmp", "proj", "chats", "session-2026-12-01T19-54-7e832400.jsonl")
	fire("Gemini CLI SessionEnd", `{"session_id":"`+geminiSession+`","transcript_path":"`+tp+`","cwd":"/home/ana/plant-control","hook_event_name":"SessionEnd","timestamp":"2026-12-01T19:55:00.000Z","reason":"exit"}`,
		jsonHookCommand(t, gemini, "SessionEnd", "gemini-cli"), "gemini-cli SessionEnd session "+geminiSession+": imported 2 new")
	// cursor-agent's stop: no transcript_path, found by the id.
	fire("Cursor stop", `{"conversation_id":"`+cursorConv+`","generation_id":"g","hook_event_name":"stop","workspace_roots":["/home/ana/src/plant-control"],"transcript_path":null,"status":"completed","loop_count":0}`,
		jsonHookCommand(t, cursor, "stop", "cursor"), "cursor stop session "+cursorConv+": imported 2 new")
	// Copilot CLI 1.0's sessionEnd.
	fire("Copilot CLI sessionEnd", `{"sessionId":"`+copilotSession+`","timestamp":1796154000000,"cwd":"/home/ana/plant-control","reason":"complete"}`,
		jsonHookCommand(t, filepath.Join(h.home, ".copilot", "hooks", "ireneo.json"), "sessionEnd", "copilot-cli"), "copilot-cli sessionEnd session "+copilotSession+": imported ")
	// opencode: the plugin itself, run by Node as opencode's runtime runs it.
	plugin := filepath.Join(h.home, ".config", "opencode", "plugins", "ireneo-capture.js")
	if _, err := exec.LookPath("node"); err == nil {
		cmd := exec.Command("node", "--input-type=module", "-e", `const m = await import(process.argv[1]); const hk = await m.IreneoCapture({});
await hk.event({ event: { type: "session.updated", properties: { info: {} } } });
await hk.event({ event: { type: "session.idle", properties: { sessionID: "`+opencodeSess+`" } } });`, plugin)
		cmd.Env, cmd.Dir = h.env, h.home
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("the opencode plugin: %v %s", err, out)
		}
		n++
		if last := h.waitLog(n); !strings.Contains(last, "opencode session.idle session "+opencodeSess+": imported ") {
			t.Fatalf("opencode plugin: %s", last)
		}
	} else {
		t.Log("NOT RUN: the opencode plugin itself (no node on PATH); its hook command is fired instead")
		b, _ := os.ReadFile(plugin)
		var argv []string
		line := strings.SplitN(strings.SplitN(string(b), "const ARGV = ", 2)[1], "\n", 2)[0]
		json.Unmarshal([]byte(line), &argv)
		fire("opencode", `{"session_id":"`+opencodeSess+`","hook_event_name":"session.idle","cwd":"/home/ana"}`, argv, "imported ")
	}
	c := h.counts()
	if c["gemini_cli"] < 2 || c["cursor"] < 1 || c["copilot_cli"] < 1 || c["opencode"] < 2 {
		t.Fatalf("after the hooks: %v\n%q", c, h.log())
	}
	// Malformed input: logged, nothing imported, the hook still quiet.
	for _, bad := range []string{"{not json", `{"session_id":"../x","transcript_path":"/etc/passwd","hook_event_name":"SessionEnd"}`} {
		fire("malformed Gemini CLI input", bad, jsonHookCommand(t, gemini, "SessionEnd", "gemini-cli"), "nothing imported")
	}
	if after := h.counts(); len(after) != len(c) {
		t.Fatalf("malformed input changed the memory: %v → %v", c, after)
	}
}
