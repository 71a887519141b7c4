package scrub

import (
	"math"
	"regexp"
	"strings"
)

// Credential pairs. Some providers issue a credential in two halves: an id
// with a shape of its own (AKIA… for AWS, LTAI… for Alibaba, AKID… for
// Tencent, AC… or SK… for Twilio) and a secret that is just so many random
// characters (AWS's 40 of base64). The secret half has no shape a rule can
// find alone, so gitleaks finds the id and misses the secret beside it:
// "my AWS key is AKIA… and secret wJalr…" kept the secret after a scrub. A
// pair rule finds the id, then a token of the secret's shape near it.
//
// gitleaks' default config has no such composite rules (its "required"
// rules exist for custom configs only), so these are Ireneo's, with the id
// shapes gitleaks uses.

// Rule ids of the secret halves, and of the ids gitleaks has no rule for.
const (
	RuleAWSSecretKey      = "aws-secret-access-key"
	RuleAWSSessionToken   = "aws-session-token"
	RuleAlibabaSecret     = "alibaba-access-key-secret"
	RuleTencentSecretID   = "tencent-secret-id"
	RuleTencentSecretKey  = "tencent-secret-key"
	RuleTwilioAuthToken   = "twilio-auth-token"
	RuleTwilioAPISecret   = "twilio-api-secret"
	RuleGoogleOAuthSecret = "gcp-oauth-client-secret"
)

// pairReach is how far from its id a secret half may be: the same
// sentence, or the next lines of a credentials file or an .env paste.
const pairReach = 400

// pairRule is one provider's pair.
type pairRule struct {
	secretRule string         // the id of the secret half's finding
	idRule     string         // the id half's own finding; "" when gitleaks reports it
	literals   []string       // one of these is in every id (a cheap first test)
	id         *regexp.Regexp // the id half
	// The secret half: a maximal run of alphabet characters whose length
	// is in [minLen, maxLen] and that has the classes asked for.
	alphabet       string
	minLen, maxLen int
	needUpper      bool
	needLower      bool
	needDigit      bool
	minEntropy     float64
}

const (
	alnumChars  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	base64Chars = alnumChars + "+/"
	hexLower    = "0123456789abcdef"
)

var pairRules = []pairRule{
	{
		// gitleaks' aws-access-token shape; AWS's documentation ids end in EXAMPLE.
		secretRule: RuleAWSSecretKey,
		literals:   []string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"},
		id:         regexp.MustCompile(`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`),
		alphabet:   base64Chars, minLen: 40, maxLen: 40,
		needUpper: true, needLower: true, minEntropy: 4.0,
	},
	{
		// gitleaks' alibaba-access-key-id; the AccessKey secret is 30 alphanumerics.
		secretRule: RuleAlibabaSecret,
		literals:   []string{"LTAI"},
		id:         regexp.MustCompile(`\bLTAI[A-Za-z0-9]{20}\b`),
		alphabet:   alnumChars, minLen: 30, maxLen: 30,
		needUpper: true, needLower: true, minEntropy: 3.8,
	},
	{
		// Tencent Cloud's SecretId is AKID and 32 alphanumerics, its SecretKey 32 more.
		secretRule: RuleTencentSecretKey, idRule: RuleTencentSecretID,
		literals: []string{"AKID"},
		id:       regexp.MustCompile(`\bAKID[A-Za-z0-9]{32}\b`),
		alphabet: alnumChars, minLen: 32, maxLen: 32,
		needUpper: true, needLower: true, minEntropy: 3.8,
	},
	{
		// A Twilio Account SID (AC and 32 hex) and its auth token (32 hex).
		secretRule: RuleTwilioAuthToken,
		literals:   []string{"AC"},
		id:         regexp.MustCompile(`\bAC[0-9a-f]{32}\b`),
		alphabet:   hexLower, minLen: 32, maxLen: 32,
		needLower: true, needDigit: true, minEntropy: 3.2,
	},
	{
		// gitleaks' twilio-api-key (SK and 32 hex) and the API key's secret.
		secretRule: RuleTwilioAPISecret,
		literals:   []string{"SK"},
		id:         regexp.MustCompile(`\bSK[0-9a-fA-F]{32}\b`),
		alphabet:   alnumChars, minLen: 32, maxLen: 32,
		needUpper: true, needLower: true, minEntropy: 3.8,
	},
	{
		// A Google OAuth client id and an old-style client secret (24 of
		// [A-Za-z0-9_-]); new ones start GOCSPX- and have a rule of their own.
		secretRule: RuleGoogleOAuthSecret,
		literals:   []string{".apps.googleusercontent.com"},
		id:         regexp.MustCompile(`\b\d{6,}-[a-z0-9]{32}\.apps\.googleusercontent\.com\b`),
		alphabet:   alnumChars + "_-", minLen: 24, maxLen: 24,
		needUpper: true, needLower: true, minEntropy: 3.8,
	},
}

