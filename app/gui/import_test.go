package gui

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/ireneo-app/ireneo/conversations"
)

// fakeGitHubToken is a realistic but fake GitHub token for the scrub tests.
const fakeGitHubToken = "ghp_R3aLlyN0tAT0k3nButL00ksL1keOne8Qz4Xw"

// chatGPTExport writes a ChatGPT conversations.json with one conversation
// per title, each a question and an answer.
func chatGPTExport(t *testing.T, dir string, convs map[string][2]string) string {
	t.Helper()
	var out []map[string]any
	i := 0
	for title, qa := range convs {
		i++
		id := fmt.Sprintf("gpt-%d", i)
		node := func(nid, parent, child, role, text string, ts float64) map[string]any {
			n := map[string]any{"id": nid, "parent": parent, "children": []string{}}
			if child != "" {
				n["children"] = []string{child}
			}
			if role != "" {
				n["message"] = map[string]any{
					"id": nid, "author": map[string]any{"role": role}, "create_time": ts,
					"content": map[string]any{"content_type": "text", "parts": []string{text}},
					"status":  "finished_successfully", "weight": 1.0, "recipient": "all",
				}
			}
			return n
		}
		out = append(out, map[string]any{
			"id": id, "conversation_id": id, "title": title,
			"create_time": 1760000000.0 + float64(i), "update_time": 1760000100.0 + float64(i),
			"current_node": id + "-a",
			"mapping": map[string]any{
				id + "-root": node(id+"-root", "", id+"-q", "", "", 0),
				id + "-q":    node(id+"-q", id+"-root", id+"-a", "user", qa[0], 1760000000.0+float64(i)),
				id + "-a":    node(id+"-a", id+"-q", "", "assistant", qa[1], 1760000010.0+float64(i)),
			},
		})
	}
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "conversations.json")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestImportShowsSummary(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	s := u.imp
	dir := t.TempDir()
	export := chatGPTExport(t, dir, map[string][2]string{
		"Trip to Lisbon":  {"Where should we eat in Lisbon?", "Try the pastéis de nata in Belém."},
		"Key for the bot": {"Is this token ok? " + fakeGitHubToken, "Never paste tokens; rotate it now."},
	})
	u.showScreen(screenImport)
	if !s.redact.Checked {
		t.Fatal("redacting on import is on by default")
	}

	// A file dropped on the window imports it.
	u.dropped([]fyne.URI{storage.NewFileURI(export)})
	waitIdle(t, u)
	if !s.card.Visible() || s.card.Title != "Import finished" {
		t.Fatalf("summary card %q (visible %v); error %q", s.card.Title, s.card.Visible(), u.lastError)
	}
	if !strings.HasPrefix(s.summary.Text, "2 new, 0 updated, 0 unchanged, 0 skipped as forgotten, 0 failed (from 1 input).") {
		t.Fatalf("summary %q", s.summary.Text)
	}
	if !strings.Contains(s.summary.Text, "1 secret redacted: github-pat × 1") {
		t.Fatalf("summary should count the redacted token: %q", s.summary.Text)
	}
	if hits := grepDir(t, m.Dir(), fakeGitHubToken); len(hits) > 0 {
		t.Fatalf("the token was stored: %v", hits)
	}
	capture(t, u, "import-summary")
	if len(u.convs.items) != 7 {
		t.Fatalf("the conversation list should show the 2 new ones (%d)", len(u.convs.items))
	}

	// Importing again changes nothing, and says so; a notification is sent.
	test.AssertNotificationSent(t, fyne.NewNotification("Import finished", "0 new, 0 updated, 2 unchanged"), func() {
		s.importPaths([]string{export})
		waitIdle(t, u)
	})
	if !strings.HasPrefix(s.summary.Text, "0 new, 0 updated, 2 unchanged") {
		t.Fatalf("re-import summary %q", s.summary.Text)
	}

	// A bad file: the summary names it and why, and a dialog says what to do.
	bad := filepath.Join(dir, "broken.json")
	os.WriteFile(bad, []byte(`[{"title": "cut short", "mapping": {`), 0o600)
	s.importPaths([]string{bad})
	waitIdle(t, u)
	if s.card.Title != "Nothing was imported" || !strings.Contains(s.summary.Text, "1 failed") || !strings.Contains(s.summary.Text, "broken.json") {
		t.Fatalf("bad import summary %q: %q", s.card.Title, s.summary.Text)
	}
	capture(t, u, "import-error")
	if !strings.Contains(u.lastError, "import broken.json") || !strings.Contains(overlayText(u), "What to do") {
		t.Fatalf("want an error dialog naming the file, got %q / %q", u.lastError, overlayText(u))
	}
}

