package scrub

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// The secret-in-words rule finds a key or token given in words, as people
// paste one to an assistant: "my secret key wJalr…", "the api key is
// Zx8K…", "token: 9f8a…", "secret = …". gitleaks' generic rule needs an
// operator and a name it knows right before the value; in a sentence the
// value follows "is", or nothing at all.
//
// These words are everywhere in technical talk ("the token expires",
// "rotate the secret", "token: see the vault"), so a value counts only if
// it looks machine-made: long, letters mixed with digits, high entropy,
// made of the characters keys are made of, and not a path, a dotted name,
// a placeholder or a documentation example. A value right after the word,
// with no "is" or ':' between, must be longer still; what a title cut with
// "…" kept of a value may be shorter (see cutMark).

// secretHeads are the words that introduce a secret, lowercase.
var secretHeads = []string{"secret", "token", "apikey", "key"}

// secretQualifiers may follow a head before the value: "secret key …",
// "api token value: …".
var secretQualifiers = map[string]bool{
	"key": true, "token": true, "secret": true, "value": true, "string": true, "itself": true,
}

// Lengths a value must have: after "is" or ':', and right after the word.
const (
	minLinkedSecret   = 16
	minAdjacentSecret = 20
	maxSecretLen      = 256
)

var (
	secretCharsRe = regexp.MustCompile(`^[A-Za-z0-9+/=_.~-]+$`)
	fileExtRe     = regexp.MustCompile(`\.[A-Za-z]{1,5}$`)
)

// appendSecretsInWords adds the secrets given in words in text.
func appendSecretsInWords(ms []Match, text string) []Match {
	if !mayHoldSecretHead(text) {
		return ms
	}
	low := asciiLower(text)
	for _, k := range secretHeads {
		for off := 0; ; {
			i := strings.Index(low[off:], k)
			if i < 0 {
				break
			}
			p := off + i
			off = p + len(k)
			if st, en, ok := secretAfter(text, low, p, k); ok {
				ms = append(ms, Match{Rule: RuleSecret, Start: st, End: en})
				off = en
			}
		}
	}
	return ms
}

