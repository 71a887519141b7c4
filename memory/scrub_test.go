package memory

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// The fake secrets below are built at run time, by concatenation and from
// a seeded generator, so this repository's own source never trips a secret
// scanner. They have the shapes of real keys and none is real.

// fakeRand returns n characters from alphabet, the same on every run.
func fakeRand(seed uint64, n int, alphabet string) string {
	r := rand.New(rand.NewPCG(seed, 0x1e4e0))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	base32  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	keyBody = alnum + "+/"
)

// planted is one fake secret: the rule that must find it, the secret, and
// the markers that must not survive in any file once it is redacted.
type planted struct {
	rule    string
	secret  string
	markers []string
}

func fakeSecrets() map[string]planted {
	var keyLines []string
	for i := range 6 {
		keyLines = append(keyLines, fakeRand(uint64(10+i), 64, keyBody))
	}
	privKey := "-----BEGIN " + "RSA PRIVATE" + " KEY-----\n" + strings.Join(keyLines, "\n") + "\n-----END RSA " + "PRIVATE KEY-----"
	return map[string]planted{
		"aws":       {rule: "aws-access-token", secret: "AK" + "IA" + fakeRand(1, 16, base32)},
		"github":    {rule: "github-pat", secret: "gh" + "p_" + fakeRand(2, 36, alnum)},
		"openai":    {rule: "openai-api-key", secret: "sk-" + "proj-" + fakeRand(3, 74, alnum) + "T3Blbk" + "FJ" + fakeRand(4, 74, alnum)},
		"anthropic": {rule: "anthropic-api-key", secret: "sk-ant-" + "api03-" + fakeRand(5, 93, alnum) + "AA"},
		"privkey":   {rule: "private-key", secret: privKey, markers: keyLines},
		"pgpass":    {rule: RuleURLPassword, secret: "Vx9q" + fakeRand(6, 14, alnum)},
		"host":      {rule: "internal-host", secret: "build-07" + ".corp." + "ireneo-internal" + ".net"},
	}
}

// testPatterns are the person's own patterns: an internal hostname.
var testPatterns = []Pattern{{Name: "internal-host", Regex: `\b[a-z0-9-]+\.corp\.ireneo-internal\.net\b`}}

func (p planted) grepMarkers() []string {
	if len(p.markers) > 0 {
		return p.markers
	}
	return []string{p.secret}
}

// plantedSessions are three conversations that hold every fake secret among
// ordinary words, as people paste them: a config, a tool result, a key.
func plantedSessions(sec map[string]planted) []*Session {
	t0 := time.Date(2026, 2, 3, 10, 0, 0, 0, time.UTC)
	deploy := conv("deploy-1", HarnessChatGPT, "Staging bucket deploy fails", "", t0,
		"My deploy script to the staging bucket fails with AccessDenied. Here is my config:\n\n"+
			"AWS_ACCESS_KEY_ID="+sec["aws"].secret+"\nregion=eu-west-1\n\nWhat is wrong with the marmalade pipeline?",
		"The key itself looks well formed. Check that the bucket policy allows s3:PutObject for that user, and rotate the key now that it has been shared in a chat.",
	)
	env := conv("env-2", HarnessClaudeCode, "Wire up the summariser", "", t0.Add(time.Hour),
		"Read my .env and wire the summariser to both providers.",
		"I read the file.",
	)
	env.Turns[1].Blocks = append(env.Turns[1].Blocks,
		Block{Type: BlockToolUse, ToolName: "Read", Text: `{"file_path": ".env"}`},
		Block{Type: BlockToolResult, ToolName: "Read", Text: "GITHUB_TOKEN=" + sec["github"].secret + "\n" +
			"OPENAI_API_KEY=" + sec["openai"].secret + "\n" +
			"ANTHROPIC_API_KEY=" + sec["anthropic"].secret + "\n" +
			"LOG_LEVEL=debug\n"},
	)
	db := conv("db-3", HarnessCodex, "Database migration on the quokka cluster", "", t0.Add(2*time.Hour),
		"The migration on the quokka cluster hangs. DATABASE_URL=postgres://app:"+sec["pgpass"].secret+"@"+sec["host"].secret+":5432/prod",
		"Connect with psql first and look at pg_stat_activity for the lock.",
		"Here is the deploy key, in case it matters:\n\n"+sec["privkey"].secret+"\n\nand the build runs on "+sec["host"].secret+".",
		"Please never paste private keys; revoke that one. The lock is the migration itself.",
	)
	return []*Session{deploy, env, db}
}

