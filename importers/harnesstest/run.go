package harnesstest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Home is a CLI's world for one test: a home folder, the project folder
// it runs in (a git repository), and the environment that points it at
// the stand-in and keeps it off the network.
type Home struct {
	Dir     string // HOME
	Project string // the working directory
	Env     []string
}

// NewHome makes a home for the CLI named (gemini, opencode, copilot)
// talking to the stand-in at url.
func NewHome(t testing.TB, name, url string) *Home {
	t.Helper()
	root := t.TempDir()
	h := &Home{Dir: filepath.Join(root, "home"), Project: filepath.Join(root, "plant-control")}
	for _, d := range []string{h.Dir, h.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", h.Project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(h.Project, "notes.txt"), []byte("K-2 notes\n"), 0o644)
	h.Env = []string{"HOME=" + h.Dir, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(h.Dir, ".config"), "XDG_DATA_HOME=" + filepath.Join(h.Dir, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(h.Dir, ".cache"), "XDG_STATE_HOME=" + filepath.Join(h.Dir, ".local", "state")}
	switch name {
	case "gemini":
		write(t, filepath.Join(h.Dir, ".gemini", "settings.json"),
			`{"security":{"auth":{"selectedType":"gemini-api-key"}},"general":{"enableAutoUpdate":false},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}`)
		h.Env = append(h.Env, "GEMINI_API_KEY=stand-in", "GOOGLE_GEMINI_BASE_URL="+url, "GEMINI_CLI_TRUST_WORKSPACE=true")
	case "opencode":
		write(t, filepath.Join(h.Dir, ".config", "opencode", "opencode.json"), `{"$schema":"https://opencode.ai/config.json","autoupdate":false,"share":"disabled",
 "provider":{"standin":{"npm":"@ai-sdk/openai-compatible","name":"Stand-in","options":{"baseURL":"`+url+`/v1","apiKey":"x"},"models":{"stand-in":{"name":"Stand-in","tool_call":true}}}},
 "model":"standin/stand-in","small_model":"standin/stand-in","permission":{"*":"allow"}}`)
		h.Env = append(h.Env, "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1")
		// opencode installs its provider package from npm the first time;
		// a cache shared between runs keeps that to once.
		h.Env = append(h.Env, "npm_config_cache="+filepath.Join(cacheDir(), "npm"))
	case "copilot":
		h.Env = append(h.Env, "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+url+"/v1", "COPILOT_PROVIDER_TYPE=openai",
			"COPILOT_PROVIDER_API_KEY=x", "COPILOT_MODEL=stand-in", "COPILOT_AUTO_UPDATE=false")
		h.Env = append(h.Env, "COPILOT_CACHE_HOME="+filepath.Join(cacheDir(), "copilot"))
	}
	return h
}

func write(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Run runs the CLI in the project folder with the home's environment and
// returns what it printed; it fails the test if it does not exit 0 in
// time.
func (h *Home) Run(t testing.TB, timeout time.Duration, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = h.Project, h.Env
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
	return string(out)
}
