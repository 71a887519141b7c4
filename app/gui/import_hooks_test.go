package gui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/clients"
)

// TestImportScreenHooksLine: the Import screen says which capture hooks are
// installed and warns of a Claude Code session its cleanup deletes within
// the week that the memory does not have.
func TestImportScreenHooksLine(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	home := u.deps.Home
	h, err := clients.Hooks(clients.ClientClaudeCode, u.connect.hookOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Write(time.Now()); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(home, ".claude", "projects", "-src-old", "5f1c2d3e-0000-4000-8000-0000000000aa.jsonl")
	os.MkdirAll(filepath.Dir(old), 0o700)
	os.WriteFile(old, []byte("{}\n"), 0o600)
	past := time.Now().Add(-26 * 24 * time.Hour)
	os.Chtimes(old, past, past)

	onUI(func() { u.showScreen(screenImport) })
	waitIdle(t, u)
	got := u.imp.hooksLine.String()
	for _, want := range []string{"Claude Code: installed", "Codex: not installed", "deletes sessions after 30 days", "1 Claude Code session that is not in Ireneo"} {
		if !strings.Contains(got, want) {
			t.Errorf("the hooks line lacks %q: %s", want, got)
		}
	}
	capture(t, u, "import-hooks-line")
}
