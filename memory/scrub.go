package memory

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/funes"
)

// SecretFinder finds secrets in text. Ireneo's is scrub.Scrubber, wired in
// app/: memory asks for this interface, in plain strings and ints, rather
// than importing the scrub package, so that memory stays the base layer
// that imports nothing of ours and scrub knows nothing of sessions, files
// or SQLite. Tests may pass a double; the real scrubber has tests here too.
type SecretFinder interface {
	// FindSecrets calls found for each secret in text, in order and not
	// overlapping: the id of the rule that found it and its byte span. It
	// may be called from several goroutines at once.
	FindSecrets(text string, found func(rule string, start, end int))
	// HasRule says whether rule is one of the finder's rule ids.
	HasRule(rule string) bool
	// RedactedText is what replaces a secret the rule found, such as
	// "[REDACTED:github-pat]"; the finder must not find it again.
	RedactedText(rule string) string
}

// secretSpan is one secret FindSecrets reported.
type secretSpan struct {
	rule       string
	start, end int
}

func findSecrets(f SecretFinder, text string) []secretSpan {
	var out []secretSpan
	f.FindSecrets(text, func(rule string, start, end int) {
		if 0 <= start && start < end && end <= len(text) {
			out = append(out, secretSpan{rule, start, end})
		}
	})
	return out
}

