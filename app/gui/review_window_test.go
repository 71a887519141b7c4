package gui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/config"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/settings"
)

// TestRealWindowReview photographs every screen of the real window at
// 1280×800 and 900×600 over a lifelike memory (reviewSessions: secrets
// stored unscrubbed, a Markdown table, an agent session, CJK, a
// 1,000-turn session), with a token made, and the conversations Search
// opens, into test-artifacts/screens/review-*.png, for a person to look
// at. It runs only when IRENEO_REVIEW=1: it checks nothing the other
// real-window tests do not, and takes a few minutes.
func TestRealWindowReview(t *testing.T) {
	if os.Getenv("IRENEO_REVIEW") != "1" {
		t.Skip("IRENEO_REVIEW=1 takes the review screenshots")
	}
	needTools(t, "xdotool", "import", "go")
	root := repoRoot(t)
	shots := filepath.Join(root, "test-artifacts", "screens")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "ireneo")
	bctx, bcancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer bcancel()
	build := exec.CommandContext(bctx, "go", "build", "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	envRoot := testEnv(t)
	memDir := filepath.Join(envRoot, "memory")
	m, err := memory.Open(memDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Ingest(context.Background(), reviewSessions(), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	m.Close()
	set := settings.Default()
	set.ServerAddr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	if err := settings.Save(set); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), config.EnvHome+"="+memDir, "LANG=en_US.UTF-8")
	tok := exec.Command(bin, "token", "create", "claude-code")
	tok.Env = env
	if out, err := tok.CombinedOutput(); err != nil {
		t.Logf("token create: %v\n%s", err, out)
	}
	logf, err := os.Create(filepath.Join(shots, "review-app.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	wid := findWindow(t, 30*time.Second)
	if wid == "" {
		t.Fatal("no window named Ireneo appeared in 30s")
	}
	run(t, "xdotool", "windowfocus", wid)
	time.Sleep(time.Second)

	searches := []struct{ name, query string }{
		{"secrets", "deploy script"}, {"canvas", "local user"}, {"table", "catalogue databases"},
		{"agent", "importer layout"}, {"cjk", "東京"}, {"long", "marmoset"},
	}
	var shot []byte
	for _, size := range [][2]int{{1280, 800}, {900, 600}} {
		tag := fmt.Sprintf("%dx%d", size[0], size[1])
		run(t, "xdotool", "windowsize", wid, fmt.Sprint(size[0]), fmt.Sprint(size[1]))
		time.Sleep(time.Second)
		for i, name := range screenNames {
			sendKeys(t, wid, fmt.Sprintf("ctrl+%d", i+1))
			shot = settled(t, shots, fmt.Sprintf("review-%d-%s-%s", i+1, name, tag), shot)
		}
		for _, s := range searches {
			sendKeys(t, wid, "ctrl+1", "ctrl+f", "ctrl+a")
			run(t, "xdotool", "type", "--window", wid, "--delay", "30", s.query)
			sendKeys(t, wid, "Return")
			shot = settled(t, shots, "review-search-"+s.name+"-"+tag, shot)
			sendKeys(t, wid, "Down", "Up", "Return")
			time.Sleep(time.Second)
			shot = settled(t, shots, "review-open-"+s.name+"-"+tag, shot)
		}
	}
}
