package gui

import (
	"bytes"
	"context"
	"errors"
	"log"
	"os"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
	"github.com/ireneo-app/ireneo/recall"
	"github.com/ireneo-app/ireneo/redact"
)

// fakeAWSKey is a realistic but fake AWS access key id.
const fakeAWSKey = "AKIAZ7QW3RTY5UIO2PLM"

// otherGitHubToken is a second fake token, left unselected.
const otherGitHubToken = "ghp_AnotherFakeTokenForTheGuiTest0123456"

func TestScrubRedacts(t *testing.T) {
	m := newTestMemory(t)
	// Secrets stored without scrub-on-import, as an older import would have.
	leaky := []*funes.Session{{ID: "conv-leak", Harness: funes.HarnessChatGPT, Title: "Deploy keys", Turns: []funes.Turn{
		{TurnUUID: "l0", Seq: 0, TS: time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC), Role: funes.RoleUser,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: "My token is " + fakeGitHubToken + " for the deploy bot."}}},
		{TurnUUID: "l1", Seq: 1, TS: time.Date(2026, 2, 1, 8, 1, 0, 0, time.UTC), Role: funes.RoleUser,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: "And the AWS key id " + fakeAWSKey + " with the deploy bot."}}},
	}}, {ID: "conv-leak-2", Harness: funes.HarnessClaude, Title: "Other keys", Turns: []funes.Turn{
		{TurnUUID: "o0", Seq: 0, TS: time.Date(2026, 2, 2, 8, 0, 0, 0, time.UTC), Role: funes.RoleUser,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: "The CI token is " + otherGitHubToken + " please keep it."}}},
	}}}
	if _, err := m.Ingest(context.Background(), leaky, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	u := newTestUI(t, m)
	s := u.scrub
	u.showScreen(screenScrub)
	test.Tap(s.scan)
	waitIdle(t, u)
	rules := map[string]memscrub.Finding{}
	for _, f := range s.findings {
		rules[f.Rule] = f
	}
	capture(t, u, "scrub-findings")
	var gh memscrub.Finding
	ok := false
	for _, f := range s.findings {
		if f.SessionID == "conv-leak" && f.Rule == "github-pat" {
			gh, ok = f, true
		}
	}
	if !ok || len(s.findings) < 3 {
		t.Fatalf("scan found %d findings (%v); status %q", len(s.findings), rules, s.status.Text)
	}
	// The table shows conversation, rule and a masked preview, never the secret.
	if got := scrubCell(gh, 1, s.titles); got != "Deploy keys" {
		t.Fatalf("conversation cell %q", got)
	}
	if p := scrubCell(gh, 4, s.titles); p != "gh…Xw" || strings.Contains(p, fakeGitHubToken[4:10]) {
		t.Fatalf("preview %q should be masked", p)
	}

	// Allow-list one: the AWS key is a "false positive" here. Not a
	// secret acts on the ticked row, not the highlighted one.
	if !s.allow.Disabled() {
		t.Fatal("Not a secret is on with nothing ticked")
	}
	for i, f := range s.findings {
		if f.Rule == "github-pat" {
			s.table.Select(widget.TableCellID{Row: i, Col: 1}) // highlighted, not ticked
		}
	}
	for _, f := range s.findings {
		if f.Rule != "github-pat" {
			s.toggle(f, true)
			break
		}
	}
	test.Tap(s.allow)
	waitIdle(t, u)
	for _, f := range s.findings {
		if f.Rule != "github-pat" {
			t.Fatalf("allow-listed finding still listed: %+v", f)
		}
	}

	// Select the GitHub token and redact the selection.
	s.toggle(gh, true)
	if s.redactSelected.Disabled() {
		t.Fatal("Redact selected should be enabled")
	}
	test.Tap(s.redactSelected)
	if !strings.Contains(overlayText(u), "cannot be undone") {
		t.Fatalf("confirmation %q", overlayText(u))
	}
	capture(t, u, "scrub-confirm")
	tapDialogButton(t, u, "Redact")
	waitIdle(t, u)
	if !strings.Contains(s.report.Text, "Redacted 1 secret in 1 conversation: github-pat × 1") {
		t.Fatalf("report %q; error %q", s.report.Text, u.lastError)
	}
	if hits := grepDir(t, m.Dir(), fakeGitHubToken); len(hits) > 0 {
		t.Fatalf("the token is still in %v", hits)
	}
	capture(t, u, "scrub-report")
	// The rescan lists only the token that was not selected; the AWS key
	// is allowed.
	if len(s.findings) != 1 || s.findings[0].SessionID != "conv-leak-2" {
		t.Fatalf("rescan lists %+v, want only the other conversation's token", s.findings)
	}
	if hits := grepDir(t, m.Dir(), otherGitHubToken); len(hits) == 0 {
		t.Fatal("an unselected secret was redacted too")
	}
	// Redact all takes the rest.
	test.Tap(s.redactAll)
	tapDialogButton(t, u, "Redact")
	waitIdle(t, u)
	if len(s.findings) != 0 || len(grepDir(t, m.Dir(), otherGitHubToken)) > 0 {
		t.Fatalf("after Redact all: %d findings left", len(s.findings))
	}
	// Recall still finds the conversation by its other words.
	res, err := recall.Recall(context.Background(), m, recall.Options{Query: "deploy bot"})
	if err != nil || len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Text+res.Hits[len(res.Hits)-1].Text, "[REDACTED:github-pat]") {
		t.Fatalf("recall after redaction: %v %+v", err, res)
	}
}