// redactSpans replaces each span (sorted, not overlapping) with the
// finder's placeholder.
func redactSpans(f SecretFinder, text string, spans []secretSpan) string {
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, s := range spans {
		if s.start < last {
			continue // overlapping: not FindSecrets' output; skip rather than panic
		}
		b.WriteString(text[last:s.start])
		b.WriteString(f.RedactedText(s.rule))
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// Where in a session a scanned text lives. A session's metadata fields
// have turn and block -1; a block's tool name is its own field.
const (
	FieldText     = ""          // a block's text
	FieldTitle    = "title"     // the session's title
	FieldWorkdir  = "workdir"   // the session's working directory
	FieldProject  = "project"   // the session's project
	FieldToolName = "tool_name" // a block's tool name
	// FieldProjectTag is one of the session's project tags in the catalog:
	// derived from the project at import, or the person's own.
	FieldProjectTag = "project_tag"
)

// textLoc is where in a session a text lives: the turn's index (-1 for the
// session's own fields), the block's index (-1 likewise) and the field.
type textLoc struct {
	turn, block int
	field       string
}

// eachText calls fn with every text of s a secret could hide in — the
// metadata fields, every block's text and tool name — and stores what fn
// returns in its place.
func eachText(s *funes.Session, fn func(loc textLoc, text string) string) {
	s.Title = fn(textLoc{-1, -1, FieldTitle}, s.Title)
	s.Workdir = fn(textLoc{-1, -1, FieldWorkdir}, s.Workdir)
	s.Project = fn(textLoc{-1, -1, FieldProject}, s.Project)
	for ti := range s.Turns {
		t := &s.Turns[ti]
		for bi := range t.Blocks {
			b := &t.Blocks[bi]
			b.Text = fn(textLoc{ti, bi, FieldText}, b.Text)
			b.ToolName = fn(textLoc{ti, bi, FieldToolName}, b.ToolName)
		}
	}
}

// RedactText replaces every secret f finds in text with f's placeholder.
func RedactText(f SecretFinder, text string) string {
	if f == nil || text == "" {
		return text
	}
	return redactSpans(f, text, findSecrets(f, text))
}

// Redactor returns the import hook (IngestOptions.Redact) that replaces
// every secret f finds in a session — its metadata fields included — with
// f's placeholder, in place, and counts redactions per rule. A nil f gives
// a nil hook: no scrubbing.
func Redactor(f SecretFinder) func(*funes.Session) map[string]int {
	if f == nil {
		return nil
	}
	return func(s *funes.Session) map[string]int { return RedactSession(f, s) }
}

// RedactSession replaces every secret f finds in s with f's placeholder, in
// place, and counts redactions per rule. A big session is scanned on all
// cores (the scan is most of an import's scrub cost and the import's reader
// waits for it); the result is the same as one text after another. A title
// cut inside a secret (importers title a session by its first words) loses
// what it kept of the secret too.
func RedactSession(f SecretFinder, s *funes.Session) map[string]int {
	if s == nil || f == nil {
		return nil
	}
	spans := scanSession(f, s)
	secrets := map[string]string{}
	i := 0
	eachText(s, func(_ textLoc, text string) string {
		if text != "" {
			for _, sp := range spans[i] {
				secrets[text[sp.start:sp.end]] = sp.rule
			}
			i++
		}
		return text
	})
	if s.Title != "" {
		spans[0] = withCutSecret(s.Title, spans[0], secrets)
	}
	var counts map[string]int
	i = 0
	eachText(s, func(_ textLoc, text string) string {
		if text == "" {
			return text
		}
		sp := spans[i]
		i++
		if len(sp) == 0 {
			return text
		}
		if counts == nil {
			counts = map[string]int{}
		}
		for _, x := range sp {
			counts[x.rule]++
		}
		return redactSpans(f, text, sp)
	})
	return counts
}

// minCutSecret is the shortest prefix of a secret a cut title must keep
// for it to be redacted: shorter ones match ordinary words too often.
const minCutSecret = 4

// withCutSecret adds to spans (a title's secrets, sorted) the prefix of one
// of secrets (secret → rule, found elsewhere in the session) that text
// keeps where it was cut short with "…": "… and secret wJalrXUtnFEMI…".
func withCutSecret(text string, spans []secretSpan, secrets map[string]string) []secretSpan {
	body, ok := strings.CutSuffix(text, "…")
	if !ok || len(secrets) == 0 {
		return spans
	}
	i := len(body)
	for i > 0 && !isSpaceByte(body[i-1]) {
		i--
	}
	if n := len(spans); n > 0 && spans[n-1].end > i {
		i = spans[n-1].end // the end is redacted already
	}
	best := secretSpan{start: len(body), end: len(body)}
	for sec, rule := range secrets {
		// The longest end of the last word that begins the secret.
		for k := i; len(body)-k >= minCutSecret && k < best.start; k++ {
			if len(sec) > len(body)-k && strings.HasPrefix(sec, body[k:]) {
				best = secretSpan{rule, k, len(body)}
				break
			}
		}
	}
	if best.start == best.end {
		return spans
	}
	return append(spans, best)
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// parallelScanBytes is the size of session worth scanning on more than one
// core. Gitleaks costs far more per text than a goroutine does, so even
// small sessions gain: 4 KiB took the 10k lifelike import from 65 s to
// 55-56 s on an idle 2-core machine (32 KiB left most sessions on one core).
const parallelScanBytes = 4 << 10

// scanSession finds the secrets of each non-empty text of s, in eachText's
// order, without changing s.
func scanSession(f SecretFinder, s *funes.Session) [][]secretSpan {
	var texts []string
	size := 0
	eachText(s, func(_ textLoc, text string) string {
		if text != "" {
			texts = append(texts, text)
			size += len(text)
		}
		return text
	})
	spans := make([][]secretSpan, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	if size < parallelScanBytes || workers < 2 {
		for i, t := range texts {
			spans[i] = findSecrets(f, t)
		}
		return spans
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(texts) {
					return
				}
				spans[i] = findSecrets(f, texts[i])
			}
		}()
	}
	wg.Wait()
	return spans
}

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

// MaskText is text with every secret f finds in it shown as MaskSecret
// shows it: what a screen, status line, notification or log may print of a
// text that may hold a secret (a title, a message, an error). A nil f
// masks nothing, so callers without a finder should not show the text.
func MaskText(f SecretFinder, text string) string {
	if f == nil || text == "" {
		return text
	}
	spans := findSecrets(f, text)
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, s := range spans {
		if s.start < last {
			continue // overlapping: not FindSecrets' output; skip rather than panic
		}
		b.WriteString(text[last:s.start])
		b.WriteString(MaskSecret(text[s.start:s.end]))
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// errNoFinder is returned when a scrub runs without a secret finder.
var errNoFinder = errors.New("scrub: no secret finder given")
