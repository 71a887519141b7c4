package indexdoc

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// PreviewRunes bounds the turn preview kept for neighbours and lists.
const PreviewRunes = 320

// Preview is the preview lists show of a turn's text: its first
// PreviewRunes runes on one line, "…" when cut.
func Preview(text string) string { return preview(text, PreviewRunes) }

// preview is the first n runes of s on one line: its words joined by one
// space (strings.Fields), cut at the last space of the first n runes when
// that keeps more than half of them, with an ellipsis. One pass that stops
// after n runes: recall cuts one for every candidate it folds or weighs as
// an echo (0.2 of its 1.3 CPU-ms there went to splitting and rejoining).
func preview(s string, n int) string {
	var b strings.Builder
	runes, space := 0, false
	for i, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			if runes == n {
				return cutPreview(b.String())
			}
			b.WriteByte(' ')
			runes++
			space = false
		}
		if runes == n {
			return cutPreview(b.String())
		}
		if b.Len() == 0 {
			b.Grow(min(len(s)-i, 4*n))
		}
		if r == utf8.RuneError {
			_, w := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+w]) // an invalid byte as it was, as Fields keeps it
		} else {
			b.WriteRune(r)
		}
		runes++
	}
	return b.String()
}

// cutPreview ends a preview of more runes than it holds.
func cutPreview(out string) string {
	if !utf8.ValidString(out) {
		out = string([]rune(out)) // as the cut of a []rune did: each invalid byte U+FFFD
	}
	if cut := strings.LastIndexByte(out, ' '); cut > len(out)/2 {
		out = out[:cut]
	}
	return out + "…"
}
