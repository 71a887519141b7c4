package gui

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/cli"
	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/memory"
)

// shownSecretsMemory is the fixture memory plus conversations whose
// secrets were never scrubbed (an import with --no-scrub), and an agent's
// query holding a token in the audit log.
func shownSecretsMemory(t *testing.T) *memory.Memory {
	t.Helper()
	m := newTestMemory(t)
	ctx := context.Background()
	if _, err := m.Ingest(ctx, secretSessions(), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	// And one through the CLI's own import with --no-scrub, as a person's
	// would be: a ChatGPT export whose secrets the scanner finds.
	export := filepath.Join(t.TempDir(), "planted", "conversations.json")
	chatGPTExportTurns(t, export, time.Date(2026, 5, 12, 9, 0, 0, 0, time.UTC), map[string][]gptTurn{"Staging server setup": {
		{"user", "The staging box will not start:\n\n```\nexport PGPASSWORD='" + plantedPassword + "'\nOPENAI_API_KEY=" + plantedOpenAI + " ./worker\n```"},
		{"assistant", "psql reads PGPASSWORD, so the password \"" + plantedPassword + "\" is now in this chat: change it."},
	}})
	var out, errb bytes.Buffer
	if code := cli.Run(ctx, []string{"--memory", m.Dir(), "import", "--no-scrub", export}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("ireneo import --no-scrub: %d\n%s%s", code, out.String(), errb.String())
	}
	if err := auditlog.Add(ctx, m, auditlog.Entry{TS: time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC), Client: "codex", Tool: "recall",
		Outcome: auditlog.OK, Args: `{"query":"why does ` + otherGitHubToken + ` fail"}`}); err != nil {
		t.Fatal(err)
	}
	return m
}

// shownSecretValues are the secrets shownSecretsMemory stores.
var shownSecretValues = []string{fakeAWSKey, fakeAWSSecret, fakeGitHubToken, otherGitHubToken, canvasPassword, plantedPassword, plantedOpenAI}

// openAllFolds opens every fold under o (a run's turns, tool calls,
// results), as a person reading everything would, until none is closed.
func openAllFolds(o fyne.CanvasObject) {
	for range 4 {
		var closed []*fold
		walk(o, func(c fyne.CanvasObject) {
			if f, ok := c.(*fold); ok && !f.open {
				closed = append(closed, f)
			}
		})
		if len(closed) == 0 {
			return
		}
		for _, f := range closed {
			f.setOpen(true)
		}
	}
}

// secretLinks are the masked secrets under o that a click reveals.
func secretLinks(o fyne.CanvasObject) []*widget.Hyperlink {
	var out []*widget.Hyperlink
	walk(o, func(c fyne.CanvasObject) {
		if h, ok := c.(*widget.Hyperlink); ok && h.URL != nil && h.URL.String() == secretURL.String() {
			out = append(out, h)
		}
	})
	return out
}

