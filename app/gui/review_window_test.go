package gui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/config"
	"github.com/ireneo-app/ireneo/memory"
)

// Secrets planted in a ChatGPT export the review imports with --no-scrub:
// made here, never real.
const (
	plantedPassword = "Marble47"
	plantedOpenAI   = "sk-proj-Q7vLm2Xc9RtB4nWp8KsZ1yHd6FgJ3aUe0TiOq5Mv"
)

// gptTurn is one message of a ChatGPT export written by chatGPTExportTurns.
type gptTurn struct{ role, text string }

// chatGPTExportTurns writes conversations.json in ChatGPT's export shape: one
// conversation per title, its messages a chain under a root node, with
// ids review-<the file's folder>-<n>.
func chatGPTExportTurns(t *testing.T, path string, start time.Time, convs map[string][]gptTurn) {
	t.Helper()
	var out []map[string]any
	n := 0
	for title, turns := range convs {
		n++
		id := fmt.Sprintf("review-%s-%d", filepath.Base(filepath.Dir(path)), n) // one per export
		mapping := map[string]any{"root": map[string]any{"id": "root", "message": nil, "parent": nil, "children": []string{id + "-0"}}}
		parent := "root"
		for i, tr := range turns {
			node := fmt.Sprintf("%s-%d", id, i)
			var children []string
			if i+1 < len(turns) {
				children = []string{fmt.Sprintf("%s-%d", id, i+1)}
			}
			mapping[node] = map[string]any{"id": node, "parent": parent, "children": children, "message": map[string]any{
				"id": node, "author": map[string]any{"role": tr.role}, "create_time": float64(start.Add(time.Duration(n*60+i) * time.Minute).Unix()),
				"content": map[string]any{"content_type": "text", "parts": []string{tr.text}}, "status": "finished_successfully", "weight": 1.0,
			}}
			parent = node
		}
		out = append(out, map[string]any{"title": title, "id": id, "conversation_id": id, "current_node": parent, "mapping": mapping,
			"create_time": float64(start.Add(time.Duration(n*60) * time.Minute).Unix()), "update_time": float64(start.Add(time.Duration(n*60+len(turns)) * time.Minute).Unix())})
	}
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// reviewPrepare fills the review's memory as a person's would be: the
// repo's real exports imported by the real binary with scrub on, a
// ChatGPT export with planted secrets imported with --no-scrub, a
// Japanese one, a token, and agents' calls for Activity and Insights.
func reviewPrepare(t *testing.T) func(bin string, env []string) {
	return func(bin string, env []string) {
		ireneo := func(args ...string) {
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			t.Logf("ireneo %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		ireneo("token", "create", "claude-code")
		root := repoRoot(t)
		td := filepath.Join(root, "importers", "testdata")
		ireneo("import", filepath.Join(td, "real", "codex"), filepath.Join(td, "real", "claude-code"),
			filepath.Join(td, "real", "claude-ai-conversation-api", "claude-bakery-chat.json"),
			filepath.Join(td, "chatgpt", "conversations.json"), filepath.Join(td, "claude"))
		start := time.Date(2026, 5, 12, 9, 0, 0, 0, time.UTC)
		planted := filepath.Join(t.TempDir(), "planted", "conversations.json")
		chatGPTExportTurns(t, planted, start, map[string][]gptTurn{"Staging server setup": {
			{"user", "The staging box will not start. Here is what I ran:\n\n```\nexport PGPASSWORD='" + plantedPassword + "'\npsql -h db.staging -U app shop\nOPENAI_API_KEY=" + plantedOpenAI + " ./worker\n```"},
			{"assistant", "psql reads PGPASSWORD, so the password \"" + plantedPassword + "\" is now in this chat: change it. The worker fails because the key is read before the env file loads."},
		}})
		ireneo("import", "--no-scrub", planted)
		jp := filepath.Join(t.TempDir(), "jp", "conversations.json")
		chatGPTExportTurns(t, jp, start.Add(24*time.Hour), map[string][]gptTurn{"京都の紅葉の見頃": {
			{"user", "京都で紅葉を見るなら、いつ頃がいちばんきれいですか？おすすめのお寺も教えてください。"},
			{"assistant", "見頃は例年**十一月中旬から下旬**です。\n\n- **東福寺**：通天橋からの眺めが有名です。\n- **永観堂**：夜のライトアップもあります。\n\n混雑を避けるなら朝早く行くのがおすすめです。"},
		}})
		ireneo("import", jp)
		var memDir string
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, config.EnvHome+"="); ok {
				memDir = v
			}
		}
		m, err := memory.Open(memDir)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		ctx := context.Background()
		calls := []auditlog.Entry{
			{Client: "claude-code", Tool: "recall", Args: `{"query":"deploy script aws","k":8}`, Hits: 3, Outcome: auditlog.OK},
			{Client: "claude-code", Tool: "get", Args: `{"session_id":"claude_code:cc-deploy"}`, Hits: 1, Outcome: auditlog.OK},
			{Client: "codex", Tool: "recall", Args: `{"query":"importer layout","project":"ireneo"}`, Hits: 5, Outcome: auditlog.OK},
			{Client: "codex", Tool: "sessions", Args: `{"project":"ireneo"}`, Hits: 2, Outcome: auditlog.OK},
			{Client: "cursor", Tool: "recall", Args: `{"query":"marmoset"}`, Outcome: auditlog.Unauthorized},
		}
		for i, c := range calls {
			c.TS = time.Now().Add(-time.Duration(len(calls)-i) * 37 * time.Hour)
			c.Duration = time.Duration(20+i*15) * time.Millisecond
			if err := auditlog.Add(ctx, m, c); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestRealWindowReview photographs every screen of the real window at
// 1280×800 and 900×600 over a lifelike memory (reviewSessions: secrets
// stored unscrubbed, a Markdown table, an agent session, CJK, a
// 1,000-turn session; reviewPrepare's real exports, planted secrets
// imported with --no-scrub and a Japanese export), with a token made and
// agents' calls logged, the conversations Search opens, Forget from a
// conversation, Scrub after a scan, Connect's cards, Settings' Sync card
// and the file dialog, into reviewDir as review-*.png, for a person to
// look at. It runs only when IRENEO_REVIEW=1: it checks nothing the other
// real-window tests do not, and takes a few minutes.
func TestRealWindowReview(t *testing.T) {
	if os.Getenv("IRENEO_REVIEW") != "1" {
		t.Skip("IRENEO_REVIEW=1 takes the review screenshots")
	}
	shots := reviewDir(t)
	wid := startRealApp(t, "review-app.log", reviewSessions(), reviewPrepare(t))

	searches := []struct{ name, query string }{
		{"secrets", "deploy script"}, {"canvas", "local user"}, {"planted", "staging box"}, {"table", "catalogue databases"},
		{"agent", "importer layout"}, {"long", "marmoset"}, {"cjk", "Tokyo spring"}, {"bakery", "bakery"},
	}
	click := func(x, y int) {
		run(t, "xdotool", "mousemove", "--window", wid, fmt.Sprint(x), fmt.Sprint(y), "click", "1")
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
		// Connect's cards: Claude Code (a token's config) and Gemini CLI.
		sendKeys(t, wid, "ctrl+6")
		tabY := 396
		if size[1] < 800 {
			tabY = 414
		}
		click(301, tabY)
		shot = settled(t, shots, "review-6-connect-claude-code-"+tag, shot)
		click(606, tabY)
		shot = settled(t, shots, "review-6-connect-gemini-cli-"+tag, shot)
		// Settings scrolled to its end (the wheel over the labels: an entry
		// under the pointer would take it): the Sync card.
		sendKeys(t, wid, "ctrl+8")
		time.Sleep(500 * time.Millisecond)
		run(t, "xdotool", "mousemove", "--window", wid, "200", "450", "click", "--repeat", "300", "--delay", "5", "5")
		shot = settled(t, shots, "review-8-settings-end-"+tag, shot)
		// Conversations' project filter, open.
		sendKeys(t, wid, "ctrl+2")
		time.Sleep(500 * time.Millisecond)
		click(180, 88)
		shot = settled(t, shots, "review-2-conversations-projects-"+tag, shot)
		sendKeys(t, wid, "Escape")
		// The Japanese export, newest, first in the list (xdotool cannot
		// type its words into Search).
		click(200, 250)
		time.Sleep(time.Second)
		shot = settled(t, shots, "review-open-japanese-"+tag, shot)
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
		forgetX := 862
		if size[0] < 1280 {
			forgetX = 717
		}
		click(forgetX, 49)
		shot = settled(t, shots, "review-forget-one-"+tag, shot)
		// Scrub after a scan.
		sendKeys(t, wid, "ctrl+4")
		click(183, 49)
		time.Sleep(3 * time.Second)
		shot = settled(t, shots, "review-scrub-scanned-"+tag, shot)
		// The file dialog: a typed path.
		sendKeys(t, wid, "ctrl+o")
		shot = settled(t, shots, "review-dialog-import-"+tag, shot)
		sendKeys(t, wid, "Escape")
	}
}
