package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The tokenizer is FTS5's "porter unicode61 remove_diacritics 2" in Go:
// tokens are runs of letters, digits and private-use characters, lowercased,
// with diacritics folded away ("Café" → "cafe"), then Porter-stemmed. It is
// the one analysis both the index and queries go through.

// isTokenRune reports whether r belongs inside a token; combining marks do
// too, so a decomposed "é" stays in its word and is folded with it.
func isTokenRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r) || unicode.Is(unicode.Mn, r)
}

// isMark reports whether r is a combining mark (a diacritic).
func isMark(r rune) bool { return unicode.Is(unicode.Mn, r) }

// fold lowercases a token and removes its diacritics.
func fold(tok string) string {
	ascii := true
	for i := 0; i < len(tok); i++ {
		if tok[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(tok)
	}
	// A letter is decomposed only to drop its diacritics: one whose
	// decomposition holds no combining mark (a Hangul syllable, a
	// compatibility ideograph) stays whole, as FTS5 keeps it.
	var b strings.Builder
	for _, r := range tok {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if r >= utf8.RuneSelf {
			if d := norm.NFD.String(string(r)); strings.ContainsFunc(d, isMark) {
				for _, c := range d {
					if !isMark(c) {
						b.WriteRune(unicode.ToLower(c))
					}
				}
				continue
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Tokens calls fn with each folded, unstemmed token of text in order.
func Tokens(text string, fn func(tok string)) {
	start := -1
	for i, r := range text {
		if isTokenRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if t := fold(text[start:i]); t != "" {
				fn(t)
			}
			start = -1
		}
	}
	if start >= 0 {
		if t := fold(text[start:]); t != "" {
			fn(t)
		}
	}
}

// Analyze returns the index terms of text, in order, repeats kept.
func Analyze(text string) []string {
	var out []string
	Tokens(text, func(t string) { out = append(out, stem(t)) })
	return out
}

// Term is the index term of one word: its folded Porter stem, or "" when
// the word holds no token. A word of several tokens gives its first.
func Term(word string) string {
	out := ""
	Tokens(word, func(t string) {
		if out == "" {
			out = stem(t)
		}
	})
	return out
}

// Stem is the Porter stem of an already folded token.
func Stem(tok string) string { return stem(tok) }