// TestScreensNeverShowSecrets is TestScrubNeverShowsSecrets' walk over
// every rendered text, on the screens that show the memory's text: a
// memory imported with scrub off holds an AWS key pair (in a title, a
// message and a tool call's input), GitHub tokens and the reported
// canvas's password. Search's rows and detail (before and after it reads
// the turns), the transcript with every fold open, the Conversations and
// Forget lists, the Forget confirmation, Activity and Scrub show none of
// them beyond its masked preview; the passages and the transcript say
// Scrub would redact them, and a click on a masked secret shows it.
func TestScreensNeverShowSecrets(t *testing.T) {
	m := shownSecretsMemory(t)
	for _, v := range []string{fakeAWSSecret, fakeGitHubToken, canvasPassword, plantedPassword, plantedOpenAI} {
		if len(grepDir(t, m.Dir(), v)) == 0 {
			t.Fatalf("the memory does not hold %s…: the walk would see nothing", v[:2])
		}
	}
	u := newTestUI(t, m)
	u.win.Resize(fyne.NewSize(1280, 800))
	check := func(when string) {
		t.Helper()
		waitIdle(t, u)
		relayout(u.win.Content())
		if l := leaks(renderedTexts(u), shownSecretValues...); len(l) > 0 {
			t.Errorf("%s: a secret is on screen: %s", when, strings.Join(l, "; "))
		}
	}
	onScreen := func(want string) bool { return strings.Contains(strings.Join(renderedTexts(u), "\n"), want) }

	// Search: the rows, then the detail as recall gave it and as the
	// transcript renders it once the turns are read.
	for _, q := range []string{"deploy script", "local user", "generated password", "bot token", "staging box", "PGPASSWORD"} {
		search(t, u, q)
		if u.search.length() == 0 {
			t.Fatalf("%q found nothing", q)
		}
		check("Search for " + q)
		for i := range min(u.search.length(), 3) {
			u.search.list.Select(i)
			check("Search for " + q + ", a result's detail")
			openAllFolds(u.search.detail)
			check("Search for " + q + ", the detail's folds open")
		}
	}
	search(t, u, "deploy script")
	if !onScreen("Scrub would redact") {
		t.Error("Search's detail does not say Scrub would redact the secrets it masks")
	}
	if !onScreen("Write: deploy.sh") || onScreen(`{"file_path"`) {
		t.Errorf("Search shows a tool call's JSON, not the transcript's line:\n%s", strings.Join(renderedTexts(u), "\n"))
	}
	capture(t, u, "search-secrets-masked")

	// The transcript, from Search and from the list, every fold open.
	for _, id := range []string{"claude_code:cc-deploy", "chatgpt:conv-local-user", "chatgpt:review-planted-1"} {
		tv := openTranscript(t, u, id)
		check("the transcript of " + id)
		openAllFolds(tv.turns)
		check("the transcript of " + id + ", every fold open")
		if tv.notice.Hidden || !strings.Contains(tv.noticeMsg.Text, "Scrub would redact") {
			t.Errorf("%s: the transcript does not say Scrub would redact its secrets", id)
		}
	}
	capture(t, u, "transcript-secrets-masked")

	// A click on a masked secret shows it, another hides it again.
	tv := openTranscript(t, u, "claude_code:cc-deploy")
	links := secretLinks(tv.turns)
	if len(links) == 0 {
		t.Fatal("no masked secret to click in the transcript")
	}
	links[0].OnTapped() // test.Tap taps its corner, outside the text
	waitIdle(t, u)
	if l := leaks(renderedTexts(u), shownSecretValues...); len(l) == 0 {
		t.Error("a click on a masked secret does not show it")
	}
	links = secretLinks(tv.turns)
	for _, l := range links {
		if len(l.Text) > 10 {
			l.OnTapped()
			break
		}
	}
	check("after the secret was hidden again")

	// The lists and the Forget confirmation.
	u.showScreen(screenConversations)
	check("the Conversations list")
	test.Tap(u.convs.forget)
	check("Forget, the conversation listed")
	test.Tap(u.forget.forgetButton)
	check("the Forget confirmation")
	typeKey(t, u, fyne.KeyEscape)
	u.showScreen(screenActivity)
	check("Activity")
	u.showScreen(screenScrub)
	test.Tap(u.scrub.scan)
	check("Scrub, after a scan")
	if len(u.scrub.findings) == 0 {
		t.Fatal("the scan found nothing: the walk saw no secret")
	}
}

// TestSecretValues: what the screens mask is what Scrub finds, and
// key-shaped words it misses; short secrets mask as dots.
func TestSecretValues(t *testing.T) {
	s := newShownSecrets()
	s.load(nil)
	text := "$PlainPassword = \"" + canvasPassword + "\" and key " + fakeAWSKey + " then Kx9mP2vL8qR4nT6wY1zB"
	got := s.mask(text)
	if strings.Contains(got, canvasPassword) || strings.Contains(got, fakeAWSKey) || strings.Contains(got, "Kx9mP2vL8qR4") {
		t.Fatalf("mask left a secret: %q", got)
	}
	if !strings.Contains(got, `"••••••"`) || !strings.Contains(got, "AK…LM") {
		t.Fatalf("mask %q: a short secret shows dots, a long one its ends", got)
	}
	// A variable's name before its value stays readable; only the value
	// is masked, whether the scrubber or the key-shape check finds it.
	for _, line := range []string{"OPENAI_API_KEY=" + plantedOpenAI + " ./worker", "MY_TOKEN=Kx9mP2vL8qR4nT6wY1zBq7Hd ./run"} {
		name, value, _ := strings.Cut(strings.Fields(line)[0], "=")
		if got := s.mask(line); !strings.HasPrefix(got, name+"=") || strings.Contains(got, value[4:len(value)-4]) {
			t.Errorf("mask(%q) = %q: want the name kept and the value masked", line, got)
		}
	}
	if s.mask("nothing secret here, just words") != "nothing secret here, just words" {
		t.Fatal("mask changed clean text")
	}
}
