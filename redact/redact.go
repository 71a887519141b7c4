// Package redact replaces and masks the secrets a SecretFinder finds (Ireneo's
// is scrub.Scrubber) in a conversation's texts: every text of a session a
// secret could hide in (EachText, the Field names), a session's redaction at
// import (RedactSession, Redactor), a text's (RedactText), a title cut
// inside a secret (WithCutSecret), and what a screen or log may show of a
// secret (MaskSecret, MaskText). It knows nothing of files or SQLite and
// imports only funes and spans; package memscrub scrubs a stored memory
// with it.
package redact

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/spans"
)

// SecretFinder finds secrets in text. Ireneo's is scrub.Scrubber, wired in
// app/: this interface, in plain strings and ints, keeps scrub (detection)
// apart from what uses it. Tests may pass a double; the real scrubber has
// tests here too.
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

// Span is one secret FindSecrets reported: the rule and its byte span.
type Span struct {
	Rule       string
	Start, End int
}

// Find lists the secrets f finds in text, in order, dropping any span that
// is not inside text.
func Find(f SecretFinder, text string) []Span {
	var out []Span
	f.FindSecrets(text, func(rule string, start, end int) {
		if 0 <= start && start < end && end <= len(text) {
			out = append(out, Span{rule, start, end})
		}
	})
	return out
}

// Replace replaces each span (sorted, not overlapping) with the finder's
// placeholder; an overlapping span, not FindSecrets' output, is skipped
// rather than panicked on.
func Replace(f SecretFinder, text string, ss []Span) string {
	return replaceWith(text, ss, func(s Span) string { return f.RedactedText(s.Rule) })
}

// replaceWith replaces each span with what with makes of it.
func replaceWith(text string, ss []Span, with func(Span) string) string {
	if len(ss) == 0 {
		return text
	}
	edits := make([]spans.Edit, len(ss))
	for i, s := range ss {
		edits[i] = spans.Edit{Start: s.Start, End: s.End, With: with(s)}
	}
	return spans.Replace(text, edits)
}

// Where in a session a text lives. A session's metadata fields have turn
// and block -1; a block's tool name is its own field.
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

// Loc is where in a session a text lives: the turn's index (-1 for the
// session's own fields), the block's index (-1 likewise) and the field.
type Loc struct {
	Turn, Block int
	Field       string
}

// EachText calls fn with every text of s a secret could hide in — the
// metadata fields, every block's text and tool name — and stores what fn
// returns in its place.
func EachText(s *funes.Session, fn func(loc Loc, text string) string) {
	s.Title = fn(Loc{-1, -1, FieldTitle}, s.Title)
	s.Workdir = fn(Loc{-1, -1, FieldWorkdir}, s.Workdir)
	s.Project = fn(Loc{-1, -1, FieldProject}, s.Project)
	for ti := range s.Turns {
		t := &s.Turns[ti]
		for bi := range t.Blocks {
			b := &t.Blocks[bi]
			b.Text = fn(Loc{ti, bi, FieldText}, b.Text)
			b.ToolName = fn(Loc{ti, bi, FieldToolName}, b.ToolName)
		}
	}
}

// RedactText replaces every secret f finds in text with f's placeholder.
func RedactText(f SecretFinder, text string) string {
	if f == nil || text == "" {
		return text
	}
	return Replace(f, text, Find(f, text))
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
	found := scanSession(f, s)
	secrets := map[string]string{}
	i := 0
	EachText(s, func(_ Loc, text string) string {
		if text != "" {
			for _, sp := range found[i] {
				secrets[text[sp.Start:sp.End]] = sp.Rule
			}
			i++
		}
		return text
	})
	if s.Title != "" {
		found[0] = WithCutSecret(s.Title, found[0], secrets)
	}
	var counts map[string]int
	i = 0
	EachText(s, func(_ Loc, text string) string {
		if text == "" {
			return text
		}
		sp := found[i]
		i++
		if len(sp) == 0 {
			return text
		}
		if counts == nil {
			counts = map[string]int{}
		}
		for _, x := range sp {
			counts[x.Rule]++
		}
		return Replace(f, text, sp)
	})
	return counts
}

// minCutSecret is the shortest prefix of a secret a cut title must keep
// for it to be redacted: shorter ones match ordinary words too often.
const minCutSecret = 4

// WithCutSecret adds to spans (a title's secrets, sorted) the prefix of one
// of secrets (secret → rule, found elsewhere in the session) that text
// keeps where it was cut short with "…": "… and secret wJalrXUtnFEMI…".
func WithCutSecret(text string, spans []Span, secrets map[string]string) []Span {
	body, ok := strings.CutSuffix(text, "…")
	if !ok || len(secrets) == 0 {
		return spans
	}
	i := len(body)
	for i > 0 && !isSpaceByte(body[i-1]) {
		i--
	}
	if n := len(spans); n > 0 && spans[n-1].End > i {
		i = spans[n-1].End // the end is redacted already
	}
	best := Span{Start: len(body), End: len(body)}
	for sec, rule := range secrets {
		// The longest end of the last word that begins the secret.
		for k := i; len(body)-k >= minCutSecret && k < best.Start; k++ {
			if len(sec) > len(body)-k && strings.HasPrefix(sec, body[k:]) {
				best = Span{rule, k, len(body)}
				break
			}
		}
	}
	if best.Start == best.End {
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

// scanSession finds the secrets of each non-empty text of s, in EachText's
// order, without changing s.
func scanSession(f SecretFinder, s *funes.Session) [][]Span {
	var texts []string
	size := 0
	EachText(s, func(_ Loc, text string) string {
		if text != "" {
			texts = append(texts, text)
			size += len(text)
		}
		return text
	})
	found := make([][]Span, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	if size < parallelScanBytes || workers < 2 {
		for i, t := range texts {
			found[i] = Find(f, t)
		}
		return found
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
				found[i] = Find(f, texts[i])
			}
		}()
	}
	wg.Wait()
	return found
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
	return replaceWith(text, Find(f, text), func(s Span) string { return MaskSecret(text[s.Start:s.End]) })
}
