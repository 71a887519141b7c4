package memory

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	gre "github.com/zricethezav/gitleaks/v8/regexp"
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
	*detectors
	user  []userRule
	rules []string // every rule id, sorted
}

// userRule is one of the person's patterns, compiled with gitleaks' regexp
// backend so that it gets RE2's speed when built with gore2regex.
type userRule struct {
	id string
	re *gre.Regexp
	// lit is a literal every match contains, if the regex has one: texts
	// without it are skipped, since a regex with no literal prefix costs a
	// full pass over the text.
	lit  string
	fold bool // lit is lowercase and matched ignoring ASCII case
}

// RuleURLPassword is Ireneo's rule for a password in a URL such as
// postgres://app:PASSWORD@db/prod. gitleaks has no rule for it.
const RuleURLPassword = "url-password"

// genericRule is gitleaks' catch-all rule. Its regex is most of a scan's
// cost and its keywords ("key", "token", "api", …) are in most blocks of a
// technical conversation, so it runs only on windows around its keywords.
const genericRule = "generic-api-key"

// detectors are gitleaks' rules, split in two: every rule but the generic
// one, run over whole texts, and the generic one, run over keyword windows.
type detectors struct {
	main, generic   *detect.Detector
	genericKeywords []string // lowercase
	gitleaksRules   []string
}

var (
	detOnce sync.Once
	detVal  *detectors
	detErr  error
)

// loadDetectors builds gitleaks' detectors once: parsing the 222 rules takes
// about 90 ms, and a detector serves any number of goroutines.
func loadDetectors() (*detectors, error) {
	detOnce.Do(func() {
		// gitleaks logs findings at trace level, secret included; we never
		// want its log, whatever its level.
		logging.Logger = zerolog.Nop()
		def, err := detect.NewDetectorDefaultConfig()
		if err != nil {
			detErr = fmt.Errorf("scrub: load gitleaks rules: %w", err)
			return
		}
		gen, ok := def.Config.Rules[genericRule]
		if !ok {
			detErr = fmt.Errorf("scrub: gitleaks has no %s rule", genericRule)
			return
		}
		d := &detectors{}
		for id := range def.Config.Rules {
			d.gitleaksRules = append(d.gitleaksRules, id)
		}
		d.main = detect.NewDetector(subConfig(def.Config, func(id string) bool { return id != genericRule }))
		d.generic = detect.NewDetector(subConfig(def.Config, func(id string) bool { return id == genericRule }))
		for _, k := range gen.Keywords {
			d.genericKeywords = append(d.genericKeywords, strings.ToLower(k))
		}
		detVal = d
	})
	return detVal, detErr
}

// subConfig is cfg with only the rules keep accepts, and their keywords.
func subConfig(cfg config.Config, keep func(id string) bool) config.Config {
	out := cfg
	out.Rules = map[string]config.Rule{}
	out.Keywords = map[string]struct{}{}
	out.OrderedRules = nil
	for _, id := range cfg.OrderedRules {
		r, ok := cfg.Rules[id]
		if !ok || !keep(id) {
			continue
		}
		out.Rules[id] = r
		out.OrderedRules = append(out.OrderedRules, id)
		for _, k := range r.Keywords {
			out.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	return out
}

var (
	// Placeholders people write in example URLs, not passwords.
	urlPasswordPlaceholder = regexp.MustCompile(`(?i)^(?:\$\{?[\w.-]*\}?|\{\{?[^}]*\}?\}|<[^>]*>|%[\w.-]*%|\[[^\]]*\]|\*+|x+|\.+|pass(?:word|wd)?|pwd?|secret|your[_-]?password|changeme|redacted)$`)

	ruleNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
)

// NewScrubber builds a scrubber with gitleaks' default rules, Ireneo's
// built-in rules and the given patterns. A pattern with a bad name or regex
// is an error naming it.
func NewScrubber(patterns []Pattern) (*Scrubber, error) {
	d, err := loadDetectors()
	if err != nil {
		return nil, err
	}
	s := &Scrubber{detectors: d}
	seen := map[string]bool{RuleURLPassword: true}
	for _, id := range d.gitleaksRules {
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
		re, err := compileBackend(p.Regex)
		if err != nil {
			return nil, fmt.Errorf("scrub pattern %q: %w", name, err)
		}
		seen[name] = true
		ur := userRule{id: name, re: re}
		ur.lit, ur.fold = requiredLiteral(p.Regex)
		s.user = append(s.user, ur)
	}
	for id := range seen {
		s.rules = append(s.rules, id)
	}
	sort.Strings(s.rules)
	return s, nil
}

// compileBackend compiles a person's regex with gitleaks' regexp backend.
// Go's parser checks it first, for a clear error: both backends take RE2
// syntax, and the backend's MustCompile panics.
func compileBackend(expr string) (re *gre.Regexp, err error) {
	if _, err := regexp.Compile(expr); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("invalid regex: %v", r)
		}
	}()
	return gre.MustCompile(expr), nil
}

