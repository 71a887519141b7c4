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
	for i := 0; i < len(s); {
		// ASCII bytes are tested and copied as bytes: unicode.IsSpace and
		// WriteRune per rune were a third of preview's instructions.
		c, w, sp := s[i], 1, false
		if c < utf8.RuneSelf {
			sp = asciiSpace[c]
		} else {
			var r rune
			r, w = utf8.DecodeRuneInString(s[i:])
			sp = unicode.IsSpace(r)
		}
		if sp {
			space = b.Len() > 0
			i += w
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
		if w == 1 {
			b.WriteByte(c) // an invalid byte as it was, as Fields keeps it
		} else {
			b.WriteString(s[i : i+w])
		}
		runes++
		i += w
	}
	return b.String()
}

// asciiSpace is unicode.IsSpace for the ASCII bytes.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

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
