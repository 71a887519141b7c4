package gui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/config"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/settings"
)

// realApp is where a real-window test starts: the binary built as a
// person would build it, a home of its own whose memory holds the given
// conversations, and settings with a free port.
type realApp struct {
	root    string   // the module
	shots   string   // test-artifacts/screens, for screenshots and logs
	bin     string   // the built ireneo
	envRoot string   // the test's home (testEnv)
	memDir  string   // the memory, inside it
	port    int      // the MCP server's, in the settings
	env     []string // the app's environment: that memory, an English locale
}

// The binary is built once per test run: each real-window test used to
// link its own (about 20 s each on this machine).
var appBuild struct {
	once     sync.Once
	dir, bin string
	err      error
}

// builtApp returns the binary, building it the first time.
func builtApp(t *testing.T, root string) string {
	t.Helper()
	appBuild.once.Do(func() {
		appBuild.dir, appBuild.err = os.MkdirTemp("", "ireneo-gui-test-")
		if appBuild.err != nil {
			return
		}
		appBuild.bin = filepath.Join(appBuild.dir, "ireneo")
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		build := exec.CommandContext(ctx, "go", "build", "-o", appBuild.bin, ".")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			appBuild.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if appBuild.err != nil {
		t.Fatal(appBuild.err)
	}
	return appBuild.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if appBuild.dir != "" {
		os.RemoveAll(appBuild.dir)
	}
	os.Exit(code)
}

// newRealApp builds (once) and seeds: sessions are stored as an import
// with scrub off would store them; edit, if given, changes the settings
// before they are saved.
func newRealApp(t *testing.T, sessions []*funes.Session, edit func(*settings.Settings)) *realApp {
	t.Helper()
	a := &realApp{root: repoRoot(t)}
	a.shots = filepath.Join(a.root, "test-artifacts", "screens")
	if err := os.MkdirAll(a.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	a.bin = builtApp(t, a.root)
	a.envRoot = testEnv(t)
	a.memDir = filepath.Join(a.envRoot, "memory")
	m, err := memory.Open(a.memDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Ingest(context.Background(), sessions, memory.IngestOptions{}); err != nil {
		m.Close()
		t.Fatal(err)
	}
	m.Close()
	set := settings.Default()
	a.port = freePort(t)
	set.ServerAddr = fmt.Sprintf("127.0.0.1:%d", a.port)
	if edit != nil {
		edit(&set)
	}
	if err := settings.Save(set); err != nil {
		t.Fatal(err)
	}
	a.env = append(os.Environ(), config.EnvHome+"="+a.memDir, "LANG=en_US.UTF-8")
	return a
}
