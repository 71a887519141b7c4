package importers

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDefaultLocationsFollowToolHomes: the Codex and Claude Code folders
// the configuration names ($CODEX_HOME, $CLAUDE_CONFIG_DIR) are looked in.
func TestDefaultLocationsFollowToolHomes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	codex, claude := filepath.Join(root, "codex"), filepath.Join(root, "claude")
	for _, d := range []string{filepath.Join(codex, "sessions"), filepath.Join(claude, "projects")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	found := map[string]bool{}
	for _, l := range DefaultLocations(Homes{Codex: codex, ClaudeCode: claude}) {
		found[l.Path] = l.Live
	}
	for _, want := range []string{filepath.Join(codex, "sessions"), filepath.Join(claude, "projects")} {
		if live, ok := found[want]; !ok || !live {
			t.Errorf("%s: found %v, live %v; want a live location", want, ok, live)
		}
	}
}
