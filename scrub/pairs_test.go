package scrub

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// fake is a fake secret of a scrubtest.Shapes kind.
func fake(kind string, seed uint64) string { return scrubtest.Shapes[kind](seed) }

// findsExactly checks that Scan finds want (rule → value) in text and
// nothing else but the optional values; an empty rule means any rule may
// find that value.
func findsExactly(t *testing.T, sc *Scrubber, text string, want map[string]string, optional ...string) {
	t.Helper()
	got := map[string]string{}
	for _, m := range sc.Scan(text) {
		got[text[m.Start:m.End]] = m.Rule
	}
	for _, v := range optional {
		delete(got, v)
	}
	for rule, v := range want {
		r, ok := got[v]
		switch {
		case !ok:
			t.Errorf("%s: %d-char value not found in %q (found %v)", rule, len(v), maskAll(text, spanOf(text, v)), rulesOf(got))
		case rule != "" && r != rule:
			t.Errorf("%s: found by %s instead", rule, r)
		}
		delete(got, v)
	}
	for v, r := range got {
		t.Errorf("%s flagged %q, not a secret here, in %q", r, v, text)
	}
}

func spanOf(text, v string) [][2]int {
	if i := strings.Index(text, v); i >= 0 {
		return [][2]int{{i, i + len(v)}}
	}
	return nil
}

func rulesOf(m map[string]string) []string {
	var out []string
	for _, r := range m {
		out = append(out, r)
	}
	return out
}

// TestPairRules: each pair's secret half is found near its id, and not
// without it, not far from it, and not when it has the wrong shape.
func TestPairRules(t *testing.T) {
	sc := newTestScrubber(t)
	for _, c := range []struct {
		rule, idKind, secretKind, idRule string
	}{
		{RuleAWSSecretKey, "aws-id", "aws-secret", "aws-access-token"},
		{RuleAWSSecretKey, "aws-sts-id", "aws-secret", "aws-access-token"},
		{RuleAlibabaSecret, "alibaba-id", "alibaba-secret", "alibaba-access-key-id"},
		{RuleTencentSecretKey, "tencent-id", "tencent-secret", RuleTencentSecretID},
		{RuleTwilioAuthToken, "twilio-sid", "twilio-token", ""},
		{RuleTwilioAPISecret, "twilio-key", "twilio-secret", "twilio-api-key"},
		{RuleGoogleOAuthSecret, "google-client", "google-secret24", ""},
	} {
		t.Run(c.rule+"/"+c.idKind, func(t *testing.T) {
			id, sec := fake(c.idKind, 901), fake(c.secretKind, 902)
			want := map[string]string{c.rule: sec}
			var optional []string // an id that is not a secret may be redacted or not
			if c.idRule != "" {
				want[c.idRule] = id
			} else {
				optional = append(optional, id)
			}
			// Positive: beside it in a sentence, on the next line, before it.
			findsExactly(t, sc, "my key is "+id+" and the other half "+sec+", thanks", want, optional...)
			findsExactly(t, sc, "id = "+id+"\nsecret = "+sec+"\n", want, optional...)
			findsExactly(t, sc, "("+sec+" goes with "+id+")", want, optional...)

			// Negative: the same token with no id near it, or too far away.
			findsExactly(t, sc, "the build hash was "+sec+" yesterday", nil)
			far := "id " + id + ". " + strings.Repeat("Nothing to see here, just words. ", 20) + "then " + sec
			wantFar := map[string]string{}
			if c.idRule != "" {
				wantFar[c.idRule] = id
			}
			findsExactly(t, sc, far, wantFar)
			// Negative: near the id, tokens without the secret's shape.
			other := map[string]string{}
			if c.idRule != "" {
				other[c.idRule] = id
			}
			findsExactly(t, sc, id+" was made on 2026-03-01 by deploy_bot_for_staging_eu_west_1 with commit 9fceb02d0ae598e95dc970b74767f19372d61af8", other)
		})
	}
}

// TestPairRulesSkipExamples: documentation's example ids and secrets stay.
func TestPairRulesSkipExamples(t *testing.T) {
	sc := newTestScrubber(t)
	for _, text := range []string{
		"aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"AKIAIOSFODNN7EXAMPLE " + fake("aws-secret", 5),
		"key " + fake("aws-id", 6)[:4] + "XXXXXXXXXXXXXXXX and the build hash " + fake("aws-secret", 7),
		"LTAI5tXXXXXXXXXXXXXXXXXX and xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	} {
		if ms := sc.Scan(text); len(ms) > 0 {
			t.Errorf("flagged %s in %q", ms[0].Rule, text)
		}
	}
}