func TestImportDetectedSourcesAndWatch(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	// A Codex sessions folder in the (temp) home.
	sessions := filepath.Join(os.Getenv("HOME"), ".codex", "sessions", "2026", "03", "01")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	rollout := `{"timestamp":"2026-03-01T10:00:00.000Z","type":"session_meta","payload":{"id":"0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/src/watched","originator":"codex_cli_rs","cli_version":"0.50.0"}}
{"timestamp":"2026-03-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Rename the flux capacitor module"}]}}
{"timestamp":"2026-03-01T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Renamed flux capacitor to temporal drive."}]}}
`
	if err := os.WriteFile(filepath.Join(sessions, "rollout-2026-03-01T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001.jsonl"), []byte(rollout), 0o600); err != nil {
		t.Fatal(err)
	}
	u.showScreen(screenImport)
	waitIdle(t, u)
	codexDir := filepath.Join(os.Getenv("HOME"), ".codex", "sessions")
	found := false
	for _, l := range u.imp.locations {
		if l.Path == codexDir && l.Live {
			found = true
		}
	}
	if !found {
		t.Fatalf("the Codex folder was not detected: %+v", u.imp.locations)
	}
	// Turning on Watch saves it and imports what is there.
	u.setWatch(codexDir, true)
	waitIdle(t, u)
	if !u.watching(codexDir) || !strings.Contains(u.imp.summary.Text, "1 new") {
		t.Fatalf("watch on: watching %v, summary %q, error %q", u.watching(codexDir), u.imp.summary.Text, u.lastError)
	}
	if !strings.Contains(u.imp.watchLabel.String(), "Watching 1 folder") {
		t.Fatalf("watch status %q", u.imp.watchLabel.String())
	}
	// A session the agent writes now is imported by the watcher, and the
	// window shows it.
	second := strings.ReplaceAll(strings.ReplaceAll(rollout, "eeeeffff0001", "eeeeffff0002"), "flux capacitor", "warp coil")
	os.WriteFile(filepath.Join(sessions, "rollout-2026-03-01T11-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0002.jsonl"), []byte(second), 0o600)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(u.imp.watchLabel.String(), "Last import") {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher did not import the new session: %q", u.imp.watchLabel.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	waitIdle(t, u)
	listed := false
	for _, it := range u.convs.items {
		listed = listed || strings.Contains(it.Title, "warp coil")
	}
	if !listed {
		t.Fatal("the watched import is not in the conversation list")
	}
	u.setWatch(codexDir, false)
	waitIdle(t, u)
	if u.watching(codexDir) || u.stopWatch != nil {
		t.Fatal("watch off did not stop")
	}
}

func TestImportCancel(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	s := u.imp
	convs := map[string][2]string{}
	for i := 0; i < 3000; i++ {
		convs[fmt.Sprintf("Conversation number %d", i)] = [2]string{
			fmt.Sprintf("Question %d about %s", i, strings.Repeat("things ", 40)),
			fmt.Sprintf("Answer %d: %s", i, strings.Repeat("details ", 80)),
		}
	}
	export := chatGPTExport(t, t.TempDir(), convs)
	s.importPaths([]string{export})
	if !s.job.running() || !s.job.box.Visible() || s.job.stop.Disabled() {
		t.Fatal("an import should show its progress and a Cancel button")
	}
	test.Tap(s.job.stop)
	waitIdle(t, u)
	if s.card.Title != "Import cancelled" || s.job.box.Visible() {
		t.Fatalf("after cancel: %q (progress visible %v): %q", s.card.Title, s.job.box.Visible(), s.summary.Text)
	}
	if u.lastError != "" {
		t.Fatalf("a cancel is not an error: %q", u.lastError)
	}
	_, total, err := conversations.List(context.Background(), m, conversations.Query{})
	if err != nil || total != 5 {
		t.Fatalf("a cancelled import must change nothing: %d conversations (%v)", total, err)
	}
}

// TestImportedExportIsOff: an export zip found in Downloads, once
// imported from the window, has its Import off ("Imported") until the
// file changes.
func TestImportedExportIsOff(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	dl := filepath.Join(os.Getenv("HOME"), "Downloads")
	if err := os.MkdirAll(dl, 0o700); err != nil {
		t.Fatal(err)
	}
	conv := chatGPTExport(t, t.TempDir(), map[string][2]string{"Zipped once": {"A question in a zip", "An answer in a zip."}})
	data, _ := os.ReadFile(conv)
	zipPath := filepath.Join(dl, "chatgpt-export.zip")
	writeZip := func(extra string) {
		t.Helper()
		f, err := os.Create(zipPath)
		if err != nil {
			t.Fatal(err)
		}
		zw := zip.NewWriter(f)
		w, _ := zw.Create("conversations.json")
		w.Write(data)
		if extra != "" {
			w, _ := zw.Create("notes.txt")
			w.Write([]byte(extra))
		}
		zw.Close()
		f.Close()
	}
	writeZip("")
	button := func() *widget.Button {
		t.Helper()
		var b *widget.Button
		walk(u.imp.sources, func(o fyne.CanvasObject) {
			if bt, ok := o.(*widget.Button); ok && (bt.Text == "Import" || bt.Text == "Imported") {
				b = bt
			}
		})
		if b == nil {
			t.Fatalf("no Import button for %s; found %+v", zipPath, u.imp.locations)
		}
		return b
	}
	u.showScreen(screenImport)
	waitIdle(t, u)
	b := button()
	if b.Disabled() || b.Text != "Import" {
		t.Fatalf("a new export's button is %q (disabled %v)", b.Text, b.Disabled())
	}
	test.Tap(b)
	waitIdle(t, u)
	if b := button(); !b.Disabled() || b.Text != "Imported" {
		t.Fatalf("after its import the button is %q (disabled %v); error %q", b.Text, b.Disabled(), u.lastError)
	}
	// A new download under the same name is new again.
	time.Sleep(10 * time.Millisecond)
	writeZip("a newer export")
	u.imp.refresh()
	waitIdle(t, u)
	if b := button(); b.Disabled() {
		t.Fatal("a changed export's Import stays off")
	}
}