// Secrets with a shape of their own that gitleaks has no rule for.
var (
	// AWS STS session tokens start with the base64 of the same few bytes.
	awsSessionTokenRe = regexp.MustCompile(`(?:IQoJb3JpZ2lu|FwoGZXIvYXdz|FQoGZXIvYXdz)[A-Za-z0-9+/]{100,}={0,2}`)
	// Google OAuth client secrets issued since 2021.
	googleOAuthSecretRe = regexp.MustCompile(`\bGOCSPX-[A-Za-z0-9_-]{28}`)
)

// appendShapedSecrets adds the secrets found by a shape of their own.
func appendShapedSecrets(ms []Match, text string) []Match {
	if strings.Contains(text, "b3JpZ2lu") || strings.Contains(text, "ZXIvYXdz") {
		for _, loc := range awsSessionTokenRe.FindAllStringIndex(text, -1) {
			ms = append(ms, Match{Rule: RuleAWSSessionToken, Start: loc[0], End: loc[1]})
		}
	}
	if strings.Contains(text, "GOCSPX-") {
		for _, loc := range googleOAuthSecretRe.FindAllStringIndex(text, -1) {
			if !looksFake(text[loc[0]:loc[1]]) {
				ms = append(ms, Match{Rule: RuleGoogleOAuthSecret, Start: loc[0], End: loc[1]})
			}
		}
	}
	return ms
}

// appendPairs adds the secret halves found near their ids (and the ids
// that are Ireneo's own findings).
func appendPairs(ms []Match, text string) []Match {
	for i := range pairRules {
		r := &pairRules[i]
		if !r.mayMatch(text) {
			continue
		}
		for _, loc := range r.id.FindAllStringIndex(text, -1) {
			if looksFake(text[loc[0]:loc[1]]) {
				continue
			}
			if r.idRule != "" {
				ms = append(ms, Match{Rule: r.idRule, Start: loc[0], End: loc[1]})
			}
			ms = r.appendSecrets(ms, text, loc[0], loc[1])
		}
	}
	return ms
}

func (r *pairRule) mayMatch(text string) bool {
	for _, l := range r.literals {
		if strings.Contains(text, l) {
			return true
		}
	}
	return false
}

