package gui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
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
	shots := filepath.Join(repoRoot(t), "test-artifacts", "screens")
	wid := startRealApp(t, "review-app.log", reviewSessions(), func(bin string, env []string) {
		tok := exec.Command(bin, "token", "create", "claude-code")
		tok.Env = env
		if out, err := tok.CombinedOutput(); err != nil {
			t.Logf("token create: %v\n%s", err, out)
		}
	})

	searches := []struct{ name, query string }{
		{"secrets", "deploy script"}, {"canvas", "local user"}, {"table", "catalogue databases"},
		{"agent", "importer layout"}, {"long", "marmoset"}, {"cjk", "Tokyo spring"},
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
		// Forget… on the open conversation: it alone, ticked.
		forgetX := "862"
		if size[0] < 1280 {
			forgetX = "717"
		}
		run(t, "xdotool", "mousemove", "--window", wid, forgetX, "49", "click", "1")
		shot = settled(t, shots, "review-forget-one-"+tag, shot)
		// Scrub after a scan.
		sendKeys(t, wid, "ctrl+4")
		run(t, "xdotool", "mousemove", "--window", wid, "183", "49", "click", "1")
		time.Sleep(3 * time.Second)
		shot = settled(t, shots, "review-scrub-scanned-"+tag, shot)
		// The file dialog: a typed path.
		sendKeys(t, wid, "ctrl+o")
		shot = settled(t, shots, "review-dialog-import-"+tag, shot)
		sendKeys(t, wid, "Escape")
	}
}
