package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// `import --detect` in a home holding the real Cursor samples
// (importers/testdata/cursor-real: a 1.x global database, a 0.4x
// workspace's, a .txt agent transcript; README) finds each where Cursor
// keeps it, and `import` of what it lists stores every conversation.
func TestImportDetectFindsRealCursor(t *testing.T) {
	home := t.TempDir()
	for _, v := range []string{"XDG_DATA_HOME", "XDG_CONFIG_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "APPDATA"} {
		t.Setenv(v, "")
	}
	t.Setenv("HOME", home)
	td := filepath.Join("..", "..", "importers", "testdata", "cursor-real")
	user := filepath.Join(home, ".config", "Cursor", "User")
	copyTree(t, filepath.Join(td, "2025-09-global", "User"), user)
	copyTree(t, filepath.Join(td, "2024-11-workspace", "User"), user)
	copyTree(t, filepath.Join(td, "txt", "projects"), filepath.Join(home, ".cursor", "projects"))

	cfg := testConfig(t, t.TempDir())
	code, out, errs := runCfg(t, cfg, "import", "--detect")
	if code != 0 {
		t.Fatalf("import --detect: %d %s %s", code, out, errs)
	}
	for _, want := range []string{
		filepath.Join(user, "globalStorage", "state.vscdb") + "\n  Cursor databases: 1 file",
		filepath.Join(user, "workspaceStorage") + "\n  Cursor databases: 1 file",
		filepath.Join(home, ".cursor", "projects") + "\n  Cursor agent transcripts: 1 file",
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
	if code != 0 || !strings.Contains(out, "imported 8 new") || !strings.Contains(out, " 0 failed") || errs != "" {
		t.Fatalf("import: %d\n%s\n%s", code, out, errs)
	}
}
