package indexdoc

import (
	"strings"
	"unicode/utf8"
)

// MaxChunkBytes bounds a chunk: long enough to keep a paragraph whole, short
// enough that one passage fits a small token budget.
const MaxChunkBytes = 1600

// SplitChunks cuts a block's text into chunks of at most MaxChunkBytes,
// preferring paragraph, then line, then sentence, then word boundaries.
func SplitChunks(text string) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	if len(text) <= MaxChunkBytes {
		return []string{text}
	}
	var out []string
	for len(text) > MaxChunkBytes {
		cut := BestCut(text, MaxChunkBytes)
		piece := strings.TrimSpace(text[:cut])
		if piece != "" {
			out = append(out, piece)
		}
		text = strings.TrimSpace(text[cut:])
	}
	if text != "" {
		out = append(out, text)
	}
	return out
}

// BestCut picks where to end a chunk of text within its first limit bytes.
func BestCut(text string, limit int) int {
	window := text[:limit]
	for _, sep := range []string{"\n\n", "\n", ". ", "? ", "! ", "; ", " "} {
		if i := strings.LastIndex(window, sep); i >= limit/3 {
			return i + len(sep)
		}
	}
	// No boundary: cut before the rune that straddles the limit.
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if cut == 0 {
		return limit
	}
	return cut
}
