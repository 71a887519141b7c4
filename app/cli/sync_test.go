package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	memsync "github.com/ireneo-app/ireneo/sync"
)

// Two memories on one folder through the CLI: setup, a tag made with
// `ireneo tag` reaches the other memory, status and `ireneo status` show
// both machines, leave stops it.
func TestSyncCommands(t *testing.T) {
	t.Parallel()
	a, b := seed(t), t.TempDir()
	folder := filepath.Join(t.TempDir(), "Sync")
	if code, out, errs := run(t, "--memory", a, "sync", "setup", "--name", "laptop", folder); code != 0 || !strings.Contains(out, "12 conversations out") {
		t.Fatalf("setup a: %d %q %q", code, out, errs)
	}
	if code, out, errs := run(t, "--memory", b, "sync", "setup", "--name", "desktop", folder); code != 0 || !strings.Contains(out, "12 conversations in") {
		t.Fatalf("setup b: %d %q %q", code, out, errs)
	}
	if code, _, errs := run(t, "--memory", a, "tag", "conv-02", "pumps"); code != 0 {
		t.Fatalf("tag: %s", errs)
	}
	if code, out, _ := run(t, "--memory", b, "sync", "now"); code != 0 || !strings.Contains(out, "1 conversation's tags or star changed") {
		t.Fatalf("sync now: %q", out)
	}
	code, out, _ := run(t, "--memory", b, "sessions", "--json", "--project", "pumps")
	if code != 0 || !strings.Contains(out, `"conv-02"`) {
		t.Fatalf("b's sessions in pumps: %s", out)
	}
	code, out, _ = run(t, "--memory", b, "sync", "status", "--json")
	var st memsync.Status
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || len(st.Machines) != 2 || st.Name != "desktop" {
		t.Fatalf("status: %s", out)
	}
	if code, out, _ := run(t, "--memory", b, "status"); code != 0 || !strings.Contains(out, "sync folder:   "+folder) || !strings.Contains(out, "laptop") {
		t.Fatalf("ireneo status: %s", out)
	}
	if code, out, _ := run(t, "--memory", b, "sync", "leave"); code != 0 || !strings.Contains(out, "no longer syncs") {
		t.Fatalf("leave: %s", out)
	}
	if code, out, _ := run(t, "--memory", b, "sync", "status"); code != 0 || !strings.Contains(out, "not set up") {
		t.Fatalf("status after leave: %s", out)
	}
	if code, _, errs := run(t, "--memory", b, "sync", "setup", "--syncthing", "--syncthing-home", t.TempDir(), folder); code != 1 || !strings.Contains(errs, "no Syncthing configuration found") {
		t.Fatalf("setup without Syncthing: %d %q", code, errs)
	}
}