// requiredLiteral finds the longest literal that every match of expr
// contains: a literal that is a direct part of the top-level sequence, or
// of a group in it. A case-insensitive literal only counts if it is ASCII
// with no 'k' or 's' (Unicode folds those to the Kelvin sign and the long s).
func requiredLiteral(expr string) (lit string, fold bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false
	}
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpCapture:
			walk(re.Sub[0])
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				walk(sub)
			}
		case syntax.OpLiteral:
			l, f := string(re.Rune), re.Flags&syntax.FoldCase != 0
			if f {
				if strings.ContainsAny(strings.ToLower(l), "ks") || !isASCII(l) {
					return
				}
				l = strings.ToLower(l)
			}
			if len(l) > len(lit) {
				lit, fold = l, f
			}
		}
	}
	walk(re)
	return lit, fold
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Rules lists every rule id the scrubber applies, sorted.
func (s *Scrubber) Rules() []string { return slices.Clone(s.rules) }

// HasRule says whether id is one of the scrubber's rules.
func (s *Scrubber) HasRule(id string) bool {
	_, ok := slices.BinarySearch(s.rules, id)
	return ok
}

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
	ms := gitleaksMatches(nil, s.main, text, 0)
	for _, w := range s.genericWindows(text) {
		// A cheap pass over the tight window, then, if it finds anything,
		// gitleaks' own pass over whole lines, whose allow-lists read lines.
		if len(s.generic.DetectString(text[w[0]:w[1]])) > 0 {
			lo, hi := lineWindow(text, w[0], w[1])
			ms = gitleaksMatches(ms, s.generic, text[lo:hi], lo)
		}
	}
	ms = appendURLPasswords(ms, text)
	var low string
	for _, r := range s.user {
		if r.lit != "" {
			if r.fold && low == "" {
				low = asciiLower(text)
			}
			if r.fold && !strings.Contains(low, r.lit) || !r.fold && !strings.Contains(text, r.lit) {
				continue
			}
		}
		for _, loc := range r.re.FindAllStringSubmatchIndex(text, -1) {
			if st, en := secretGroup(loc); st >= 0 && st < en {
				ms = append(ms, Match{Rule: r.id, Start: st, End: en})
			}
		}
	}
	if len(ms) == 0 {
		return nil
	}
	return mergeMatches(dropRedacted(text, ms))
}

// gitleaksMatches runs det over text, which starts at offset off of the
// scanned string, and appends the secrets' spans.
func gitleaksMatches(ms []Match, det *detect.Detector, text string, off int) []Match {
	var nl []int // newline offsets, computed on the first finding
	haveNL := false
	for _, f := range det.DetectString(text) {
		if f.Secret == "" || isFalsePositive(f) {
			continue
		}
		if !haveNL {
			nl, haveNL = newlines(text), true
		}
		n := len(ms)
		ms = appendSpans(ms, text, f.RuleID, f.Secret, approxStart(nl, f), len(f.Match))
		for i := n; i < len(ms); i++ {
			ms[i].Start += off
			ms[i].End += off
		}
	}
	return ms
}