// TestShapedSecrets: AWS session tokens and Google OAuth client secrets
// are found alone; their prefixes in prose and placeholders are not.
func TestShapedSecrets(t *testing.T) {
	sc := newTestScrubber(t)
	sess, goog := fake("aws-session", 3), fake("google-secret", 4)
	findsExactly(t, sc, "AWS_SESSION_TOKEN="+sess, map[string]string{"": sess})
	findsExactly(t, sc, "the session token is "+sess+".", map[string]string{"": sess})
	findsExactly(t, sc, "client secret "+goog+" from the console", map[string]string{RuleGoogleOAuthSecret: goog})
	findsExactly(t, sc, `{"client_secret": "`+goog+`"}`, map[string]string{"": goog})
	for _, text := range []string{
		"session tokens start with IQoJb3JpZ2lu, the base64 of the same bytes",
		"client_secret: GOCSPX-xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"GOCSPX- is the prefix of new client secrets",
	} {
		if ms := sc.Scan(text); len(ms) > 0 {
			t.Errorf("flagged %s in %q", ms[0].Rule, text)
		}
	}
	if got := sc.Scan("AWS_SESSION_TOKEN=" + sess); len(got) == 1 && got[0].Rule != RuleAWSSessionToken && got[0].Rule != genericRule {
		t.Errorf("session token found by %s", got[0].Rule)
	}
}

// TestSecretInWords: keys and tokens given in words are found, and only
// the value; prose and code about them are not.
func TestSecretInWords(t *testing.T) {
	sc := newTestScrubber(t)
	for i, form := range []string{
		"my secret key %s",
		"the api key is %s but it says invalid",
		"API key is now %s.",
		"Here's the token: %s",
		"the webhook secret for staging is %s, where does it go?",
		"use this token %s for the webhook",
		"**Secret:** `%s`",
		"client secret → %s",
		"x-access-token:%s/ireneo",
	} {
		v := fake("alnum-32", uint64(100+i))
		text := fmt.Sprintf(form, v)
		findsExactly(t, sc, text, map[string]string{"": v})
	}
	for _, text := range []string{
		"the secret to good bread is time",
		"token = make_token_for_user12345678(uid)",
		"key: user_session_2024_03_01_europe",
		"the key is getAccessTokenFromHeader2, call it first",
		"var key openSSHEd25519PrivateKey",
		"byKey map[uint32]uintptr // key -> sqlite3_pcache_page stub",
		"the token is src/v2/components/Button2.tsx",
		"secret: YOUR_CLIENT_SECRET_HERE",
		"api key is sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"token 50256 ends the text; the model has 128000 tokens of context",
		"request key: 3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c",
		"key: 507f1f77bcf86cd799439011",
		"the document key is 507f1f77bcf86cd799439011",
		"the key is /home/ana/.ssh/id_ed25519 and the token is in ~/.config/gh/hosts.yml",
		// a log line: the word ends a quoted message, a key=value follows
		`level=warn msg="could not refresh the token" request_id=55d2db33-65c9-e55c-602c-2c2986cb2bb1 digest=sha256:5790313677c8aeb`,
	} {
		if ms := sc.Scan(text); len(ms) > 0 {
			t.Errorf("flagged %s (%q) in %q", ms[0].Rule, text[ms[0].Start:ms[0].End], text)
		}
	}
	// Hex shorter than 32 digits counts when it is called a secret or a token.
	plaid := scrubtest.FakeRand(55, 30, scrubtest.Hex)
	findsExactly(t, sc, "the plaid secret is "+plaid+" and the client id is in the dashboard", map[string]string{"": plaid})

	// gitleaks' generic rule finds the value of a key=value after "token";
	// the in-words rule leaves it, since "=" inside a value ends a name.
	if ms := appendSecretsInWords(nil, "the token k8s_cluster=eu2prod4x9z1 expired"); len(ms) > 0 {
		t.Errorf("the in-words rule flagged a key=value: %+v", ms)
	}
}

