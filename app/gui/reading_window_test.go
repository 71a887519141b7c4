package gui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/settings"
)

// Reading in the real window: the built binary under Xvfb, driven with
// xdotool. Search, open the passage, read with Page Down, End and Home,
// find in the conversation, at 1280×800 and 900×600; each key must change
// what the screen shows (screenshot compares it with the one before).
func TestRealWindowReading(t *testing.T) {
	needTools(t, "xdotool", "import", "go")
	app := newRealApp(t, append(fixtureSessions(), toolSession()), func(set *settings.Settings) { set.ServerAutostart = false })
	shots, bin := app.shots, app.bin
	logf, err := os.Create(filepath.Join(shots, "reading-app.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(bin)
	cmd.Env = app.env
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

	for _, size := range [][2]int{{1280, 800}, {900, 600}} {
		w, h := size[0], size[1]
		tag := fmt.Sprintf("%dx%d", w, h)
		run(t, "xdotool", "windowsize", wid, fmt.Sprint(w), fmt.Sprint(h))
		time.Sleep(time.Second)
		sendKeys(t, wid, "ctrl+1")
		var shot []byte
		// Search: type, Enter; the query replaces the last one.
		sendKeys(t, wid, "ctrl+f", "ctrl+a")
		run(t, "xdotool", "type", "--window", wid, "--delay", "40", "heron")
		sendKeys(t, wid, "Return")
		shot = settled(t, shots, "reading-search-"+tag, nil)
		// Down then Up keeps the first conversation; Enter opens it at its
		// passage with the keys in the transcript: the tool calls.
		sendKeys(t, wid, "Down", "Up", "Return")
		time.Sleep(2 * time.Second)
		shot = settled(t, shots, "reading-transcript-tools-"+tag, shot)
		// The long session, opened at turn 30 of 60, read with the keys.
		sendKeys(t, wid, "ctrl+1", "ctrl+f", "ctrl+a")
		run(t, "xdotool", "type", "--window", wid, "--delay", "40", phraseLongTurn)
		sendKeys(t, wid, "Return")
		shot = settled(t, shots, "reading-search-long-"+tag, shot)
		sendKeys(t, wid, "Down", "Up", "Return")
		time.Sleep(2 * time.Second)
		shot = settled(t, shots, "reading-transcript-"+tag, shot)
		sendKeys(t, wid, "Home")
		shot = settled(t, shots, "reading-home-"+tag, shot)
		sendKeys(t, wid, "Next") // Page Down
		shot = settled(t, shots, "reading-pagedown-"+tag, shot)
		sendKeys(t, wid, "End")
		shot = settled(t, shots, "reading-end-"+tag, shot)
		// Find in the conversation: Ctrl+F, a word, Enter for the next.
		sendKeys(t, wid, "ctrl+f")
		run(t, "xdotool", "type", "--window", wid, "--delay", "40", "refactor")
		shot = settled(t, shots, "reading-find-"+tag, shot)
		sendKeys(t, wid, "Return")
		shot = settled(t, shots, "reading-find-next-"+tag, shot)
		sendKeys(t, wid, "Escape")
		settled(t, shots, "reading-find-closed-"+tag, shot)
	}
}

// settled is screenshot after a pause: on a loaded machine the app may
// draw a key's effect a second or two late, and a shot taken while it
// still shows the last one says nothing about the key.
func settled(t *testing.T, dir, name string, prev []byte) []byte {
	t.Helper()
	time.Sleep(1500 * time.Millisecond)
	return screenshot(t, dir, name, prev)
}
