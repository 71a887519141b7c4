//go:build linux

package gui

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/tokenstore/keyringtest"
)

// TestSecondStartNoTrayLockedKeyring: the built binary under Xvfb, with no
// tray host and a locked real keyring holding a token made earlier. The
// first start shows one dialog about the keyring and still serves; the
// Connect screen says what the token can do; a second start raises the
// first window and makes no second process; closing the window quits.
func TestSecondStartNoTrayLockedKeyring(t *testing.T) {
	if os.Getenv("IRENEO_TEST_KEYRING") == "" {
		t.Skip("IRENEO_TEST_KEYRING is not set; `make test` runs this against a real keyring")
	}
	if !keyringtest.PrivateSession(t) {
		return
	}
	needTools(t, "xdotool", "import", "go")
	app := newRealApp(t, fixtureSessions(), nil)
	shots, bin, port, env := app.shots, app.bin, app.port, app.env

	// A token made while the keyring was unlocked; then the keyring locks.
	tok := exec.Command(bin, "token", "create", "claude-code")
	tok.Env = env
	if out, err := tok.CombinedOutput(); err != nil {
		t.Fatalf("token create: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		rv := exec.Command(bin, "token", "revoke", "claude-code")
		rv.Env = env
		rv.Run()
	})
	if err := keyringtest.Lock(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := keyringtest.Unlock(); err != nil {
			t.Error(err)
		}
	})

	// The display is shared with the tests before this one; make sure it
	// takes a new client before the app needs one.
	for i := 0; exec.Command("xdotool", "getdisplaygeometry").Run() != nil; i++ {
		if i == 100 {
			t.Fatalf("the display %s takes no clients", os.Getenv("DISPLAY"))
		}
		time.Sleep(200 * time.Millisecond)
	}
	logPath := filepath.Join(shots, "instance-app.log")
	logf, _ := os.Create(logPath)
	defer logf.Close()
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var exitErr error
	go func() { exitErr = cmd.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	}()
	wid := findWindow(t, 30*time.Second)
	if wid == "" {
		log, _ := os.ReadFile(logPath)
		t.Fatalf("no window in 30s; log:\n%s", log)
	}
	run(t, "xdotool", "windowfocus", wid)
	time.Sleep(2 * time.Second)
	shot := screenshot(t, shots, "21-locked-keyring-first-start", nil)

	// The server serves on the locked keyring.
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, err := exec.Command("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
			fmt.Sprintf("http://127.0.0.1:%d/mcp", port)).Output()
		if err == nil && string(out) == "401" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server is not up on a locked keyring: %s %v", out, err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	sendKeys(t, wid, "Escape") // Not now
	time.Sleep(500 * time.Millisecond)
	sendKeys(t, wid, "ctrl+6")
	screenshot(t, shots, "22-locked-keyring-connect", shot)

	// A second start: no second process, the first window stays the one.
	second := exec.Command(bin)
	second.Env = env
	var out2 bytes.Buffer
	second.Stdout, second.Stderr = &out2, &out2
	done2 := make(chan error, 1)
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done2 <- second.Wait() }()
	select {
	case err := <-done2:
		if err != nil || !strings.Contains(out2.String(), "already running") {
			t.Fatalf("second start: %v\n%s", err, out2.String())
		}
	case <-time.After(30 * time.Second):
		second.Process.Kill()
		t.Fatal("the second start kept running")
	}
	if ws := strings.Fields(run(t, "xdotool", "search", "--onlyvisible", "--name", "^Ireneo$")); len(ws) != 1 {
		t.Fatalf("%d Ireneo windows after a second start", len(ws))
	}
	if n := strings.Count(run(t, "pgrep", "-fx", bin), "\n"); n != 1 {
		t.Fatalf("%d ireneo processes after a second start", n)
	}
	select {
	case <-exited:
		t.Fatalf("the first instance ended: %v", exitErr)
	default:
	}

	// No tray: closing the window quits. The window may be gone before
	// xdotool sends the key's release, which it then reports as an error.
	exec.Command("xdotool", "key", "--window", wid, "--clearmodifiers", "ctrl+w").Run()
	select {
	case <-exited:
		if exitErr != nil {
			t.Fatalf("the app exited with %v", exitErr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("closing the window with no tray did not quit")
	}
	log, _ := os.ReadFile(logPath)
	if bytes.Contains(log, []byte("panic")) {
		t.Fatalf("the app panicked:\n%s", log)
	}
}
