package memory

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"
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
// and the person's patterns. It is safe for concurrent use.
type Scrubber struct {
	det   *detect.Detector
	extra []textRule // Ireneo's built-in rules, then the person's patterns
	rules []string   // every rule id, sorted
}

// textRule is a rule gitleaks does not have, run with Go's regexp.
type textRule struct {
	id    string
	re    *regexp.Regexp
	allow func(secret string) bool // reports a secret that is not one; may be nil
	user  bool
}

// RuleURLPassword is Ireneo's rule for a password in a URL such as
// postgres://app:PASSWORD@db/prod. gitleaks has no rule for it.
const RuleURLPassword = "url-password"

var (
	detOnce sync.Once
	detVal  *detect.Detector
	detErr  error
)

// defaultDetector builds gitleaks' detector once: building parses 222 rules
// (about 90 ms), and one detector serves every goroutine.
func defaultDetector() (*detect.Detector, error) {
	detOnce.Do(func() {
		// gitleaks logs findings at trace level, secret included; we never
		// want its log, whatever its level.
		logging.Logger = zerolog.Nop()
		detVal, detErr = detect.NewDetectorDefaultConfig()
		if detErr != nil {
			detErr = fmt.Errorf("scrub: load gitleaks rules: %w", detErr)
		}
	})
	return detVal, detErr
}

var (
	// A URL's userinfo password: scheme://user:PASSWORD@host.
	urlPasswordRe = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]{1,30}://[^\s:/@'"<>\x60]{1,128}:([^\s/@'"<>\x60]{1,256})@[^\s/@'"<>\x60]`)
	// Placeholders people write in example URLs, not passwords.
	urlPasswordPlaceholder = regexp.MustCompile(`(?i)^(?:\$\{?[\w.-]*\}?|\{\{?[^}]*\}?\}|<[^>]*>|%[\w.-]*%|\[[^\]]*\]|\*+|x+|\.+|pass(?:word|wd)?|pwd?|secret|your[_-]?password|changeme|redacted)$`)

	ruleNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
)

// NewScrubber builds a scrubber with gitleaks' default rules, Ireneo's
// built-in rules and the given patterns. A pattern with a bad name or regex
// is an error naming it.
func NewScrubber(patterns []Pattern) (*Scrubber, error) {
	det, err := defaultDetector()
	if err != nil {
		return nil, err
	}
	s := &Scrubber{det: det}
	s.extra = append(s.extra, textRule{id: RuleURLPassword, re: urlPasswordRe, allow: urlPasswordPlaceholder.MatchString})
	seen := map[string]bool{RuleURLPassword: true}
	for id := range det.Config.Rules {
		seen[id] = true
	}
	for _, p := range patterns {
		name := strings.TrimSpace(p.Name)
		if !ruleNameRe.MatchString(name) {
			return nil, fmt.Errorf("scrub pattern %q: a name is 1-64 letters, digits, '.', '_' or '-'", p.Name)
		}
		if seen[name] {
			return nil, fmt.Errorf("scrub pattern %q: the name is already a rule", name)
		}
		if strings.TrimSpace(p.Regex) == "" {
			return nil, fmt.Errorf("scrub pattern %q: empty regex", name)
		}
		re, err := regexp.Compile(p.Regex)
		if err != nil {
			return nil, fmt.Errorf("scrub pattern %q: %w", name, err)
		}
		seen[name] = true
		s.extra = append(s.extra, textRule{id: name, re: re, user: true})
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

// Scan finds the secrets in text. Matches are sorted by position and do not
// overlap; where two rules overlap, the earlier match wins and grows to cover
// both.
func (s *Scrubber) Scan(text string) []Match {
	if len(text) == 0 {
		return nil
	}
	var ms []Match
	var nl []int // newline offsets, computed on the first finding
	for _, f := range s.det.DetectString(text) {
		if f.Secret == "" || isFalsePositive(f) {
			continue
		}
		if nl == nil {
			nl = newlines(text)
		}
		ms = appendSpans(ms, text, f.RuleID, f.Secret, approxStart(nl, f), len(f.Match))
	}
	for _, r := range s.extra {
		for _, loc := range r.re.FindAllStringSubmatchIndex(text, -1) {
			st, en := secretGroup(loc)
			if st < 0 || st == en {
				continue
			}
			if r.allow != nil && r.allow(text[st:en]) {
				continue
			}
			ms = append(ms, Match{Rule: r.id, Start: st, End: en})
		}
	}
	if len(ms) == 0 {
		return nil
	}
	return mergeMatches(dropRedacted(text, ms))
}

// secretGroup picks the secret's span from a submatch index: the first
// non-empty capture group, else the whole match (gitleaks' convention).
func secretGroup(loc []int) (int, int) {
	for i := 2; i+1 < len(loc); i += 2 {
		if loc[i] >= 0 && loc[i+1] > loc[i] {
			return loc[i], loc[i+1]
		}
	}
	return loc[0], loc[1]
}

func newlines(text string) []int {
	var nl []int
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			nl = append(nl, i)
		}
	}
	return nl
}

// approxStart turns a finding's line and column back into the byte offset
// of its match. gitleaks counts a column on line L>0 from the newline that
// ends line L-1, so the newline itself is column 1.
func approxStart(nl []int, f report.Finding) int {
	start := f.StartColumn - 1
	if f.StartLine > 0 && f.StartLine-1 < len(nl) {
		start += nl[f.StartLine-1]
	}
	return max(start, 0)
}