// TestGitleaksSeesKeysBeforePunctuation: gitleaks ends a token at a space,
// a quote or ';' only; a key followed by a comma or a full stop, as in a
// sentence, is found whole, and nothing but the key.
func TestGitleaksSeesKeysBeforePunctuation(t *testing.T) {
	sc := newTestScrubber(t)
	for _, kind := range []string{"anthropic", "alibaba-id", "github-pat", "slack-bot"} {
		v := fake(kind, 77)
		for _, form := range []string{"the key is %s, is that right?", "it was %s.", "(%s)", "see %s!"} {
			text := fmt.Sprintf(form, v)
			findsExactly(t, sc, text, map[string]string{"": v})
		}
	}
	for text, want := range map[string]string{
		"a short word, and a long one: " + strings.Repeat("x", 20) + ".": "a short word, and a long one: " + strings.Repeat("x", 20) + " ",
		"token, then more.":                   "token, then more.",
		"the end of a long run of text....\n": "the end of a long run of text....\n",
		"abcdefghijklmnopqrstu.v":             "abcdefghijklmnopqrstu.v",
	} {
		if got := spaceTrailingPunct(text); got != want {
			t.Errorf("spaceTrailingPunct(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestCutSecrets: a title cut short inside a secret ("… secret wJalrXUtnF…")
// keeps part of it; that part is found when its id or its word is there,
// and words cut short are not.
func TestCutSecrets(t *testing.T) {
	sc := newTestScrubber(t)
	id, sec := fake("aws-id", 31), fake("aws-secret", 32)
	title := "Deploy script fails. My AWS key is " + id + " and secret " + sec[:13] + "…"
	findsExactly(t, sc, title, map[string]string{"aws-access-token": id, "": sec[:13]})
	findsExactly(t, sc, "key pair "+id+" / "+sec[:20]+"…", map[string]string{"aws-access-token": id, RuleAWSSecretKey: sec[:20]})
	tok := fake("alnum-32", 33)
	findsExactly(t, sc, "here is my api token: "+tok[:11]+"…", map[string]string{RuleSecret: tok[:11]})
	for _, text := range []string{
		"The secret to a good sourdough is patience and a warm kitchen, says my grandmo…",
		"the key is Kubernetes…",
		"token budget for GPT4o…",
		"My AWS key is " + id[:4] + "… and the secret is wJal…",
	} {
		if ms := sc.Scan(text); len(ms) > 0 {
			t.Errorf("flagged %s (%q) in %q", ms[0].Rule, text[ms[0].Start:ms[0].End], text)
		}
	}
}

// TestAWSPairLayouts: the AWS pair as people paste it — the console's CSV,
// id:secret, id/secret, JSON, a Markdown table, a query string, quoted
// environment lines, the secret first — loses both halves.
func TestAWSPairLayouts(t *testing.T) {
	sc := newTestScrubber(t)
	id, sec := fake("aws-id", 1), fake("aws-secret", 2)
	for _, text := range []string{
		"Access key ID,Secret access key\n" + id + "," + sec + "\n",
		id + ":" + sec,
		id + "/" + sec,
		sec + "+" + id,
		`{"k":"` + id + `","s":"` + sec + `"}`,
		"| " + id + " | " + sec + " |",
		"key=" + id + "&secret=" + sec,
		"AWS_ACCESS_KEY_ID='" + id + "'\nAWS_SECRET_ACCESS_KEY='" + sec + "'",
		"secret " + sec + " (id " + id + ")",
	} {
		red := Redact(text, sc.Scan(text))
		if strings.Contains(red, sec[:6]) || strings.Contains(red, id[4:]) {
			t.Errorf("a half survived in %q", maskAll(text, append(spanOf(text, id), spanOf(text, sec)...)))
		}
	}
}

// TestPairReachEdge: a secret half is found up to pairReach bytes from its
// id, on either side, and not past it; an .env paste with comments
// between the two lines keeps them in reach.
func TestPairReachEdge(t *testing.T) {
	sc := newTestScrubber(t)
	id, sec := fake("aws-id", 41), fake("aws-secret", 42)
	// filler is n bytes of words with no secret in them, ending in a space.
	filler := func(n int) string {
		const words = "Nothing to see here, just words. "
		f := strings.Repeat(words, n/len(words)+1)[:n-1]
		return f + " "
	}
	idRule := map[string]string{"aws-access-token": id}
	both := map[string]string{"aws-access-token": id, RuleAWSSecretKey: sec}
	for _, c := range []struct {
		gap  int
		want map[string]string
	}{{390, both}, {420, idRule}} {
		after := id + " " + filler(c.gap-1) + sec + " end"
		if got := strings.Index(after, sec) - len(id); got != c.gap {
			t.Fatalf("the gap after the id is %d, want %d", got, c.gap)
		}
		findsExactly(t, sc, after, c.want)
		before := "start " + sec + " " + filler(c.gap-1) + id
		if got := strings.Index(before, id) - strings.Index(before, sec) - len(sec); got != c.gap {
			t.Fatalf("the gap before the id is %d, want %d", got, c.gap)
		}
		findsExactly(t, sc, before, c.want)
	}
	env := "# AWS credentials for the deploy bot\n" +
		"AWS_ACCESS_KEY_ID=" + id + "\n" +
		"# rotated on 2026-03-01 by ana; ask in #infra before changing anything here\n" +
		"# the old pair was revoked the same day\n\n" +
		"AWS_DEFAULT_REGION=eu-west-1\n" +
		"# the secret half, as the console showed it once\n" +
		"AWS_SECRET_ACCESS_KEY=" + sec + "\n"
	findsExactly(t, sc, env, both)
}

// TestPairSecretShape: beside a key id, a run with the secret's length and
// classes is not its secret when it is a name made of words or has a
// low entropy (the base64 of "aaa…"): the shape checks hold, not the
// length alone.
func TestPairSecretShape(t *testing.T) {
	sc := newTestScrubber(t)
	id := fake("aws-id", 43)
	idRule := map[string]string{"aws-access-token": id}
	for _, w := range []string{
		"ReadTheDeploymentNotesBeforeRotatingKeys", // camel case: runs of one kind are long
		strings.Repeat("YWFh", 10),                 // 2 bits a character
	} {
		if len(w) != 40 {
			t.Fatalf("%q is %d characters, not the secret's 40", w, len(w))
		}
		findsExactly(t, sc, "key "+id+" was made by "+w+" yesterday", idRule)
	}
}
