package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyTree copies a folder of importers/testdata into a fake home.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// `import --detect` in a home laid out as each harness lays it out finds
// every source where it keeps its history, by its own default paths, and
// `import` of those paths stores them.
func TestImportDetectFindsEverySource(t *testing.T) {
	home := t.TempDir()
	for _, v := range []string{"XDG_DATA_HOME", "XDG_CONFIG_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "APPDATA"} {
		t.Setenv(v, "")
	}
	t.Setenv("HOME", home)
	td := filepath.Join("..", "..", "importers", "testdata")
	copyTree(t, filepath.Join(td, "gemini-cli", "0.61", "tmp"), filepath.Join(home, ".gemini", "tmp"))
	copyTree(t, filepath.Join(td, "opencode", "1.18"), filepath.Join(home, ".local", "share", "opencode"))
	copyTree(t, filepath.Join(td, "opencode", "1.1", "storage"), filepath.Join(home, ".local", "share", "opencode", "storage"))
	copyTree(t, filepath.Join(td, "cursor", "User"), filepath.Join(home, ".config", "Cursor", "User"))
	copyTree(t, filepath.Join(td, "cursor", "projects"), filepath.Join(home, ".cursor", "projects"))
	copyTree(t, filepath.Join(td, "copilot-cli", "1.0", "session-state"), filepath.Join(home, ".copilot", "session-state"))
	// The exports beside the database are not where opencode keeps them.
	for _, e := range []string{"export-ses_dccd1a20efferOOKwOuUSXCwK2.json", "export-ses_dccd14224ffev10NAckpUvb0HO.json"} {
		os.Remove(filepath.Join(home, ".local", "share", "opencode", e))
	}

	cfg := testConfig(t, t.TempDir())
	code, out, errs := runCfg(t, cfg, "import", "--detect")
	if code != 0 {
		t.Fatalf("import --detect: %d %s %s", code, out, errs)
	}
	for _, want := range []string{
		filepath.Join(home, ".gemini", "tmp") + "\n  Gemini CLI sessions: 2 files",
		filepath.Join(home, ".local", "share", "opencode", "opencode.db") + "\n  opencode database: 1 file",
		filepath.Join(home, ".local", "share", "opencode", "storage") + "\n  opencode sessions (before 1.2): 2 files",
		filepath.Join(home, ".config", "Cursor", "User", "globalStorage", "state.vscdb") + "\n  Cursor databases: 1 file",
		filepath.Join(home, ".config", "Cursor", "User", "workspaceStorage") + "\n  Cursor databases: 1 file",
		filepath.Join(home, ".cursor", "projects") + "\n  Cursor agent transcripts: 3 files",
		filepath.Join(home, ".copilot", "session-state") + "\n  GitHub Copilot CLI sessions: 1 file",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--detect lacks %q:\n%s", want, out)
		}
	}
	var paths []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, home) {
			paths = append(paths, line)
		}
	}
	code, out, errs = runCfg(t, cfg, append([]string{"import"}, paths...)...)
	if code != 0 || !strings.Contains(out, "imported 19 new") {
		t.Fatalf("import: %d\n%s\n%s", code, out, errs)
	}
}