// TestScrubCellFields: findings outside a block's text say where they are,
// and redacting an audit finding scans the audit log.
func TestScrubCellFields(t *testing.T) {
	titles := map[string]string{"codex:c1": "Clone the repo"}
	for _, c := range []struct {
		f          memscrub.Finding
		conv, what string
	}{
		{memscrub.Finding{Source: "codex", SessionID: "c1", Seq: 2, Block: 0}, "Clone the repo", "turn 3"},
		{memscrub.Finding{Source: "codex", SessionID: "c1", Seq: -1, Block: -1, Field: redact.FieldTitle}, "Clone the repo", "title"},
		{memscrub.Finding{Source: "codex", SessionID: "c1", Seq: -1, Block: -1, Field: redact.FieldWorkdir}, "Clone the repo", "workdir"},
		{memscrub.Finding{Source: "codex", SessionID: "c1", Seq: 0, Block: 1, Field: redact.FieldToolName}, "Clone the repo", "turn 1, tool_name"},
		{memscrub.Finding{Seq: -1, Block: -1, Field: memscrub.FieldAudit, AuditID: 42}, "Audit log (an agent's query)", "call 42"},
	} {
		if got := scrubCell(c.f, 1, titles); got != c.conv {
			t.Errorf("%+v: conversation cell %q, want %q", c.f, got, c.conv)
		}
		if got := scrubCell(c.f, 3, titles); got != c.what {
			t.Errorf("%+v: where cell %q, want %q", c.f, got, c.what)
		}
	}
	// A short secret (a password) previews as the other screens mask it.
	if got := scrubCell(memscrub.Finding{Preview: redact.MaskSecret(canvasPassword)}, 4, titles); got != shownMask(canvasPassword) || got == "…" {
		t.Errorf("a password's preview cell %q, want %q", got, shownMask(canvasPassword))
	}
	o := redactOptions([]memscrub.Finding{{ID: "a", Field: memscrub.FieldAudit, AuditID: 1}, {ID: "b", Source: "codex", SessionID: "c1"}})
	if !o.AuditLog || len(o.Sessions) != 1 || o.Sessions[0] != "codex:c1" || len(o.IDs) != 2 {
		t.Errorf("redact options %+v", o)
	}
}

// fakeAWSSecret is a fake AWS secret access key, the pair of fakeAWSKey.
const fakeAWSSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8V2Lm4Tq"

