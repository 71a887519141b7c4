package scrub

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"
)

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

// gitleaksMatches runs gitleaks' rules over text: every rule but the
// generic one over all of it, the generic one over its keyword windows.
func (d *detectors) gitleaksMatches(text string) []Match {
	ms := appendDetections(nil, d.main, text, 0)
	for _, w := range d.genericWindows(text) {
		// A cheap pass over the tight window, then, if it finds anything,
		// gitleaks' own pass over whole lines, whose allow-lists read lines.
		if len(d.generic.DetectString(text[w[0]:w[1]])) > 0 {
			lo, hi := lineWindow(text, w[0], w[1])
			n := len(ms)
			ms = appendDetections(ms, d.generic, text[lo:hi], lo)
			for i := n; i < len(ms); i++ {
				ms[i].End = cutPathTail(text, ms[i].Start, ms[i].End)
			}
		}
	}
	return ms
}

// cutPathTail ends a secret at text[start:end] before the folders of a path
// it runs into: in x-access-token:TOKEN/ireneo the generic rule's secret
// is TOKEN/ireneo, and the folder is not secret.
func cutPathTail(text string, start, end int) int {
	if k := strings.IndexByte(text[start:end], '/'); k >= minLinkedSecret && isPathTail(text[start+k:end]) {
		return start + k
	}
	return end
}

// spaceTrailingPunct returns text with the punctuation that ends a
// sentence after a long word ("my key is sk-ant-…AA, is that right?")
// turned into spaces. gitleaks' rules end a token at a space, a quote or
// ';' only, so they miss a key followed by a comma or a full stop, as keys
// in chat often are. The length and every other byte stay, so offsets
// found in the copy hold in text. Only words of 16 bytes or more are
// touched: a secret is never shorter, and "token, …" keeps its comma.
func spaceTrailingPunct(text string) string {
	var b []byte
	for i := 0; i < len(text); {
		k := strings.IndexAny(text[i:], trailingPunct)
		if k < 0 {
			break
		}
		p := i + k
		// The run of punctuation from p must reach a space or the end.
		j := p
		for j < len(text) && isTrailingPunct(text[j]) {
			j++
		}
		i = j
		if j < len(text) && !isRegexpSpace(text[j]) || p < 16 || strings.ContainsAny(text[p-16:p], " \t\n\r\f") {
			continue
		}
		if b == nil {
			b = []byte(text)
		}
		for k := p; k < j; k++ {
			b[k] = ' '
		}
	}
	if b == nil {
		return text
	}
	return string(b)
}

const trailingPunct = ",.!?)]}"

func isTrailingPunct(c byte) bool {
	switch c {
	case ',', '.', '!', '?', ')', ']', '}':
		return true
	}
	return false
}

// appendDetections runs det over text, which starts at offset off of the
// scanned string, and appends the secrets' spans.
func appendDetections(ms []Match, det *detect.Detector, text string, off int) []Match {
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
func (d *detectors) genericWindows(text string) [][2]int {
	low := asciiLower(text)
	var ws [][2]int
	for _, k := range d.genericKeywords {
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

// The in-code allow-list. gitleaks' generic-api-key rule fires on any
// high-entropy word after "key:", "token =" and the like, so in
// conversations it flags identifiers that are not secrets:
//   - a UUID ("request key: 3f2b8c1e-…"): ids, not credentials;
//   - a git object id (40 hex) or a sha256 digest (64 hex), as in
//     "key commit: 9fceb02…" or "key: 0d17b565…";
//   - base64 image data ("image_token: iVBORw0KGgo…", a data: URL);
//   - a documentation placeholder ("api_key: YOUR_API_KEY", see
//     isPlaceholder).
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
	if f.RuleID == "curl-auth-user" {
		// user:password, where the password is a placeholder
		// (curl -u admin:your_api_token).
		_, pw, _ := strings.Cut(f.Secret, ":")
		return isPlaceholder(pw)
	}
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
	if isPlaceholder(sec) {
		return true
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