// locateSlack is how far around the reported match we look for the secret:
// gitleaks trims newlines off a match without moving its start.
const locateSlack = 8

// appendSpans adds every occurrence of secret inside the reported match.
// gitleaks gives the secret's text, not its offset, so we find it by
// position; if the position is off we redact every occurrence in the text
// rather than leave the secret in place.
func appendSpans(ms []Match, text, rule, secret string, approx, matchLen int) []Match {
	lo := max(0, approx-locateSlack)
	hi := min(len(text), approx+max(matchLen, len(secret))+locateSlack)
	found := false
	if lo < hi {
		for off := lo; ; {
			i := strings.Index(text[off:hi], secret)
			if i < 0 {
				break
			}
			ms = append(ms, Match{Rule: rule, Start: off + i, End: off + i + len(secret)})
			found = true
			off += i + len(secret)
		}
	}
	if found {
		return ms
	}
	for off := 0; ; {
		i := strings.Index(text[off:], secret)
		if i < 0 {
			return ms
		}
		ms = append(ms, Match{Rule: rule, Start: off + i, End: off + i + len(secret)})
		off += i + len(secret)
	}
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
			continue
		}
		out = append(out, m)
	}
	return out
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

// RedactSession replaces every secret in the session's title and blocks
// with [REDACTED:<rule-id>], in place, and counts redactions per rule. It is
// the hook for IngestOptions.Redact.
func (s *Scrubber) RedactSession(sess *Session) map[string]int {
	if sess == nil {
		return nil
	}
	return s.redactSession(sess, nil)
}

// redactSession redacts the matches keep accepts (all when keep is nil).
func (s *Scrubber) redactSession(sess *Session, keep func(loc sessionLoc, text string, m Match) bool) map[string]int {
	var counts map[string]int
	do := func(loc sessionLoc, text string) string {
		ms := s.Scan(text)
		if keep != nil {
			ms = slices.DeleteFunc(ms, func(m Match) bool { return !keep(loc, text, m) })
		}
		if len(ms) == 0 {
			return text
		}
		if counts == nil {
			counts = map[string]int{}
		}
		for _, m := range ms {
			counts[m.Rule]++
		}
		return Redact(text, ms)
	}
	sess.Title = do(sessionLoc{Turn: -1, Block: -1}, sess.Title)
	for ti := range sess.Turns {
		t := &sess.Turns[ti]
		for bi := range t.Blocks {
			t.Blocks[bi].Text = do(sessionLoc{Turn: ti, Block: bi}, t.Blocks[bi].Text)
		}
	}
	return counts
}

// sessionLoc is where in a session a text lives: the title is turn -1,
// block -1.
type sessionLoc struct{ Turn, Block int }

// MaskSecret shows a secret's first and last two characters and nothing
// else; a secret under ten characters shows nothing, since four of its
// characters would give too much of it away.
func MaskSecret(secret string) string {
	if !utf8.ValidString(secret) {
		secret = strings.ToValidUTF8(secret, "\uFFFD")
	}
	r := []rune(secret)
	if len(r) < 10 {
		return "…"
	}
	return string(r[:2]) + "…" + string(r[len(r)-2:])
}

// errNoScrubber is returned when a scrub runs without a scrubber.
var errNoScrubber = errors.New("scrub: no scrubber given")

// The in-code allow-list. gitleaks' generic-api-key rule fires on any
// high-entropy word after "key:", "token =" and the like, so in
// conversations it flags identifiers that are not secrets:
//   - a UUID ("request key: 3f2b8c1e-…"): ids, not credentials;
//   - a git object id (40 hex) or a sha256 digest (64 hex), as in
//     "key commit: 9fceb02…" or "key: 0d17b565…";
//   - base64 image data ("image_token: iVBORw0KGgo…", a data: URL).
//
// A UUID or hex id is still a finding when the label calls it a secret
// ("api_key: <uuid>", "secret: <64 hex>"): webhook secrets and some API keys
// have exactly those shapes.
var (
	uuidRe        = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	hexIDRe       = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64}|[0-9A-F]{40}|[0-9A-F]{64})$`)
	secretLabelRe = regexp.MustCompile(`(?i)secret|token|passw|pwd|api|auth|credential|creds|private`)
	// Base64 of the first bytes of PNG, JPEG, GIF, WebP/RIFF and SVG files.
	imageMagic = []string{"iVBORw0KGgo", "/9j/", "R0lGOD", "UklGR", "PHN2Zy", "PD94bWwg"}
)

// isFalsePositive reports a gitleaks finding the allow-list above drops.
func isFalsePositive(f report.Finding) bool {
	if !strings.Contains(f.RuleID, "generic") {
		return false
	}
	sec := f.Secret
	if strings.Contains(f.Match, "base64,") {
		return true
	}
	for _, p := range imageMagic {
		if strings.HasPrefix(sec, p) {
			return true
		}
	}
	if uuidRe.MatchString(sec) || hexIDRe.MatchString(sec) {
		label := f.Match
		if i := strings.LastIndex(label, sec); i >= 0 {
			label = label[:i]
		}
		return !secretLabelRe.MatchString(label)
	}
	return false
}
