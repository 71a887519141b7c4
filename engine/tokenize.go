package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The tokenizer is FTS5's "porter unicode61 remove_diacritics 2" in Go:
// tokens are runs of letters, digits and private-use characters, lowercased,
// with diacritics folded away ("Café" → "cafe"), then Porter-stemmed, with
// one departure: a run of a script written without spaces between words
// (Han, Kana, Hangul, Thai, …: Segmented) becomes its overlapping character
// bigrams, so "東京" finds "東京で旅行" (a lone character stays a token). It
// is the one analysis both the index and queries go through.

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
		if r == 'µ' {
			r = 'μ' // the micro sign case-folds to Greek mu, in FTS5 as in Unicode: "µs" and "μs" are one word
		}
		if r >= utf8.RuneSelf && r < 0x3000 { // as FTS5: not kana's voicing marks (で stays で)
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
	scan(text, func(tok string, _, _ int) { fn(tok) })
}

// scan calls fn with each token of text and the byte span of the run (or
// piece of a run) it comes from.
func scan(text string, fn func(tok string, start, end int)) {
	start := -1
	for i, r := range text {
		if isTokenRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			run(text[start:i], start, fn)
			start = -1
		}
	}
	if start >= 0 {
		run(text[start:], start, fn)
	}
}

// run emits the tokens of one run of token runes (at byte off in its
// text): itself folded, or, when it holds a segmented script, its pieces of
// other scripts folded and its segmented pieces as bigrams.
func run(r string, off int, fn func(tok string, start, end int)) {
	if !hasSegmented(r) {
		if t := fold(r); t != "" {
			fn(t, off, off+len(r))
		}
		return
	}
	start, seg := 0, false
	for i, c := range r {
		// A combining mark stays with the letter before it (Thai vowels
		// and tone marks): fold drops it afterwards.
		s := Segmented(c) || seg && isMark(c)
		if i > start && s != seg {
			piece(r[start:i], off+start, seg, fn)
			start = i
		}
		seg = s
	}
	piece(r[start:], off+start, seg, fn)
}

func piece(p string, off int, seg bool, fn func(tok string, start, end int)) {
	t := fold(p)
	if t == "" {
		return
	}
	if !seg {
		fn(t, off, off+len(p))
		return
	}
	var at []int // where each rune starts
	for i := range t {
		at = append(at, i)
	}
	if len(at) == 1 {
		fn(t, off, off+len(p))
		return
	}
	at = append(at, len(t))
	for k := 0; k+2 < len(at); k++ {
		fn(t[at[k]:at[k+2]], off, off+len(p))
	}
}

// Segmented reports whether r belongs to a script written without spaces
// between words, whose runs the engine indexes as character bigrams: Han
// (and its iteration mark), Hiragana, Katakana (and the prolonged sound
// mark), Hangul, Thai, Lao, Khmer and Myanmar. Highlighting matches such
// text anywhere, not only at a word's start.
func Segmented(r rune) bool {
	if r < 0x0e00 {
		return false
	}
	switch {
	case r >= 0x0e00 && r <= 0x0eff: // Thai, Lao
		return unicode.IsLetter(r) || isMark(r)
	case r >= 0x1000 && r <= 0x109f, r >= 0x1780 && r <= 0x17ff: // Myanmar, Khmer
		return unicode.IsLetter(r) || isMark(r)
	case r == 0x30fc || r == 0x3005: // ー, 々
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// hasSegmented reports whether s holds a rune of a segmented script.
func hasSegmented(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			for _, r := range s[i:] {
				if Segmented(r) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// SegmentWord splits a word (a run of letters and digits, as a query's
// words are cut) into the tokens the engine indexes for it when it holds a
// segmented script: the bigrams of those runs and the folded pieces of
// other scripts. It returns nil for a word without one, which is its own
// token.
func SegmentWord(word string) []string {
	if !hasSegmented(word) {
		return nil
	}
	var out []string
	Tokens(word, func(t string) { out = append(out, t) })
	return out
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
