package scrub

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// testPatterns are the person's own patterns: an internal hostname.
var testPatterns = []Pattern{{Name: scrubtest.HostRule, Regex: scrubtest.HostRegex}}

func newTestScrubber(t testing.TB) *Scrubber {
	t.Helper()
	sc, err := New(testPatterns)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestScanFindsEachPlantedSecret(t *testing.T) {
	sc := newTestScrubber(t)
	for name, p := range scrubtest.Secrets() {
		for _, ctxt := range []string{"%s", "here it is: %s\nthanks", "`%s`", "\"%s\","} {
			text := fmt.Sprintf(ctxt, p.Secret)
			if p.Rule == RuleURLPassword {
				text = fmt.Sprintf(ctxt, "postgres://app:"+p.Secret+"@db.local:5432/x")
			}
			ms := sc.Scan(text)
			if len(ms) != 1 {
				t.Errorf("%s in %q: %d matches %+v", name, ctxt, len(ms), ms)
				continue
			}
			m := ms[0]
			if m.Rule != p.Rule || text[m.Start:m.End] != p.Secret {
				t.Errorf("%s in %q: rule %s, span [%d,%d) is not the secret", name, ctxt, m.Rule, m.Start, m.End)
			}
		}
	}
}

func TestScanSpansOnLaterLinesAndRepeats(t *testing.T) {
	sc := newTestScrubber(t)
	sec := scrubtest.Secrets()
	gh := sec["github"].Secret
	text := "line one\n\nline three has a token " + gh + " in it\nand again: " + gh + "\né unicode before " + sec["aws"].Secret
	ms := sc.Scan(text)
	if len(ms) != 3 {
		t.Fatalf("got %d matches: %+v", len(ms), ms)
	}
	for _, m := range ms {
		got := text[m.Start:m.End]
		if got != gh && got != sec["aws"].Secret {
			t.Errorf("span [%d,%d) of %s is not a secret", m.Start, m.End, m.Rule)
		}
	}
	red := Redact(text, ms)
	if strings.Contains(red, gh) || strings.Contains(red, sec["aws"].Secret) {
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

func TestNewRejectsBadPatterns(t *testing.T) {
	for _, p := range []Pattern{
		{Name: "", Regex: "x"},
		{Name: "has space", Regex: "x"},
		{Name: "bad]", Regex: "x"},
		{Name: "ok", Regex: ""},
		{Name: "ok", Regex: "(unclosed"},
		{Name: "github-pat", Regex: "x"},
		{Name: RulePassword, Regex: "x"},
	} {
		if _, err := New([]Pattern{p}); err == nil {
			t.Errorf("pattern %+v accepted", p)
		}
	}
	sc, err := New([]Pattern{{Name: "customer-id", Regex: `\bCUST-(\d{6})\b`}, {Name: "empty-ok", Regex: `x*`}})
	if err != nil {
		t.Fatal(err)
	}
	ms := sc.Scan("customer CUST-123456 called")
	if len(ms) != 1 || ms[0].Rule != "customer-id" || ms[0].End-ms[0].Start != 6 {
		t.Fatalf("capture group as secret: %+v", ms)
	}
	if !sc.HasRule("customer-id") || !sc.HasRule("aws-access-token") || !sc.HasRule(RulePassword) || sc.HasRule("nope") {
		t.Fatal("HasRule")
	}
}

func FuzzScan(f *testing.F) {
	for _, p := range scrubtest.Secrets() {
		f.Add("key: " + p.Secret + "\n")
	}
	for _, s := range []string{"", "\n\n\n", "api_key = \"abcdefghijklmnop0123\"\n", "postgres://u:p4ssw0rd!x@h/db",
		"-----BEGIN PRIVATE KEY-----\n\n-----END", "\xff\xfeKIA", "[REDACTED:x] token=[REDACTED:",
		"my password is Hx8!k2mz.", "pwd: \"Hx8!k2", "Passwort ist „Hx8!k2mz“", "password for the \xff router is x9"} {
		f.Add(s)
	}
	// The pair, shaped and in-words rules, and punctuation after a key.
	f.Add("My AWS key is " + fake("aws-id", 1) + " and secret " + fake("aws-secret", 2) + ", ok?")
	f.Add(fake("twilio-sid", 3) + "\n" + fake("twilio-token", 4) + "\n" + fake("tencent-id", 5) + " " + fake("tencent-secret", 6))
	f.Add("token: " + fake("alnum-32", 7) + "/ireneo. the api key is " + fake("b64-40", 8) + "!")
	f.Add(fake("aws-session", 9)[:120] + "== " + fake("google-secret", 10) + ".")
	// Passwords in code and given to commands (issue 32).
	for _, s := range []string{`$PlainPassword = "Snoppy23"`, `the generated password "Snoppy23".`, "<Password>\n <Value>Ab12cd!</Value>",
		`ConvertTo-SecureString -String 'x9!` + "\n" + `' -AsPlainText`, "mysql -uroot -p'Q1!x' -e", "sshpass -p ", "net user \"a b\" Zz9!zz /add",
		"IDENTIFIED WITH caching_sha2_password BY 'Q1w2e3!r'", "echo 'u:Zz9!zz' | sudo chpasswd", "redis-cli -a", "set_password(\"", "PGPASSWORD="} {
		f.Add(s)
	}
	sc, err := New(testPatterns)
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
	sc, err := New([]Pattern{{Name: "acme-id", Regex: `(?i)acme-(\d{6})`}})
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
	v := scrubtest.FakeRand(20, 300, scrubtest.Alnum)
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
	g := scrubtest.NewGen(99)
	for size := 0; size < 512<<10; {
		b := g.Block()
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
	sec := scrubtest.Secrets()
	g := scrubtest.NewGen(5)
	var b strings.Builder
	var want []string
	for b.Len() < 3*chunkSize {
		b.WriteString(g.Words(12) + "\n")
		// Near each multiple of 32 KiB, some chunk boundary or overlap end.
		if n := b.Len() % (32 << 10); n > (32<<10)-200 {
			for _, k := range []string{"privkey", "github", "aws"} {
				b.WriteString("pasted: " + sec[k].Secret + "\n")
				want = append(want, sec[k].Secret)
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