// appendSecrets adds every token of the secret's shape within pairReach of
// the id at text[idStart:idEnd].
func (r *pairRule) appendSecrets(ms []Match, text string, idStart, idEnd int) []Match {
	// The window reaches a whole secret's length further back, so one
	// that ends within reach before the id is whole in it.
	lo, hi := max(0, idStart-pairReach-r.maxLen), min(len(text), idEnd+pairReach)
	for i := lo; i < hi; {
		if !r.inAlphabet(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && r.inAlphabet(text[j]) {
			j++
		}
		whole := i > lo || lo == 0 || !r.inAlphabet(text[lo-1]) // a token that starts before the window is not whole in it
		switch {
		case !whole, j <= idStart && idStart-j > pairReach:
		case j <= idStart || i >= idEnd:
			if r.isSecret(text, i, j, true, true) {
				ms = append(ms, Match{Rule: r.secretRule, Start: i, End: j})
			}
		default:
			// The id is in the run, joined to the secret by one of the
			// alphabet's characters: AKIA…/wJalr…, wJalr…+AKIA….
			if i < idStart-1 && r.isSecret(text, i, idStart-1, true, false) {
				ms = append(ms, Match{Rule: r.secretRule, Start: i, End: idStart - 1})
			}
			if idEnd+1 < j && r.isSecret(text, idEnd+1, j, false, true) {
				ms = append(ms, Match{Rule: r.secretRule, Start: idEnd + 1, End: j})
			}
		}
		i = j
	}
	return ms
}

// isSecret reports whether text[i:j], a maximal run of the alphabet, has
// the secret half's shape and stands alone as a token; left and right say
// whether to check what is on each side of it (not where the id is).
func (r *pairRule) isSecret(text string, i, j int, left, right bool) bool {
	n := j - i
	cut := n < r.minLen && n >= minCutValue && isCutAt(text, j)
	if n < r.minLen && !cut || n > r.maxLen {
		return false
	}
	// Part of a longer name or blob: foo_<run>, <run>-bar, <run>=, <run>.ext.
	if left && (i > 1 && strings.IndexByte("_-.", text[i-1]) >= 0 && isTokenByte(text[i-2]) ||
		i > 0 && (text[i-1] == '/' || text[i-1] == '\\')) {
		return false
	}
	if right && (j < len(text) && strings.IndexByte("_-=/\\", text[j]) >= 0 ||
		j+1 < len(text) && text[j] == '.' && isTokenByte(text[j+1])) {
		return false
	}
	tok := text[i:j]
	var upper, lower, digit bool
	for k := 0; k < len(tok); k++ {
		switch c := tok[k]; {
		case 'A' <= c && c <= 'Z':
			upper = true
		case 'a' <= c && c <= 'z':
			lower = true
		case '0' <= c && c <= '9':
			digit = true
		}
	}
	if r.needUpper && !upper || r.needLower && !lower || r.needDigit && !digit {
		return false
	}
	minEntropy := r.minEntropy
	if cut {
		minEntropy = min(minEntropy, 3.0) // few characters have less
	}
	// A name made of words (ReadTheDeploymentNotesBeforeRotatingKeys) has
	// the length and the classes, and English letters' entropy too.
	return shannonEntropy(tok) >= minEntropy && !looksFake(tok) && !camelName(tok) && !wordName(tok)
}

// wordName reports a run of letters only, a quarter or fewer of them
// capitals, as in a name made of words. A random secret of 40 base64
// characters has no digit nor '+' or '/' once in 400, and half its letters
// are capitals.
func wordName(tok string) bool {
	upper := 0
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case 'A' <= c && c <= 'Z':
			upper++
		case 'a' <= c && c <= 'z':
		default:
			return false
		}
	}
	return 4*upper <= len(tok)
}

// A title is cut short with "…" (importers keep a first message's first
// 80 characters), sometimes inside a secret: "… and secret wJalrXUtnF…".
// What is left of the secret is redacted if it has the secret's alphabet
// and classes and at least minCutValue characters.
const (
	cutMark     = "…"
	minCutValue = 8
)

// isCutAt reports a cut mark at text[j:] that ends the text or a word.
func isCutAt(text string, j int) bool {
	if !strings.HasPrefix(text[j:], cutMark) {
		return false
	}
	k := j + len(cutMark)
	return k == len(text) || isRegexpSpace(text[k])
}

func (r *pairRule) inAlphabet(c byte) bool { return strings.IndexByte(r.alphabet, c) >= 0 }

func isTokenByte(c byte) bool {
	return isASCIILetter(c) || '0' <= c && c <= '9'
}

// fakeMarks are what documentation fills a made-up key with:
// AKIAIOSFODNN7EXAMPLE, sk-xxxxxxxx…, wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.
var fakeMarks = []string{"example", "xxxx", "****", "....", "your", "dummy", "sample", "placeholder", "redacted", "changeme", "abcdefgh", "12345678"}

// looksFake reports a value made up for documentation rather than issued.
func looksFake(v string) bool {
	low := asciiLower(v)
	for _, m := range fakeMarks {
		if strings.Contains(low, m) {
			return true
		}
	}
	return isPlaceholder(v)
}

// shannonEntropy is the bits per character of s, over its bytes.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