func newTestScrubber(t testing.TB) *Scrubber {
	t.Helper()
	sc, err := NewScrubber(testPatterns)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// filesContaining lists every file under dir that holds marker, as typed or
// lowercased (the FTS index keeps terms lowercased).
func filesContaining(t *testing.T, dir, marker string) []string {
	t.Helper()
	var found []string
	exact, low := []byte(marker), bytes.ToLower([]byte(marker))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, exact) || bytes.Contains(bytes.ToLower(data), low) {
			rel, _ := filepath.Rel(dir, p)
			found = append(found, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// assertNoSecrets fails for every planted secret found in any file under
// dir, the database and its WAL included. It names the file, never the secret.
func assertNoSecrets(t *testing.T, dir string, sec map[string]planted) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(names) == 0 {
		t.Fatalf("nothing under %s", dir)
	}
	for name, p := range sec {
		for i, mk := range p.grepMarkers() {
			if files := filesContaining(t, dir, mk); len(files) > 0 {
				t.Errorf("secret %s (marker %d) still in %v", name, i, files)
			}
		}
	}
}

func TestScanFindsEachPlantedSecret(t *testing.T) {
	sc := newTestScrubber(t)
	for name, p := range fakeSecrets() {
		for _, ctxt := range []string{"%s", "here it is: %s\nthanks", "`%s`", "\"%s\","} {
			text := fmt.Sprintf(ctxt, p.secret)
			if p.rule == RuleURLPassword {
				text = fmt.Sprintf(ctxt, "postgres://app:"+p.secret+"@db.local:5432/x")
			}
			ms := sc.Scan(text)
			if len(ms) != 1 {
				t.Errorf("%s in %q: %d matches %+v", name, ctxt, len(ms), ms)
				continue
			}
			m := ms[0]
			if m.Rule != p.rule || text[m.Start:m.End] != p.secret {
				t.Errorf("%s in %q: rule %s, span [%d,%d) is not the secret", name, ctxt, m.Rule, m.Start, m.End)
			}
		}
	}
}

func TestScanSpansOnLaterLinesAndRepeats(t *testing.T) {
	sc := newTestScrubber(t)
	sec := fakeSecrets()
	gh := sec["github"].secret
	text := "line one\n\nline three has a token " + gh + " in it\nand again: " + gh + "\né unicode before " + sec["aws"].secret
	ms := sc.Scan(text)
	if len(ms) != 3 {
		t.Fatalf("got %d matches: %+v", len(ms), ms)
	}
	for _, m := range ms {
		got := text[m.Start:m.End]
		if got != gh && got != sec["aws"].secret {
			t.Errorf("span [%d,%d) of %s is not a secret", m.Start, m.End, m.Rule)
		}
	}
	red := Redact(text, ms)
	if strings.Contains(red, gh) || strings.Contains(red, sec["aws"].secret) {
		t.Fatal("a secret survived redaction")
	}
	if !strings.Contains(red, "line three has a token [REDACTED:github-pat] in it") {
		t.Fatalf("redaction replaced more than the secret:\n%s", red)
	}
	if again := sc.Scan(red); len(again) != 0 {
		t.Fatalf("redacted text is flagged again: %+v", again)
	}
}

func TestScanFalsePositives(t *testing.T) {
	sc := newTestScrubber(t)
	uuid := "3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c"
	commit := "9fceb02d0ae598e95dc970b74767f19372d61af8"
	digest := "sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31"
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
	for _, text := range []string{
		// plain prose, with the words that wake the generic rule
		"Sure! To rotate your API key, open the dashboard, click Settings, then Keys, and press Regenerate. " +
			"Your password should be long, and the access token expires after an hour. Keep secrets out of git.",
		"The key insight is that authentication and authorization are different things.",
		// a UUID
		"The request id is " + uuid + " and it failed.",
		"request key: " + uuid,
		`{"conversation_id": "` + uuid + `", "message_key": "` + uuid + `"}`,
		// a git commit hash
		"commit " + commit + "\nAuthor: Ana <ana@example.com>",
		"key commit: " + commit,
		"git checkout " + commit + " and rebuild the auth service",
		// base64 image placeholders
		"![image](data:image/png;base64," + png + ")",
		"image_key: " + png,
		`{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-7RdK3gq8hZ2XcVbN1mWp9T"}`,
		"[Image #1: base64 data omitted, 48213 bytes]",
		// a sha256 digest
		"image: nginx@" + digest,
		"digest: " + digest,
		`"integrity": "` + digest + `"`,
		"cache key: " + strings.TrimPrefix(digest, "sha256:"),
		// placeholders in connection strings
		"postgres://app:password@localhost/db, postgres://app:${PGPASSWORD}@db/x, https://user:<pass>@host/",
		// earlier redactions
		"secret_key_base = [REDACTED:generic-api-key]",
		"postgres://app:[REDACTED:url-password]@db.internal/prod",
	} {
		if ms := sc.Scan(text); len(ms) > 0 {
			t.Errorf("flagged %s in %q", ms[0].Rule, text)
		}
	}
}

func TestNewScrubberRejectsBadPatterns(t *testing.T) {
	for _, p := range []Pattern{
		{Name: "", Regex: "x"},
		{Name: "has space", Regex: "x"},
		{Name: "bad]", Regex: "x"},
		{Name: "ok", Regex: ""},
		{Name: "ok", Regex: "(unclosed"},
		{Name: "github-pat", Regex: "x"},
	} {
		if _, err := NewScrubber([]Pattern{p}); err == nil {
			t.Errorf("pattern %+v accepted", p)
		}
	}
	sc, err := NewScrubber([]Pattern{{Name: "customer-id", Regex: `\bCUST-(\d{6})\b`}, {Name: "empty-ok", Regex: `x*`}})
	if err != nil {
		t.Fatal(err)
	}
	ms := sc.Scan("customer CUST-123456 called")
	if len(ms) != 1 || ms[0].Rule != "customer-id" || ms[0].End-ms[0].Start != 6 {
		t.Fatalf("capture group as secret: %+v", ms)
	}
	if !sc.HasRule("customer-id") || !sc.HasRule("aws-access-token") || sc.HasRule("nope") {
		t.Fatal("HasRule")
	}
}

func TestMaskSecret(t *testing.T) {
	for in, want := range map[string]string{
		"abcdefghijkl":       "ab…kl",
		"short":              "…",
		"ééééééééééxy":       "éé…xy",
		"\xff\xfe0123456789": "\uFFFD0…89",
	} {
		if got := MaskSecret(in); got != want {
			t.Errorf("MaskSecret(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScrubOnImportLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sec := fakeSecrets()
	sc := newTestScrubber(t)
	rep, err := m.Ingest(ctx, plantedSessions(sec), IngestOptions{Redact: sc.RedactSession})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sec {
		if rep.Redacted[p.rule] == 0 {
			t.Errorf("import redacted nothing for %s: %v", p.rule, rep.Redacted)
		}
	}
	if rep.Redacted["internal-host"] != 2 {
		t.Errorf("internal-host redactions: %d, want 2", rep.Redacted["internal-host"])
	}
	assertNoSecrets(t, dir, sec) // while open: the WAL holds recent pages

	src, err := os.ReadFile(filepath.Join(dir, srcPath(HarnessClaudeCode, "env-2")))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte("GITHUB_TOKEN=[REDACTED:github-pat]")) {
		t.Errorf("src lacks the placeholder:\n%s", src)
	}
	after, err := m.ScrubScan(ctx, ScrubOptions{Scrubber: sc})
	if err != nil || len(after.Findings) != 0 || after.Scanned != 3 {
		t.Fatalf("scan after a scrubbed import: %v %+v", err, after)
	}
	res, err := m.Recall(ctx, RecallOptions{Query: "marmalade pipeline staging bucket"})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].SessionID != "deploy-1" {
		t.Fatalf("recall around a redacted secret: %v %+v", err, res)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	assertNoSecrets(t, dir, sec)
}

func TestScrubApplyRemovesSecretsFromEveryFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	sec := fakeSecrets()
	sc := newTestScrubber(t)
	if _, err := m.Ingest(ctx, plantedSessions(sec), IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, p := range sec { // the test would prove nothing if they were never there
		if len(filesContaining(t, dir, p.grepMarkers()[0])) == 0 {
			t.Fatalf("secret %s was never stored", name)
		}
	}

	scan, err := m.ScrubScan(ctx, ScrubOptions{Scrubber: sc})
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range sec {
		if scan.ByRule[p.rule] == 0 {
			t.Errorf("scan missed %s (%s): %v", name, p.rule, scan.ByRule)
		}
	}
	for _, f := range scan.Findings {
		if len(f.ID) != findingIDLen || f.SessionID == "" || f.Preview == "" || f.End <= f.Start {
			t.Errorf("incomplete finding %+v", f)
		}
		if utf8.RuneCountInString(f.Preview) > 5 {
			t.Errorf("preview %q shows too much", f.Preview)
		}
	}
	if scan.Applied || len(scan.Redacted) != 0 {
		t.Fatalf("a scan redacted: %+v", scan)
	}
	if len(filesContaining(t, dir, sec["aws"].secret)) == 0 {
		t.Fatal("a scan changed the memory")
	}

	rep, err := m.ScrubApply(ctx, ScrubOptions{Scrubber: sc})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Applied || rep.Changed != 3 || len(rep.Findings) != len(scan.Findings) {
		t.Fatalf("apply: changed %d, %d findings (scan had %d)", rep.Changed, len(rep.Findings), len(scan.Findings))
	}
	for rule, n := range scan.ByRule {
		if rep.Redacted[rule] != n {
			t.Errorf("redacted %d for %s, scan found %d", rep.Redacted[rule], rule, n)
		}
	}
	assertNoSecrets(t, dir, sec)

	again, err := m.ScrubScan(ctx, ScrubOptions{Scrubber: sc})
	if err != nil || len(again.Findings) != 0 {
		t.Fatalf("scan after apply: %v %+v", err, again.Findings)
	}
	hist, err := m.ScrubHistory(ctx, 0)
	if err != nil || len(hist) != 1 || hist[0].Counts["github-pat"] != 1 {
		t.Fatalf("history: %v %+v", err, hist)
	}
	// The conversation is still found by its other words, and the
	// catalog (a star) survives the rewrite.
	res, err := m.Recall(ctx, RecallOptions{Query: "quokka cluster migration"})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].SessionID != "db-3" {
		t.Fatalf("recall after apply: %v %+v", err, res)
	}
	if !strings.Contains(res.Hits[0].Text+fmt.Sprint(res.Hits[0].Neighbors), "[REDACTED:") {
		t.Logf("hit text: %s", res.Hits[0].Text)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	assertNoSecrets(t, dir, sec)
}

func TestScrubFiltersByRuleAndSession(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	sec := fakeSecrets()
	sc := newTestScrubber(t)
	if _, err := m.Ingest(ctx, plantedSessions(sec), IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.ScrubScan(ctx, ScrubOptions{Scrubber: sc, Rules: []string{"no-such-rule"}}); err == nil {
		t.Fatal("unknown rule accepted")
	}
	if _, err := m.ScrubScan(ctx, ScrubOptions{Scrubber: sc, Sessions: []string{"nope"}}); err == nil {
		t.Fatal("unknown session accepted")
	}
	rep, err := m.ScrubApply(ctx, ScrubOptions{Scrubber: sc, Rules: []string{"github-pat"}, Sessions: []string{"env-2"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scanned != 1 || rep.Changed != 1 || len(rep.Redacted) != 1 || rep.Redacted["github-pat"] != 1 {
		t.Fatalf("filtered apply: %+v", rep)
	}
	rest, err := m.ScrubScan(ctx, ScrubOptions{Scrubber: sc})
	if err != nil {
		t.Fatal(err)
	}
	if rest.ByRule["github-pat"] != 0 || rest.ByRule["openai-api-key"] != 1 || rest.ByRule["aws-access-token"] != 1 {
		t.Fatalf("after a filtered apply: %v", rest.ByRule)
	}
	// By finding id: exactly the chosen ones.
	var pick []string
	for _, f := range rest.Findings {
		if f.Rule == "openai-api-key" || f.Rule == "private-key" {
			pick = append(pick, f.ID)
		}
	}
	rep, err = m.ScrubApply(ctx, ScrubOptions{Scrubber: sc, IDs: pick})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Redacted) != 2 || rep.Redacted["openai-api-key"] != 1 || rep.Redacted["private-key"] != 1 || rep.Changed != 2 {
		t.Fatalf("apply by id: %+v", rep)
	}
	if rest, _ = m.ScrubScan(ctx, ScrubOptions{Scrubber: sc}); rest.ByRule["aws-access-token"] != 1 || len(rest.ByRule) != 4 {
		t.Fatalf("after an apply by id: %v", rest.ByRule)
	}
}

func TestScrubAllowList(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	sec := fakeSecrets()
	sc := newTestScrubber(t)
	if _, err := m.Ingest(ctx, plantedSessions(sec), IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	scan, err := m.ScrubScan(ctx, ScrubOptions{Scrubber: sc})
	if err != nil {
		t.Fatal(err)
	}
	var host []ScrubFinding
	for _, f := range scan.Findings {
		if f.Rule == "internal-host" {
			host = append(host, f)
		}
	}
	// The hostname appears twice in one conversation: one finding id.
	if len(host) != 2 || host[0].ID != host[1].ID {
		t.Fatalf("hostname findings: %+v", host)
	}
	if _, err := m.ScrubScan(ctx, ScrubOptions{Scrubber: sc, Allow: []string{"0123456789ab"}}); err == nil {
		t.Fatal("an unknown id was accepted")
	}
	if l, _ := m.ScrubAllowList(ctx); len(l) != 0 {
		t.Fatalf("a failed allow stored %+v", l)
	}
	allowed, err := m.ScrubScan(ctx, ScrubOptions{Scrubber: sc, Allow: []string{strings.ToUpper(host[0].ID)}})
	if err != nil {
		t.Fatal(err)
	}
	if allowed.NewlyAllowed != 1 || allowed.Allowed != 2 || allowed.ByRule["internal-host"] != 0 || len(allowed.Findings) != len(scan.Findings)-2 {
		t.Fatalf("allow: %+v", allowed)
	}
	// Remembered: a later scan does not report it, and apply leaves it.
	rep, err := m.ScrubApply(ctx, ScrubOptions{Scrubber: sc})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Allowed != 2 || rep.Redacted["internal-host"] != 0 || rep.Redacted["aws-access-token"] != 1 {
		t.Fatalf("apply with an allowed finding: %+v", rep)
	}
	if len(filesContaining(t, m.Dir(), sec["host"].secret)) == 0 {
		t.Fatal("an allowed finding was redacted")
	}
	list, err := m.ScrubAllowList(ctx)
	if err != nil || len(list) != 1 || list[0].ID != host[0].ID || list[0].Rule != "internal-host" {
		t.Fatalf("allow list: %v %+v", err, list)
	}
	// The catalog keeps a hash, not the secret.
	var hash, rule string
	if err := m.db.QueryRow(`SELECT hash, rule FROM scrub_allow`).Scan(&hash, &rule); err != nil {
		t.Fatal(err)
	}
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" || rule != "internal-host" {
		t.Fatalf("scrub_allow row: %q %q", hash, rule)
	}
	if err := m.ScrubUnallow(ctx, host[0].ID); err != nil {
		t.Fatal(err)
	}
	back, err := m.ScrubScan(ctx, ScrubOptions{Scrubber: sc})
	if err != nil || back.ByRule["internal-host"] != 2 || back.Allowed != 0 {
		t.Fatalf("after unallow: %v %+v", err, back)
	}
	if err := m.ScrubUnallow(ctx, host[0].ID); err == nil {
		t.Fatal("unallowing twice succeeded")
	}
}

func TestScrubApplyCleansCrashLeftovers(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	sec := fakeSecrets()
	sc := newTestScrubber(t)
	if _, err := m.Ingest(ctx, plantedSessions(sec), IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	rel := srcPath(HarnessChatGPT, "deploy-1")
	// A crash after linking: the link still shares the live file, which
	// must survive the cleanup intact.
	link, err := m.linkOld(rel)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(m.Dir(), rel))
	m.shredLeftovers()
	after, _ := os.ReadFile(filepath.Join(m.Dir(), rel))
	if !bytes.Equal(before, after) {
		t.Fatal("cleanup zeroed a live file")
	}
	if _, err := os.Stat(link); !os.IsNotExist(err) {
		t.Fatal("cleanup left the link")
	}
	if _, err := m.ScrubApply(ctx, ScrubOptions{Scrubber: sc}); err != nil {
		t.Fatal(err)
	}
	if ls, _ := filepath.Glob(filepath.Join(m.Dir(), ".staging", oldPrefix+"*")); len(ls) != 0 {
		t.Fatalf("apply left %v", ls)
	}
	assertNoSecrets(t, m.Dir(), sec)
}

func TestRedactSessionCountsAndTitle(t *testing.T) {
	sc := newTestScrubber(t)
	sec := fakeSecrets()
	s := conv("t", HarnessClaude, "token "+sec["github"].secret, "", day0, "plain words", "and "+sec["aws"].secret)
	counts := sc.RedactSession(s)
	if counts["github-pat"] != 1 || counts["aws-access-token"] != 1 {
		t.Fatalf("counts %v", counts)
	}
	if s.Title != "token [REDACTED:github-pat]" || s.Turns[0].Blocks[0].Text != "plain words" {
		t.Fatalf("redacted session: %q %q", s.Title, s.Turns[0].Blocks[0].Text)
	}
	if sc.RedactSession(s) != nil || sc.RedactSession(nil) != nil {
		t.Fatal("a second redaction found more")
	}
}

func FuzzScan(f *testing.F) {
	for _, p := range fakeSecrets() {
		f.Add("key: " + p.secret + "\n")
	}
	for _, s := range []string{"", "\n\n\n", "api_key = \"abcdefghijklmnop0123\"\n", "postgres://u:p4ssw0rd!x@h/db",
		"-----BEGIN PRIVATE KEY-----\n\n-----END", "\xff\xfeKIA", "[REDACTED:x] token=[REDACTED:"} {
		f.Add(s)
	}
	sc, err := NewScrubber(testPatterns)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ms := sc.Scan(text)
		last := 0
		for _, m := range ms {
			if m.Start < last || m.End <= m.Start || m.End > len(text) || !sc.HasRule(m.Rule) {
				t.Fatalf("bad match %+v (after %d, len %d)", m, last, len(text))
			}
			last = m.End
		}
		red := Redact(text, ms)
		for _, m := range ms {
			if sec := text[m.Start:m.End]; len(sec) >= 16 && strings.Contains(red, sec) && !strings.Contains(RedactedText(m.Rule), sec) {
				// a long secret must not survive, unless the same bytes also
				// sit elsewhere in text outside any match
				if strings.Count(text, sec) == 1 {
					t.Fatalf("secret survived redaction")
				}
			}
		}
	})
}

func TestRequiredLiteral(t *testing.T) {
	for expr, want := range map[string]string{
		`\b[a-z0-9-]+\.corp\.ireneo-internal\.net\b`: ".corp.ireneo-internal.net",
		`(?i)acme-(\d{6})`:                           "acme-",
		`(?i)cust-\d+`:                               "", // 's' folds to the long s
		`foo|bar`:                                    "",
		`(ab)+c`:                                     "c",
		`x(?:yz(w))`:                                 "yz",
	} {
		if got, _ := requiredLiteral(expr); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", expr, got, want)
		}
	}
	sc, err := NewScrubber([]Pattern{{Name: "acme-id", Regex: `(?i)acme-(\d{6})`}})
	if err != nil {
		t.Fatal(err)
	}
	if ms := sc.Scan("order ACME-123456 shipped"); len(ms) != 1 || ms[0].Rule != "acme-id" {
		t.Fatalf("case-insensitive pattern behind a literal: %+v", ms)
	}
}

// TestScanCoversGitleaks checks the windowed generic rule against gitleaks
// run plainly over whole texts: every secret plain gitleaks finds, Scan
// covers too.
func TestScanCoversGitleaks(t *testing.T) {
	if testing.Short() {
		t.Skip("scans half a megabyte with Go's regexp")
	}
	ref, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	sc := newTestScrubber(t)
	v := fakeRand(20, 300, alnum)
	texts := []string{
		"password:\n  Zq8vLw2nRt5yXp\n",
		"password:\r\n   'Zq8vLw2nRt5yXp'\r\n",
		"token: " + v + " and more",
		strings.Repeat("x", 3000) + " api_key=" + v[:40] + " " + strings.Repeat("y", 3000),
		"secret=" + v[:24],
		"export SECRET_KEY='Zq8vLw2nRt5yXpQ4'\nexport OTHER=1",
		`{"client_secret": "Zq8vLw2nRt5yXpQ4", "auth": {"token": "` + v[:32] + `"}}`,
		"RUN --mount=type=secret,id=api_key,env=K4hJ8sLm2pQx9 make",
		"some_very_long_prefix_identifier_name_goes_here_x_access_token = \"" + v[50:90] + "\"",
		"key" + strings.Repeat(" ", 19) + "\t\"'=" + v[:20],
	}
	special := len(texts)
	g := newBenchGen(99)
	for size := 0; size < 512<<10; {
		b := g.block()
		texts = append(texts, b)
		size += len(b)
	}
	for i, text := range texts {
		ours := sc.Scan(text)
		nl := newlines(text)
		var wants []Match
		for _, f := range ref.DetectString(text) {
			if f.Secret != "" && !isFalsePositive(f) {
				wants = appendSpans(wants, text, f.RuleID, f.Secret, approxStart(nl, f), len(f.Match))
			}
		}
		for _, want := range wants {
			if !covered(ours, want) {
				t.Errorf("%s secret at [%d,%d) not covered in text %d", want.Rule, want.Start, want.End, i)
			}
		}
		// On the hand-made texts, Scan finds no more than gitleaks either.
		if i < special && len(mergeMatches(wants)) != len(ours) {
			t.Errorf("text %d: gitleaks finds %+v, Scan %+v", i, wants, ours)
		}
	}
}

func covered(ms []Match, w Match) bool {
	for _, m := range ms {
		if m.Start <= w.Start && w.End <= m.End {
			return true
		}
	}
	return false
}

// TestScanLongTextInChunks plants secrets across the chunk boundaries of a
// long text: each is found whole, once.
func TestScanLongTextInChunks(t *testing.T) {
	sc := newTestScrubber(t)
	sec := fakeSecrets()
	g := newBenchGen(5)
	var b strings.Builder
	var want []string
	for b.Len() < 3*chunkSize {
		b.WriteString(g.words(12) + "\n")
		// Near each multiple of 32 KiB, some chunk boundary or overlap end.
		if n := b.Len() % (32 << 10); n > (32<<10)-200 {
			for _, k := range []string{"privkey", "github", "aws"} {
				b.WriteString("pasted: " + sec[k].secret + "\n")
				want = append(want, sec[k].secret)
			}
		}
	}
	text := b.String()
	ms := sc.Scan(text)
	if len(ms) != len(want) {
		t.Fatalf("%d matches for %d secrets", len(ms), len(want))
	}
	for i, m := range ms {
		if text[m.Start:m.End] != want[i] {
			t.Errorf("match %d (%s) is not the whole secret", i, m.Rule)
		}
	}
}
