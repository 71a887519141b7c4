package scrubber

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/scrub/scrubtest"
	"github.com/ireneo-app/ireneo/settings"
)

// The reported case (issue 22): a Claude Code session whose first message,
// and so whose title, holds an AWS key id and its secret access key. The
// importer titles the session by its first 80 characters, which cut the
// secret in two. Imported with scrub on, or imported with it off and then
// scrubbed, neither the title nor the transcript nor any file of the
// memory keeps the secret or the part of it the title kept.

const deploySession = "5e1f0c2a-7b3d-4c8e-9f10-2a3b4c5d6e7f"

// writeDeploySession writes the session as Claude Code stores it, in a
// projects folder, and returns the file and the two halves of the key.
func writeDeploySession(t *testing.T) (path, keyID, secret string) {
	t.Helper()
	keyID = scrubtest.Shapes["aws-id"](2201)
	secret = scrubtest.Shapes["aws-secret"](2202)
	prompt := "Deploy script fails. My AWS key is " + keyID + " and secret " + secret +
		"\n\nThe script runs `aws s3 sync ./dist s3://staging-site` and gets AccessDenied."
	lines := []map[string]any{
		{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/home/ana/site", "sessionId": deploySession,
			"version": "2.1.7", "type": "user", "uuid": "u-1", "timestamp": "2026-06-01T09:00:00.000Z",
			"message": map[string]any{"role": "user", "content": prompt}},
		{"parentUuid": "u-1", "isSidechain": false, "userType": "external", "cwd": "/home/ana/site", "sessionId": deploySession,
			"version": "2.1.7", "type": "assistant", "uuid": "a-1", "timestamp": "2026-06-01T09:00:05.000Z",
			"message": map[string]any{"model": "claude-sonnet-4", "id": "msg_1", "type": "message", "role": "assistant",
				"content": []map[string]any{
					{"type": "text", "text": "First, rotate that key: it is in this chat now. Then check the bucket policy."},
					{"type": "tool_use", "id": "tu_1", "name": "Bash", "input": map[string]any{
						"command": "AWS_ACCESS_KEY_ID=" + keyID + " AWS_SECRET_ACCESS_KEY=" + secret + " aws sts get-caller-identity"}},
				}}},
	}
	dir := filepath.Join(t.TempDir(), "projects", "-home-ana-site")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	path = filepath.Join(dir, deploySession+".jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, keyID, secret
}

// filesHolding lists the files under dir that hold marker, in any case
// (the index keeps terms lowercased).
func filesHolding(t *testing.T, dir, marker string) []string {
	t.Helper()
	out, err := scrubtest.FilesHolding(dir, marker)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkDeployRedacted checks the stored session and every file of the
// memory for the key's halves and the title's piece of the secret.
func checkDeployRedacted(t *testing.T, m *memory.Memory, dir, keyID, secret string) {
	t.Helper()
	ctx := context.Background()
	s, err := conversations.Get(ctx, m, conversations.GetOptions{SessionID: deploySession})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Session.Title, "Deploy script fails. My AWS key is [REDACTED:aws-access-token] and secret [REDACTED:") {
		t.Errorf("title not redacted: %q", redact.MaskText(mustScrubber(t), s.Session.Title))
	}
	var body strings.Builder
	for _, tr := range s.Turns {
		for _, b := range tr.Blocks {
			body.WriteString(b.Text + "\n")
		}
	}
	if strings.Count(body.String(), "[REDACTED:aws-secret-access-key]") < 2 {
		t.Errorf("transcript: the secret key is not redacted in both places:\n%s", redact.MaskText(mustScrubber(t), body.String()))
	}
	for name, mk := range map[string]string{"key id": keyID, "secret": secret, "secret's first 13": secret[:13], "secret's end": secret[20:]} {
		if strings.Contains(s.Session.Title+body.String(), mk) {
			t.Errorf("the %s is still in the session", name)
		}
		if files := filesHolding(t, dir, mk); len(files) > 0 {
			t.Errorf("the %s is still in %v", name, files)
		}
	}
}

func mustScrubber(t *testing.T) redact.SecretFinder {
	t.Helper()
	sc, err := For(nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestAWSPairRedactedAtImport(t *testing.T) {
	ctx := context.Background()
	src, keyID, secret := writeDeploySession(t)
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st := settings.Default()
	st.ScrubOnImport = true
	redact, err := ImportRedactor(st)
	if err != nil || redact == nil {
		t.Fatalf("import redactor: %v", err)
	}
	sum, err := importers.Run(ctx, m, []string{src}, importers.Options{Redact: redact})
	if err != nil || sum.New != 1 {
		t.Fatalf("import: %v, %+v", err, sum)
	}
	if sum.Redacted["aws-secret-access-key"] < 3 || sum.Redacted["aws-access-token"] < 3 {
		t.Errorf("redacted at import: %v, want both halves in the title, the message and the command", sum.Redacted)
	}
	checkDeployRedacted(t, m, dir, keyID, secret)
}

func TestAWSPairRedactedByScrubApply(t *testing.T) {
	ctx := context.Background()
	src, keyID, secret := writeDeploySession(t)
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := importers.Run(ctx, m, []string{src}, importers.Options{}); err != nil {
		t.Fatal(err)
	}
	s, err := conversations.Get(ctx, m, conversations.GetOptions{SessionID: deploySession})
	if err != nil {
		t.Fatal(err)
	}
	title := s.Session.Title
	// The title the importer made is cut inside the secret: that is what
	// left a piece of it behind.
	if !strings.Contains(title, secret[:8]) || strings.Contains(title, secret) || !strings.HasSuffix(title, "…") {
		t.Fatalf("the fixture no longer makes a title cut inside the secret: %d runes", len([]rune(title)))
	}
	if len(filesHolding(t, dir, secret)) == 0 {
		t.Fatal("the secret was never stored")
	}
	sc := mustScrubber(t)
	// What a screen may show of the stored title: masked previews only.
	if shown := redact.MaskText(sc, title); strings.Contains(shown, keyID[4:10]) || strings.Contains(shown, secret[2:8]) {
		t.Errorf("MaskText shows part of a key in the title: %q", shown)
	}
	scan, err := memscrub.Scan(ctx, m, memscrub.Options{Finder: sc})
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]int{}
	for _, f := range scan.Findings {
		if f.Rule == "aws-secret-access-key" {
			fields[f.Field]++
		}
		if strings.Contains(f.Preview, secret[:4]) || len([]rune(f.Preview)) > 5 {
			t.Errorf("preview %q shows more than the masked preview", f.Preview)
		}
	}
	if fields[redact.FieldTitle] != 1 || fields[redact.FieldText] < 2 {
		t.Errorf("scan found the secret key in %v, want the title once and the transcript twice", fields)
	}
	// "Redact all" on the Scrub screen is this call with no filter.
	if _, err := memscrub.Apply(ctx, m, memscrub.Options{Finder: sc}); err != nil {
		t.Fatal(err)
	}
	checkDeployRedacted(t, m, dir, keyID, secret)
	again, err := memscrub.Scan(ctx, m, memscrub.Options{Finder: sc})
	if err != nil || len(again.Findings) != 0 {
		t.Fatalf("scan after apply: %v, %d findings", err, len(again.Findings))
	}
}
