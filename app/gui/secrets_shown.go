package gui

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/settings"
)

// Secrets on screen. A conversation imported with --no-scrub, or one that
// holds a secret a rule added since finds, keeps the secret in the memory
// until Scrub redacts it. No screen shows it beyond its masked preview:
// every text the window shows from the memory (titles, snippets, passages,
// turns, tool calls) goes through the scrubber first. In a passage or a
// turn the masked preview is a link that shows the secret, and the screen
// says that Scrub would redact it; in one-line places (a title, a list
// row, a folded line) it stays masked.

// shownSecrets finds the secrets in texts the window shows, with the
// person's patterns, and remembers what it found by text: a background
// load finds them for what it is about to show (warm), so the UI goroutine
// only looks them up.
type shownSecrets struct {
	mu       sync.Mutex
	finder   redact.SecretFinder // nil until loaded
	loaded   chan struct{}       // closed once finder is set (or failed)
	patterns []settings.Pattern
	cache    map[string][]string // text → the secrets in it
	size     int                 // bytes of text cached
}

// secretCacheBytes bounds the text remembered; past it the cache starts over.
const secretCacheBytes = 64 << 20

func newShownSecrets() *shownSecrets {
	return &shownSecrets{loaded: make(chan struct{}), cache: map[string][]string{}}
}

// load builds the scrubber for patterns, off the UI goroutine (gitleaks'
// rules take a while the first time).
func (s *shownSecrets) load(patterns []settings.Pattern) {
	sc, err := scrubber.For(patterns)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finder, s.patterns = nil, patterns
	if err == nil {
		s.finder = sc
	}
	s.cache, s.size = map[string][]string{}, 0
	select {
	case <-s.loaded:
	default:
		close(s.loaded)
	}
}

// setPatterns reloads the scrubber when the person's patterns change.
func (u *ui) setSecretPatterns(patterns []settings.Pattern) {
	u.goBackground(func(context.Context) { u.secrets.load(patterns) })
}

// warm finds the secrets of texts ahead of showing them, waiting for the
// scrubber if it is still loading. Call it off the UI goroutine.
func (s *shownSecrets) warm(ctx context.Context, texts ...string) {
	select {
	case <-s.loaded:
	case <-ctx.Done():
		return
	}
	for _, t := range texts {
		if ctx.Err() != nil {
			return
		}
		s.values(t)
	}
}

// values are the secrets in text, longest first: what the scrubber finds
// and any key-shaped word it misses (as maskSecrets masks them). Before the
// scrubber has loaded, only the key-shaped words, and nothing is kept.
func (s *shownSecrets) values(text string) []string {
	if text == "" {
		return nil
	}
	s.mu.Lock()
	if v, ok := s.cache[text]; ok {
		s.mu.Unlock()
		return v
	}
	f := s.finder
	ready := false
	select {
	case <-s.loaded:
		ready = true
	default:
	}
	s.mu.Unlock()
	v := secretValues(f, text)
	if !ready {
		return v
	}
	s.mu.Lock()
	if s.size+len(text) > secretCacheBytes {
		s.cache, s.size = map[string][]string{}, 0
	}
	s.cache[text] = v
	s.size += len(text)
	s.mu.Unlock()
	return v
}

