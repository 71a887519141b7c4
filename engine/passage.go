package engine

import "strings"

// Passages: a body of more than PassageMin tokens is cut into passages of
// whole sentences (or code lines) packed up to PassageWords tokens, a
// sentence longer than that cut every PassageWords tokens; a paragraph
// ends the passage once it holds a quarter of that (so a passage rarely
// spans two of the turn's chunks, which are cut at paragraphs too). Each posting of
// such a body lists the passages holding its term, and the search scores a
// document's best passage as a document of its own: a fact in one sentence
// of a long reply is not buried by the reply's length.

// Span is a byte range of a text.
type Span struct{ Start, End int }

// bodyTokens cuts a body into its tokens, each with the passage it falls
// in (all 0 for a body too short to cut), and returns the passages' spans.
func bodyTokens(body string, fn func(tok string, passage int)) []Span {
	type tok struct {
		t          string
		start, end int
		brk        bool // a sentence ends before it
		para       bool // a paragraph does
	}
	var ts []tok
	prevEnd := 0
	scan(body, func(t string, start, end int) {
		gap := body[min(prevEnd, start):start]
		ts = append(ts, tok{t, start, end, len(ts) > 0 && sentenceBreak(gap), len(ts) > 0 && strings.Contains(gap, "\n\n")})
		prevEnd = end
	})
	if len(ts) <= PassageMin {
		for _, t := range ts {
			fn(t.t, 0)
		}
		return nil
	}
	var spans []Span
	p, n := 0, 0 // the passage being filled and its tokens
	for i := 0; i < len(ts); {
		// The sentence starting at i.
		j := i + 1
		for j < len(ts) && !ts[j].brk {
			j++
		}
		// A passage ends before a sentence that would overfill it, and at
		// a paragraph's end once it holds a quarter of its most.
		if n > 0 && n+j-i > PassageWords || ts[i].para && n >= PassageWords/4 {
			p, n = p+1, 0
		}
		for ; i < j; i++ {
			if n == PassageWords {
				p, n = p+1, 0
			}
			if p == len(spans) {
				spans = append(spans, Span{ts[i].start, ts[i].end})
			}
			spans[p].End = ts[i].end
			fn(ts[i].t, p)
			n++
		}
	}
	return spans
}

// sentenceBreak reports whether the text between two tokens ends a
// sentence: a line break, a CJK full stop, or . ! ? ; : before a space.
func sentenceBreak(gap string) bool {
	if strings.ContainsAny(gap, "\n。！？；") {
		return true
	}
	for i := 0; i+1 < len(gap); i++ {
		switch gap[i] {
		case '.', '!', '?', ';', ':':
			if c := gap[i+1]; c == ' ' || c == '\t' || c == '\r' {
				return true
			}
		}
	}
	return false
}

// Passages returns the byte spans of a body's passages, as the index cut
// them (nil for a body of PassageMin tokens or fewer): Hit.Passage numbers
// them, so a caller holding the text can show the passage that matched.
func Passages(body string) []Span {
	return bodyTokens(body, func(string, int) {})
}