// mayHoldSecretHead is a quick test that text holds some head word.
func mayHoldSecretHead(text string) bool {
	for _, s := range []string{"ecret", "ECRET", "oken", "OKEN", "key", "Key", "KEY"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// secretAfter finds the value the head word at p introduces, if any.
func secretAfter(text, low string, p int, k string) (int, int, bool) {
	// The word stands alone, or ends a name: AWS_SECRET, api-key, "token".
	if p > 0 && isTokenByte(low[p-1]) {
		return 0, 0, false
	}
	i := p + len(k)
	if i < len(low) && (isTokenByte(low[i]) || low[i] == '_' || low[i] == '-') {
		return 0, 0, false // secrets, tokenizer, keyboard, secret_key (its "key" is found)
	}
	quoted := false // a JSON or YAML key: "token": …
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i, quoted = i+1, true
	}
	i = skipDecor(text, i)
	if w, j := wordAt(low, i); w != k && secretQualifiers[w] && !quoted {
		i = skipDecor(text, j)
		if j < len(text) && (text[j] == '"' || text[j] == '\'') {
			i, quoted = skipDecor(text, j+1), true
		}
	}
	if quoted && (i >= len(text) || text[i] != ':' && text[i] != '=') {
		return 0, 0, false // a quoted word ends a string: msg="… token" request_id=…
	}
	linked := true
	switch {
	case i < len(text) && (text[i] == ':' || text[i] == '='):
		for i < len(text) && (text[i] == ':' || text[i] == '=' || text[i] == '>') {
			i++
		}
	case strings.HasPrefix(text[i:], "->"):
		i += 2
	case strings.HasPrefix(text[i:], "→"):
		i += len("→")
	default:
		if j, ok := linkAfter(low, i); ok {
			i = j
		} else {
			linked = false
		}
	}
	i = skipDecor(text, i)
	if w, j := wordAt(low, i); passwordFillers[w] {
		i = skipBlanks(text, j)
	}
	st, en := secretValueAt(text, i)
	// A token in a path ("x-access-token:ghp_…/ireneo") ends at the path's
	// next folder.
	en = cutPathTail(text, st, en)
	minLen := minLinkedSecret
	switch {
	case en > st && isCutAt(text, en):
		minLen = minCutValue
	case !linked:
		minLen = minAdjacentSecret
	}
	// Hex of 20–31 digits is a secret only when called one ("the plaid
	// secret is …", "token: …"): as a "key" it is more often an id, like a
	// MongoDB ObjectId.
	shortHex := linked && k != "key"
	if st >= en || !secretShaped(text[st:en], minLen, shortHex) || isIdentifierValue(text, p, st, en) {
		return 0, 0, false
	}
	return st, en, true
}

// isIdentifierValue applies gitleaks' generic allow-list (see
// isFalsePositive) to a value at text[st:en] whose head word is at p: image
// data is never a secret, and a UUID or a git or sha256 digest is one only
// when the words before it say so ("api key: <uuid>", not "cache key: <sha256>").
func isIdentifierValue(text string, p, st, en int) bool {
	v := text[st:en]
	for _, m := range imageMagic {
		if strings.HasPrefix(v, m) {
			return true
		}
	}
	if !uuidRe.MatchString(v) && !hexIDRe.MatchString(v) {
		return false
	}
	lo := max(0, p-40)
	if nl := strings.LastIndexByte(text[lo:p], '\n'); nl >= 0 {
		lo += nl + 1
	}
	return !secretLabelRe.MatchString(text[lo:st])
}

// secretValueAt is the span of the value at i: a quoted string, or a run
// of the characters keys are made of that ends where a value can end (a
// space, a quote, the end of a sentence or of a URL parameter), not in the
// middle of code such as make_token_for(user).
func secretValueAt(text string, i int) (int, int) {
	if i >= len(text) {
		return i, i
	}
	if r, _ := utf8.DecodeRuneInString(text[i:]); valueQuotes[r] != 0 {
		return valueAt(text, i)
	}
	j := i
	for j < len(text) && isSecretByte(text[j]) {
		j++
	}
	for j > i && text[j-1] == '.' {
		j-- // the sentence's full stop
	}
	if j == len(text) || isRegexpSpace(text[j]) || strings.IndexByte(",;)]}&#'\"`>|", text[j]) >= 0 || isCutAt(text, j) {
		return i, j
	}
	if c := text[j]; (c == '.' || c == '!' || c == '?' || c == ':') && (j+1 == len(text) || isRegexpSpace(text[j+1])) {
		return i, j
	}
	return i, i
}

// isPathTail reports folders of lowercase words: "/ireneo", "/src/app".
func isPathTail(v string) bool {
	for _, part := range strings.Split(v[1:], "/") {
		if len(part) < 3 {
			return false
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !('a' <= c && c <= 'z' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

func isSecretByte(c byte) bool {
	return isTokenByte(c) || strings.IndexByte("+/=_.~-", c) >= 0
}

// secretShaped reports whether v looks like a machine-made key or token of
// at least minLen bytes: minLinkedSecret after "is" or ':',
// minAdjacentSecret right after its word, minCutValue where a cut title
// kept part of it. Hex must be 32 digits long, or 20 when shortHex.
func secretShaped(v string, minLen int, shortHex bool) bool {
	linked := minLen != minAdjacentSecret
	if len(v) < minLen || len(v) > maxSecretLen || !secretCharsRe.MatchString(v) {
		return false
	}
	switch {
	case strings.IndexByte(".~-_=", v[0]) >= 0,
		strings.Contains(strings.TrimRight(v, "="), "="),                      // key=value, not base64's padding
		v[0] == '/' && (strings.Count(v, "/") > 3 || !hasMixedSegment(v[1:])), // a path, not base64 that starts with '/'

		strings.Contains(v, "/") && strings.Contains(v, "."), // a path with a file name
		fileExtRe.MatchString(v) && !strings.Contains(v, "="),
		dottedName.MatchString(v), placeholderEnvName.MatchString(v),
		!linked && uuidRe.MatchString(v),
		looksFake(v):
		return false
	}
	if !hasMixedSegment(v) || camelName(v) {
		return false
	}
	if isHexString(v) {
		need := 32
		switch {
		case minLen == minCutValue:
			need = minCutValue
		case shortHex:
			need = 20
		}
		return len(v) >= need && shannonEntropy(v) >= 3.0
	}
	if minLen == minCutValue {
		return shannonEntropy(v) >= 3.0 // few characters have less
	}
	return shannonEntropy(v) >= 3.5
}

// hasMixedSegment reports whether v has a random-looking body: a run of
// letters and digits, six or more long, that mixes both, or (a key without
// a digit) letters in both cases about evenly, switching case as often as
// random letters do. Names made of words and numbers
// ("release-2024-10-15", "user_session_token2", "getAccessTokenFromHeader")
// have neither.
func hasMixedSegment(v string) bool {
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && isTokenByte(v[i]) {
			continue
		}
		if seg := v[start:i]; len(seg) >= 6 {
			// Two changes between letters and digits at least: "sqlite3"
			// and "user2024" are names, "K7MDENG" is not.
			changes := 0
			for k := 1; k < len(seg); k++ {
				if isDigit(seg[k]) != isDigit(seg[k-1]) {
					changes++
				}
			}
			if changes >= 2 {
				return true
			}
		}
		start = i + 1
	}
	return randomCase(v)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// camelName reports a value in both cases whose runs of one kind of
// character (lowercase, uppercase, digits) are long, as in a name made of
// words: openSSHEd25519PrivateKey has runs of 3 on average, random
// characters of 1.6 (99.9% of 20 random alphanumerics stay under 3.4).
func camelName(v string) bool {
	var upper, lower bool
	runs, chars := 0, 0
	prev := byte(0)
	for k := 0; k < len(v); k++ {
		c := v[k]
		var kind byte
		switch {
		case 'a' <= c && c <= 'z':
			kind, lower = 'l', true
		case 'A' <= c && c <= 'Z':
			kind, upper = 'u', true
		case isDigit(c):
			kind = 'd'
		default:
			prev = 0
			continue
		}
		chars++
		if kind != prev {
			runs++
		}
		prev = kind
	}
	return upper && lower && runs > 0 && chars >= 3*runs
}

// randomCase reports letters in both cases about evenly, switching case
// between neighbours at least three times in ten (random letters: five).
func randomCase(v string) bool {
	letters, upper, pairs, switches := 0, 0, 0, 0
	for k := 0; k < len(v); k++ {
		if !isASCIILetter(v[k]) {
			continue
		}
		letters++
		if v[k] < 'a' {
			upper++
		}
		if k > 0 && isASCIILetter(v[k-1]) {
			pairs++
			if (v[k] < 'a') != (v[k-1] < 'a') {
				switches++
			}
		}
	}
	return letters >= 12 && 4*upper >= letters && 4*upper <= 3*letters && 10*switches >= 3*pairs
}

func isHexString(v string) bool {
	for i := 0; i < len(v); i++ {
		if strings.IndexByte(hexLower, v[i]|0x20) < 0 {
			return false
		}
	}
	return true
}
