package gui

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// startRealApp builds the binary, stores sessions in a memory of its own
// (scrub off, as an import with --no-scrub), runs the app on it under the
// test's display with a stand-in tray host, and returns its window. The
// app ends with the test.
func startRealApp(t *testing.T, logName string, sessions []*funes.Session, prepare func(bin string, env []string)) string {
	t.Helper()
	needTools(t, "xdotool", "import", "dbus-send", "go")
	fakeTrayHost(t)
	app := newRealApp(t, sessions, nil)
	shots, bin, env := app.shots, app.bin, app.env
	if prepare != nil {
		prepare(bin, env)
	}
	logf, err := os.Create(filepath.Join(shots, logName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logf.Close() })
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	wid := findWindow(t, 30*time.Second)
	if wid == "" {
		t.Fatal("no window named Ireneo appeared in 30s")
	}
	run(t, "xdotool", "windowfocus", wid)
	time.Sleep(time.Second)
	return wid
}

// TestRealWindowOpenKeys: in the real window, keys pressed while a search
// result opens go to the new view, not to the results (Enter and Page
// Down sent together, before the conversation has arrived), and a
// conversation opened with a click on its row takes Page Down at once.
func TestRealWindowOpenKeys(t *testing.T) {
	shots := filepath.Join(repoRoot(t), "test-artifacts", "screens")
	wid := startRealApp(t, "open-keys-app.log", append(fixtureSessions(), longSession("cc-long-1000", 1000, "marmoset")), nil)
	run(t, "xdotool", "windowsize", wid, "1280", "800")
	time.Sleep(time.Second)
	sendKeys(t, wid, "ctrl+1", "ctrl+f", "ctrl+a")
	run(t, "xdotool", "type", "--window", wid, "--delay", "40", "marmoset")
	sendKeys(t, wid, "Return")
	results := settled(t, shots, "open-keys-results", nil)

	// Enter and Page Down in one go: the second key lands while the
	// conversation is still on its way.
	run(t, "xdotool", "key", "--window", wid, "--clearmodifiers", "Down", "Up", "Return", "Next")
	time.Sleep(2 * time.Second)
	paged := settled(t, shots, "open-keys-opened-paged", results)
	if y := selectedTabY(t, paged, 800); y < 0 || y > 200 {
		t.Errorf("after Enter the Conversations tab should be selected (selected tab at y=%.0f)", y)
	}
	// The results did not move: Search looks as it did.
	sendKeys(t, wid, "ctrl+1")
	back := settled(t, shots, "open-keys-results-again", paged)
	if d := pixelsDiffer(results, back); d >= 400 {
		t.Errorf("the key pressed while opening moved the results (%d pixels differ)", d)
	}
	// Opened again without the Page Down, the view is elsewhere: the key
	// had scrolled the new view.
	sendKeys(t, wid, "Down", "Up", "Return")
	time.Sleep(2 * time.Second)
	unpaged := settled(t, shots, "open-keys-opened", back)
	if d := pixelsDiffer(paged, unpaged); d < 400 {
		t.Errorf("the Page Down pressed while opening did not scroll the conversation (%d pixels differ)", d)
	}

	// A click on a row (the 60-turn session, the second): the transcript
	// takes the keyboard at once, and Page Down reads on.
	run(t, "xdotool", "mousemove", "--window", wid, "330", "340", "click", "1")
	time.Sleep(2 * time.Second)
	clicked := settled(t, shots, "open-keys-clicked", unpaged)
	sendKeys(t, wid, "Next")
	settled(t, shots, "open-keys-clicked-paged", clicked)
}
