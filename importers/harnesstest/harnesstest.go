// Package harnesstest runs the real agent CLIs that install from npm
// (Gemini CLI, opencode, GitHub Copilot CLI) in tests, offline: it finds
// them, gives each a home of its own, and serves a stand-in model on
// loopback (Gemini's and OpenAI's streaming APIs) that answers with a
// scripted reply and tool calls, so the CLIs write genuine sessions.
// Tests only; nothing in the app imports it.
package harnesstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// The CLIs, by their npm package and binary; the versions scripts/deps.sh
// pins.
var CLIs = map[string]struct{ Package, Version, Bin string }{
	"gemini":   {"@google/gemini-cli", "0.61.0", "gemini"},
	"opencode": {"opencode-ai", "1.18.33", "opencode"},
	"copilot":  {"@github/copilot", "1.0.102", "copilot"},
}

// Find returns the path of a CLI installed under .tools/harness (by
// `scripts/deps.sh`), or under $IRENEO_HARNESS_DIR; it skips the test,
// saying so loudly, when the CLI is not there, and fails it under `make
// test` (IRENEO_HARNESS_REQUIRED), which installs every CLI first, so CI
// never passes over a client it did not run.
func Find(t testing.TB, name string) string {
	t.Helper()
	c, ok := CLIs[name]
	if !ok {
		t.Fatalf("harnesstest: no CLI %q", name)
	}
	var dirs []string
	if d := os.Getenv("IRENEO_HARNESS_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	dirs = append(dirs, filepath.Join(repoRoot(), ".tools", "harness"))
	for _, d := range dirs {
		p := filepath.Join(d, "node_modules", ".bin", c.Bin)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	skip := t.Skipf
	if os.Getenv("IRENEO_HARNESS_REQUIRED") != "" {
		skip = t.Fatalf
	}
	if _, err := exec.LookPath("node"); err != nil {
		skip("SKIPPED, NOT RUN: %s needs Node.js, which is not on PATH", c.Package)
	}
	skip("SKIPPED, NOT RUN: %s@%s is not installed in %v; `scripts/deps.sh` installs it (npm install --prefix .tools/harness %s@%s)",
		c.Package, c.Version, dirs, c.Package, c.Version)
	return ""
}

// repoRoot is the repository's folder, where .tools/ is.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// cacheDir is where the CLIs keep what they fetch or build on a first run
// (opencode's provider package, Copilot CLI's unpacked runtime), shared
// between runs: $IRENEO_HARNESS_CACHE, else .tools/harness/cache.
func cacheDir() string {
	if c := os.Getenv("IRENEO_HARNESS_CACHE"); c != "" {
		return c
	}
	return filepath.Join(repoRoot(), ".tools", "harness", "cache")
}
