// Package scrub finds secrets in text: API keys, tokens, private keys,
// credential pairs (an AWS secret access key beside its key id), keys and
// passwords given in URLs, in sentences, in code and to commands
// (ConvertTo-SecureString, mysql -p, sshpass), and the person's own
// patterns.
// It owns detection only — gitleaks' rules and how they are run cheaply,
// Ireneo's own rules, what counts as a documentation placeholder rather
// than a secret — and knows nothing of conversations, files or SQLite.
//
// Packages redact and memscrub redact conversations and stored memories
// through a small interface (redact.SecretFinder) that *Scrubber satisfies
// with plain strings and ints, so neither side imports the other; app/
// wires them together.
package scrub

import (
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Pattern is a user-defined secret pattern: a regular expression (Go RE2
// syntax) with a name, which becomes the rule id. If the regex has capture
// groups, the first non-empty one is the secret; otherwise the whole match.
type Pattern struct {
	Name  string `json:"name"`
	Regex string `json:"regex"`
}

// Match is one secret found in a text: the rule that found it and the byte
// span of the secret itself (not of the surrounding match).
type Match struct {
	Rule  string `json:"rule"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Scrubber finds secrets with gitleaks' default rules, Ireneo's own rules
// (credential pairs, secrets with a shape gitleaks lacks, passwords and
// keys given in words) and the person's patterns. It is safe for concurrent use.
type Scrubber struct {
	*detectors
	user  []userRule
	rules []string // every rule id, sorted
}

// Ireneo's own rules, for what gitleaks has no rule for.
const (
	// RuleURLPassword finds a password in a URL such as
	// postgres://app:PASSWORD@db/prod.
	RuleURLPassword = "url-password"
	// RulePassword finds a password given in words or assigned in code:
	// "my password is …", "pwd: …", "$PlainPassword = "…"", "the
	// generated password "…"", <Password>…</Password>.
	RulePassword = "password"
	// RuleSecret finds a key or token given in words: "my secret key …",
	// "the api key is …", "token: …".
	RuleSecret = "secret"
)

// builtinRules are Ireneo's own rule ids, beside gitleaks'.
var builtinRules = []string{
	RuleURLPassword, RulePassword, RuleCommandPassword, RuleSecret,
	RuleAWSSecretKey, RuleAWSSessionToken, RuleAlibabaSecret, RuleTencentSecretID, RuleTencentSecretKey,
	RuleTwilioAuthToken, RuleTwilioAPISecret, RuleGoogleOAuthSecret,
}

var ruleNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// New builds a scrubber with gitleaks' default rules, Ireneo's built-in
// rules and the given patterns. A pattern with a bad name or regex is an
// error naming it.
func New(patterns []Pattern) (*Scrubber, error) {
	d, err := loadDetectors()
	if err != nil {
		return nil, err
	}
	s := &Scrubber{detectors: d}
	seen := map[string]bool{}
	for _, id := range builtinRules {
		seen[id] = true
	}
	for _, id := range d.gitleaksRules {
		seen[id] = true
	}
	for _, p := range patterns {
		ur, err := newUserRule(p, seen)
		if err != nil {
			return nil, err
		}
		seen[ur.id] = true
		s.user = append(s.user, ur)
	}
	for id := range seen {
		s.rules = append(s.rules, id)
	}
	sort.Strings(s.rules)
	return s, nil
}

// Rules lists every rule id the scrubber applies, sorted.
func (s *Scrubber) Rules() []string { return slices.Clone(s.rules) }

// HasRule says whether id is one of the scrubber's rules.
func (s *Scrubber) HasRule(id string) bool {
	_, ok := slices.BinarySearch(s.rules, id)
	return ok
}

// FindSecrets calls found for each secret Scan finds in text, in order. It
// is Scan in the plain types redact.SecretFinder asks for.
func (s *Scrubber) FindSecrets(text string, found func(rule string, start, end int)) {
	for _, m := range s.Scan(text) {
		found(m.Rule, m.Start, m.End)
	}
}

// RedactedText is RedactedText(rule), as a method for redact.SecretFinder.
func (s *Scrubber) RedactedText(rule string) string { return RedactedText(rule) }

// Scan finds the secrets in text. Matches are sorted by position and do not
// overlap; where two rules overlap, the match grows to cover both and keeps
// the more specific rule.
func (s *Scrubber) Scan(text string) []Match {
	if len(text) <= chunkSize+chunkOverlap {
		return s.scanChunk(text)
	}
	// A long text goes in overlapping chunks: gitleaks does work per finding
	// that grows with the length of the text and of the finding's line, so
	// a big paste full of tokens would take quadratic time.
	var ms []Match
	for start := 0; start < len(text); {
		end := len(text)
		if start+chunkSize < len(text) {
			end = cutAfterSpace(text, start+chunkSize/2, start+chunkSize)
		}
		hi := len(text)
		if end+chunkOverlap < len(text) {
			hi = cutAfterSpace(text, end+chunkOverlap/2, end+chunkOverlap)
		}
		for _, m := range s.scanChunk(text[start:hi]) {
			ms = append(ms, Match{Rule: m.Rule, Start: m.Start + start, End: m.End + start})
		}
		start = end
	}
	if len(ms) == 0 {
		return nil
	}
	return mergeMatches(ms)
}

// Chunks are 64 KiB, and each reads 8 KiB on into the next, so a secret of
// up to 8 KiB (a private key block) is whole in one of them.
const (
	chunkSize    = 64 << 10
	chunkOverlap = 8 << 10
)

// cutAfterSpace picks where to end a chunk in text[lo:hi]: after its last
// newline, else after its last space, else at hi.
func cutAfterSpace(text string, lo, hi int) int {
	if i := strings.LastIndexByte(text[lo:hi], '\n'); i >= 0 {
		return lo + i + 1
	}
	for i := hi - 1; i >= lo; i-- {
		if isRegexpSpace(text[i]) {
			return i + 1
		}
	}
	return hi
}

// scanChunk is Scan on a text of bounded length.
func (s *Scrubber) scanChunk(text string) []Match {
	if len(text) == 0 {
		return nil
	}
	ms := s.gitleaksMatches(spaceTrailingPunct(text))
	ms = appendURLPasswords(ms, text)
	ms = appendPairs(ms, text)
	ms = appendShapedSecrets(ms, text)
	ms = appendPasswords(ms, text)
	ms = appendCommandPasswords(ms, text)
	ms = appendSecretsInWords(ms, text)
	ms = s.appendUserMatches(ms, text)
	if len(ms) == 0 {
		return nil
	}
	return mergeMatches(dropRedacted(text, ms))
}

// redactedToken is what a redaction leaves; rescanning must not flag it.
var redactedToken = regexp.MustCompile(`\[REDACTED:[A-Za-z0-9._-]{1,64}\]`)

// RedactedText is the placeholder that replaces a secret found by rule.
func RedactedText(rule string) string { return "[REDACTED:" + rule + "]" }

// dropRedacted removes matches that touch an earlier redaction's
// placeholder: `key: [REDACTED:x]` must not be found again.
func dropRedacted(text string, ms []Match) []Match {
	if !strings.Contains(text, "[REDACTED:") {
		return ms
	}
	toks := redactedToken.FindAllStringIndex(text, -1)
	return slices.DeleteFunc(ms, func(m Match) bool {
		for _, t := range toks {
			if m.Start < t[1] && t[0] < m.End {
				return true
			}
		}
		return false
	})
}

// mergeMatches sorts matches and merges overlapping ones, so a redaction
// never cuts into another.
func mergeMatches(ms []Match) []Match {
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].Start != ms[j].Start {
			return ms[i].Start < ms[j].Start
		}
		return ms[i].End > ms[j].End
	})
	out := ms[:0]
	for _, m := range ms {
		if n := len(out); n > 0 && m.Start < out[n-1].End {
			out[n-1].End = max(out[n-1].End, m.End)
			// As gitleaks does, a specific rule beats the generic one.
			if ruleRank(m.Rule) > ruleRank(out[n-1].Rule) {
				out[n-1].Rule = m.Rule
			}
			continue
		}
		out = append(out, m)
	}
	return out
}

// ruleRank orders rules by how much their name tells: the secret-in-words
// rule knows least, gitleaks' generic rule a little more (its keyword),
// every other rule the provider or kind.
func ruleRank(rule string) int {
	switch rule {
	case RuleSecret:
		return 0
	case genericRule:
		return 1
	}
	return 2
}

// Redact replaces each match in text (as Scan returned them: sorted, not
// overlapping) with its placeholder.
func Redact(text string, ms []Match) string {
	if len(ms) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, m := range ms {
		if m.Start < last || m.End > len(text) || m.Start > m.End {
			continue // not Scan's output for this text; skip rather than panic
		}
		b.WriteString(text[last:m.Start])
		b.WriteString(RedactedText(m.Rule))
		last = m.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// isRegexpSpace is regexp's \s.
func isRegexpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// asciiLower lowercases ASCII letters only, so byte offsets stay put
// (strings.ToLower may change the length of non-ASCII text).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
