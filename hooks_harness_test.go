package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/clients"
	"github.com/ireneo-app/ireneo/importers/harnesstest"
)

// The capture hooks fired by the real harnesses: Gemini CLI 0.61, Copilot
// CLI 1.0 and opencode 1.18 from npm, run offline against the stand-in
// model with Ireneo's hooks (plugin, for opencode) installed as `connect
// --write --hooks` installs them, each import the session it has just
// written, in the background, with nothing printed into the harness's
// output. Skipped, loudly, where a CLI is not installed.

func harnessHooksFire(t *testing.T, cli, client string, timeout time.Duration, args ...string) {
	bin := harnesstest.Find(t, cli)
	ireneo := ireneoBinary(t)
	model := harnesstest.NewStandIn(t)
	home := harnesstest.NewHome(t, cli, model.URL)
	mem := filepath.Join(home.Dir, "mem")
	h := &hookEnv{t: t, bin: ireneo, home: home.Dir, mem: mem, env: home.Env}
	h.ok("--memory", mem, "status") // the memory the hooks import into
	hk, err := clients.Hooks(client, clients.ConnectOptions{Home: home.Dir, MemoryDir: mem, Command: ireneo, GeminiHome: home.Dir,
		CopilotHome: filepath.Join(home.Dir, ".copilot"), XDGConfigHome: filepath.Join(home.Dir, ".config")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hk.Write(time.Now()); err != nil {
		t.Fatal(err)
	}
	out := home.Run(t, timeout, bin, args...)
	if !strings.Contains(out, "The command printed "+model.Word) {
		t.Fatalf("%s did not answer:\n%s", cli, out)
	}
	if strings.Contains(out, mem) || strings.Contains(strings.ToLower(out), "hook") {
		t.Errorf("the hook printed into %s's output:\n%s", cli, out)
	}
	// The hook's import runs detached; wait for its line in the log.
	deadline := time.Now().Add(90 * time.Second)
	var lines []string
	for time.Now().Before(deadline) {
		lines = h.log()
		done := false
		for _, l := range lines {
			if strings.Contains(l, client+" ") && strings.Contains(l, ": imported ") {
				done = true
			}
		}
		if done {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, l := range lines {
		if strings.Contains(l, "error: ") {
			t.Errorf("hook problem: %s", l)
		}
	}
	if !strings.Contains(strings.Join(lines, "\n"), ": imported ") {
		b, _ := os.ReadFile(hk.Path)
		t.Fatalf("%s never ran Ireneo's hook; log %q; %s:\n%s", cli, lines, hk.Path, b)
	}
	source := map[string]string{clients.ClientGeminiCLI: "gemini_cli", clients.ClientCopilotCLI: "copilot_cli", clients.ClientOpenCode: "opencode"}[client]
	if c := h.counts(); c[source] < 1 {
		t.Fatalf("nothing of %s in the memory: %v (log %q)", cli, c, lines)
	}
	if got := h.ok("--memory", mem, "recall", model.Word); !strings.Contains(got, model.Word) {
		t.Fatalf("the session's shell result is not searchable:\n%s", got)
	}
	t.Logf("%s fired: %s", cli, strings.Join(lines, " | "))
}

func TestGeminiCLIHooksFire(t *testing.T) {
	harnessHooksFire(t, "gemini", clients.ClientGeminiCLI, 3*time.Minute, "-p", "Run echo ireneo-stand-in", "--yolo")
}

func TestCopilotCLIHooksFire(t *testing.T) {
	harnessHooksFire(t, "copilot", clients.ClientCopilotCLI, 2*time.Minute, "-p", "Run echo ireneo-stand-in", "--allow-all")
}

func TestOpenCodePluginFires(t *testing.T) {
	harnessHooksFire(t, "opencode", clients.ClientOpenCode, 5*time.Minute, "run", "Run echo ireneo-stand-in")
}