// secretValues are the distinct secrets f and the key-shape check find in
// text, longest first (so a secret that holds another is replaced whole).
func secretValues(f redact.SecretFinder, text string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(v string) {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if f != nil {
		f.FindSecrets(text, func(_ string, start, end int) {
			if 0 <= start && start < end && end <= len(text) {
				add(text[start:end])
			}
		})
	}
	found := len(out)
	for _, loc := range keyShaped.FindAllStringIndex(text, -1) {
		w := keyValue(text[loc[0]:loc[1]])
		if !keyLike(w) || holdsAny(w, out[:found]) {
			continue // a secret the scrubber found inside it is masked alone
		}
		add(w)
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// keyValue is a key-shaped word less a variable's name before it
// (OPENAI_API_KEY=…): the name stays readable, the value is masked.
func keyValue(w string) string {
	i := strings.IndexByte(w, '=')
	if i <= 0 || i == len(w)-1 || w[i+1] == '=' {
		return w
	}
	for _, r := range w[:i] {
		if !(r == '_' || 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9') {
			return w
		}
	}
	return w[i+1:]
}

// holdsAny reports whether w contains one of vs.
func holdsAny(w string, vs []string) bool {
	for _, v := range vs {
		if strings.Contains(w, v) {
			return true
		}
	}
	return false
}

// mask is text with its secrets shown as their masked previews, for the
// one-line places: titles, list rows, folded lines.
func (s *shownSecrets) mask(text string) string {
	return maskValues(text, s.values(text))
}

// maskValues replaces each of values (longest first) in text with its
// masked preview.
func maskValues(text string, values []string) string {
	for _, v := range values {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, shownMask(v))
		}
	}
	return text
}

// shownMask is a secret's masked preview on screen: its first and last two
// characters, or dots for a short one (a password), of which they would
// show half.
func shownMask(v string) string {
	if m := redact.MaskSecret(v); m != "…" {
		return m
	}
	return "••••••"
}

// secretMarks are a view's secrets and which of them the person chose to
// see: a masked preview is a link that shows its secret, and shows the
// preview again.
type secretMarks struct {
	values   []string        // longest first
	revealed map[string]bool // shared by the view's blocks
	toggle   func(v string)  // shows or hides v, and lays the view out again
}

// maskSegs splits the text segments of segs at each secret, which becomes
// a link showing its masked preview (or itself, once revealed).
func (sm *secretMarks) maskSegs(segs []widget.RichTextSegment) []widget.RichTextSegment {
	if sm == nil || len(sm.values) == 0 {
		return segs
	}
	return eachTextSeg(segs, sm.splitText)
}

// eachTextSeg replaces every text segment of segs, those inside paragraphs
// and lists too, with what fn makes of it; other segments stay.
func eachTextSeg(segs []widget.RichTextSegment, fn func(*widget.TextSegment) []widget.RichTextSegment) []widget.RichTextSegment {
	var out []widget.RichTextSegment
	for _, seg := range segs {
		switch v := seg.(type) {
		case *widget.TextSegment:
			out = append(out, fn(v)...)
		case *widget.ParagraphSegment:
			out = append(out, &widget.ParagraphSegment{Texts: eachTextSeg(v.Texts, fn)})
		case *widget.ListSegment:
			l := &widget.ListSegment{Items: eachTextSeg(v.Items, fn), Ordered: v.Ordered}
			l.SetStartNumber(v.StartNumber())
			out = append(out, l)
		default:
			out = append(out, seg)
		}
	}
	return out
}

// splitText cuts one text segment at its secrets. The pieces flow inline;
// the last keeps the segment's line ending, as markText does.
func (sm *secretMarks) splitText(seg *widget.TextSegment) []widget.RichTextSegment {
	type hit struct {
		start int
		v     string
	}
	var hits []hit
	taken := func(a, b int) bool {
		for _, h := range hits {
			if a < h.start+len(h.v) && h.start < b {
				return true
			}
		}
		return false
	}
	for _, v := range sm.values {
		for off := 0; ; {
			i := strings.Index(seg.Text[off:], v)
			if i < 0 {
				break
			}
			if !taken(off+i, off+i+len(v)) {
				hits = append(hits, hit{off + i, v})
			}
			off += i + len(v)
		}
	}
	if len(hits) == 0 {
		return []widget.RichTextSegment{seg}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].start < hits[j].start })
	inline := seg.Style
	inline.Inline = true
	var out []widget.RichTextSegment
	last := 0
	for _, h := range hits {
		if h.start > last {
			out = append(out, &widget.TextSegment{Text: seg.Text[last:h.start], Style: inline})
		}
		out = append(out, sm.link(h.v))
		last = h.start + len(h.v)
	}
	rest := &widget.TextSegment{Text: seg.Text[last:], Style: seg.Style}
	if rest.Text != "" || !seg.Style.Inline {
		out = append(out, rest) // it carries the segment's line ending
	}
	return out
}

// secretURL marks a link as a secret's, not an address to open.
var secretURL = &url.URL{Scheme: "ireneo", Opaque: "secret"}

// link is a secret's masked preview, or the secret once revealed; tapping
// it switches between the two.
func (sm *secretMarks) link(v string) widget.RichTextSegment {
	text := shownMask(v)
	if sm.revealed[v] {
		text = v
	}
	return &widget.HyperlinkSegment{Text: text, URL: secretURL, OnTapped: func() {
		if sm.toggle != nil {
			sm.toggle(v)
		}
	}}
}

// scrubNote is what a screen says where it masks secrets.
func scrubNote(n int) string {
	if n == 1 {
		return "1 secret here is masked; Scrub would redact it. Click it to show it."
	}
	return fmt.Sprintf("%d secrets here are masked; Scrub would redact them. Click one to show it.", n)
}