// genericWindows are the spans of text the generic rule can match in. Its
// regex is
//
//	[\w.-]{0,50}? KEYWORD [ \t\w.-]{0,20} [\s'"]{0,3} OPERATOR [\x60'"\s=]{0,5} SECRET END
//
// where SECRET holds no space. So a match starts at most 50 bytes before a
// keyword, has an operator within 24 bytes after it, and ends at the first
// space 31 bytes past the keyword's end or later. A keyword with no operator
// in reach is skipped; the others get a window from 64 bytes before them to
// just past that space.
func (s *Scrubber) genericWindows(text string) [][2]int {
	low := asciiLower(text)
	var ws [][2]int
	for _, k := range s.genericKeywords {
		for off := 0; ; {
			i := strings.Index(low[off:], k)
			if i < 0 {
				break
			}
			p := off + i
			off = p + len(k)
			if !operatorFollows(text, off) {
				continue
			}
			hi := min(len(text), off+48)
			for hi < len(text) && !isRegexpSpace(text[hi]) {
				hi++
			}
			if hi < len(text) {
				hi++ // the space ends any secret, so the window ends after one
			}
			ws = append(ws, [2]int{max(0, p-64), hi})
		}
	}
	if len(ws) == 0 {
		return nil
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i][0] < ws[j][0] })
	out := ws[:1]
	for _, w := range ws[1:] {
		if last := &out[len(out)-1]; w[0] <= last[1] {
			last[1] = max(last[1], w[1])
			continue
		}
		out = append(out, w)
	}
	return out
}

// operatorFollows reports whether the generic rule's operator (= > : | ? ,)
// can follow a keyword ending at i: up to 20 bytes of [ \t\w.-] and 3 of
// [\s'"] may sit between them.
func operatorFollows(text string, i int) bool {
	for n := 0; n <= 24 && i+n < len(text); n++ {
		c := text[i+n]
		switch {
		case c == '=' || c == '>' || c == ':' || c == '|' || c == '?' || c == ',':
			return true
		case isRegexpSpace(c) || c == '\'' || c == '"' || c == '.' || c == '-' || c == '_' ||
			'0' <= c && c <= '9' || isASCIILetter(c):
		default:
			return false
		}
	}
	return false
}

// lineReach bounds how far a window stretches to take in whole lines.
const lineReach = 512

// lineWindow widens [lo,hi) to whole lines, unless a line runs on for
// more than lineReach bytes.
func lineWindow(text string, lo, hi int) (int, int) {
	if ls := strings.LastIndexByte(text[:lo], '\n') + 1; lo-ls <= lineReach {
		lo = ls
	}
	if hi > 0 && text[hi-1] != '\n' {
		if le := strings.IndexByte(text[hi:], '\n'); le >= 0 && le < lineReach {
			hi += le + 1
		} else if le < 0 && len(text)-hi < lineReach {
			hi = len(text)
		}
	}
	return lo, hi
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

// appendURLPasswords finds passwords in URLs (scheme://user:PASSWORD@host)
// by hand: a regex without a literal prefix would try every position of the
// text, and this rule runs on all of it.
func appendURLPasswords(ms []Match, text string) []Match {
	for off := 0; ; {
		i := strings.Index(text[off:], "://")
		if i < 0 {
			return ms
		}
		p := off + i
		off = p + 3
		// The scheme: a letter, then letters, digits, '+', '.', '-'.
		j := p
		for j > 0 && p-j < 32 && isSchemeChar(text[j-1]) {
			j--
		}
		if p-j < 2 || !isASCIILetter(text[j]) {
			continue
		}
		// The userinfo runs to '@'; a '/', space or quote first means none.
		end := off
		for end < len(text) && end-off < 400 && !isURLStop(text[end]) {
			end++
		}
		if end >= len(text) || text[end] != '@' || end+1 >= len(text) || isURLStop(text[end+1]) {
			continue
		}
		user, pass, ok := strings.Cut(text[off:end], ":")
		if !ok || user == "" || pass == "" || urlPasswordPlaceholder.MatchString(pass) {
			continue
		}
		st := off + len(user) + 1
		ms = append(ms, Match{Rule: RuleURLPassword, Start: st, End: end})
		off = end
	}
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func isSchemeChar(c byte) bool {
	return isASCIILetter(c) || '0' <= c && c <= '9' || c == '+' || c == '.' || c == '-'
}

func isURLStop(c byte) bool {
	switch c {
	case '/', '@', ' ', '\t', '\n', '\r', '\f', '\'', '"', '<', '>', '`':
		return true
	}
	return false
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
			// As gitleaks does, a specific rule beats the generic one.
			if out[n-1].Rule == genericRule {
				out[n-1].Rule = m.Rule
			}
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