// TestScrubNeverShowsSecrets plants secrets where the Scrub screen shows
// text (an AWS key pair in a Claude Code session's title, tokens in turns
// and in an agent's query), and reads every text the window renders, after
// a scan, after "Not a secret", with the confirmation open and after an
// error: none holds more of a secret than its masked preview. The summary
// line follows a dismissed row.
func TestScrubNeverShowsSecrets(t *testing.T) {
	m := newTestMemory(t)
	ctx := context.Background()
	ts := time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC)
	title := "Deploy script fails. My AWS key is " + fakeAWSKey + " and secret " + fakeAWSSecret
	leaky := []*funes.Session{{ID: "cc-deploy", Harness: funes.HarnessClaudeCode, Title: title, Workdir: "/src/deploy", Turns: []funes.Turn{
		{TurnUUID: "d0", Seq: 0, TS: ts, Role: funes.RoleUser,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: "Deploy fails with key " + fakeAWSKey + " and secret " + fakeAWSSecret + "; the bot token is " + fakeGitHubToken}}},
	}}}
	if _, err := m.Ingest(ctx, leaky, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := auditlog.Add(ctx, m, auditlog.Entry{TS: ts, Client: "codex", Tool: "recall", Outcome: auditlog.OK,
		Args: `{"query":"why does ` + otherGitHubToken + ` fail"}`}); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })

	u := newTestUI(t, m)
	s := u.scrub
	u.showScreen(screenScrub)
	u.win.Resize(fyne.NewSize(1280, 800))
	test.Tap(s.scan)
	waitIdle(t, u)
	secrets := []string{fakeAWSKey, fakeAWSSecret, fakeGitHubToken, otherGitHubToken}
	check := func(when string) {
		t.Helper()
		texts := renderedTexts(u)
		if l := leaks(texts, secrets...); len(l) > 0 {
			t.Errorf("%s: a secret is on screen: %s", when, strings.Join(l, "; "))
		}
		// The walk does see the findings table and its masked title.
		if joined := strings.Join(texts, "\n"); !strings.Contains(joined, "Deploy script fails. My AWS key is AK…LM and secret wJ…Tq") {
			t.Errorf("%s: the masked title is not on screen:\n%s", when, joined)
		}
	}
	var titleFinding memscrub.Finding
	row := -1
	for i, f := range s.findings {
		if f.Field == redact.FieldTitle && f.Rule == "aws-access-token" {
			titleFinding, row = f, i
		}
	}
	if row < 0 {
		t.Fatalf("no aws-access-token finding in the title: %+v", s.findings)
	}
	before := len(s.findings)
	if !strings.Contains(s.status.Text, plural(before, "finding", "findings")) {
		t.Fatalf("status %q does not count %d findings", s.status.Text, before)
	}
	capture(t, u, "scrub-secrets-1280x800")
	check("after the scan")
	u.win.Resize(fyne.NewSize(900, 600))
	capture(t, u, "scrub-secrets-900x600")
	check("at 900×600")

	// "Not a secret" on the title's key: the report names the
	// conversation by its masked title, and the summary follows.
	s.toggle(titleFinding, true)
	test.Tap(s.allow)
	waitIdle(t, u)
	after := len(s.findings)
	if after >= before {
		t.Fatalf("%d findings after Not a secret, %d before", after, before)
	}
	if !strings.Contains(s.status.Text, "Scanned") || !strings.Contains(s.status.Text, plural(after, "finding", "findings")) ||
		!strings.Contains(s.status.Text, "hidden as not") {
		t.Errorf("summary after Not a secret: %q (want %d findings)", s.status.Text, after)
	}
	if !strings.Contains(s.report.Text, titleFinding.Preview) {
		t.Errorf("report %q", s.report.Text)
	}
	check("after Not a secret")

	// The confirmation, and an error carrying a secret.
	test.Tap(s.redactAll)
	check("with the confirmation open")
	typeKey(t, u, fyne.KeyEscape) // cancels: nothing is redacted
	waitIdle(t, u)
	if u.win.Canvas().Overlays().Top() != nil || len(s.findings) != after || len(grepDir(t, m.Dir(), fakeGitHubToken)) == 0 {
		t.Fatalf("Escape should cancel the Redact confirmation (dialog open: %v, %d findings)", u.win.Canvas().Overlays().Top() != nil, len(s.findings))
	}
	u.showError("read "+title, errors.New("bad line: "+fakeGitHubToken))
	texts := renderedTexts(u)
	if l := leaks(append(texts, u.lastError, logged.String()), secrets...); len(l) > 0 {
		t.Errorf("an error shows a secret: %s", strings.Join(l, "; "))
	}
	if !strings.Contains(logged.String(), "gh…") {
		t.Errorf("the log does not have the masked error: %q", logged.String())
	}
}

// TestMaskSecrets: what the finder finds and key-shaped random words are
// masked; paths, identifiers, hashes and ids stay readable.
func TestMaskSecrets(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"key " + fakeAWSSecret + " here":                           "key wJ…Tq here",
		"token Kx9mP2vL8qR4nT6wY1zB, thanks":                       "token Kx…zB, thanks",
		"/home/Ana/Projects2/app/src/Main2.go":                     "/home/Ana/Projects2/app/src/Main2.go",
		"TestScrubApplyRemovesSecretsFromEveryFile2":               "TestScrubApplyRemovesSecretsFromEveryFile2",
		"commit 3f9a1c2b7e4d5a6b8c9d0e1f2a3b4c5d6e7f8a9b":          "commit 3f9a1c2b7e4d5a6b8c9d0e1f2a3b4c5d6e7f8a9b",
		"session 0b6f2c8e-4d1a-4e5b-9c3d-7a8b9c0d1e2f":             "session 0b6f2c8e-4d1a-4e5b-9c3d-7a8b9c0d1e2f",
		"model claude-sonnet-4-5-20250929":                         "model claude-sonnet-4-5-20250929",
		"Deploy script fails. My AWS key is AKIA and nothing else": "Deploy script fails. My AWS key is AKIA and nothing else",
		"MY_TOKEN=Kx9mP2vL8qR4nT6wY1zBq7Hd ./run":                  "MY_TOKEN=Kx…Hd ./run", // the variable's name stays
	} {
		if got := maskSecrets(nil, in); got != want {
			t.Errorf("maskSecrets(%q) = %q, want %q", in, got, want)
		}
	}
	// The finder's spans are masked too, overlapping ones once.
	f := spanFinder{{4, 24}, {10, 30}}
	if got := maskSecrets(f, "key "+fakeAWSKey+"xxxxxx tail"); got != "key AK…xx tail" {
		t.Errorf("finder spans: %q", got)
	}
}

// spanFinder is a redact.SecretFinder that finds fixed spans.
type spanFinder [][2]int

func (s spanFinder) FindSecrets(text string, found func(rule string, start, end int)) {
	for _, sp := range s {
		if sp[1] <= len(text) {
			found("test", sp[0], sp[1])
		}
	}
}
func (spanFinder) HasRule(string) bool             { return true }
func (spanFinder) RedactedText(rule string) string { return "[REDACTED:" + rule + "]" }
