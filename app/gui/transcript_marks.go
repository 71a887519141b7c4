package gui

import (
	"sort"
	"strings"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Words marked in a transcript: the query a conversation was opened from
// Search with (at word starts, as Search marks them), and the text of
// find-in-conversation (anywhere), whose current occurrence stands out.

type marker struct {
	terms []string // query words, lower case
	find  string   // find text, lower case; "" for none
	// cur is the find occurrence, counted in reading order from 0, to show
	// as the current one; -1 for none. seen counts occurrences marked.
	cur, seen int
	// secrets are masked before anything is marked, so no word of a
	// secret lights up and no mark cuts one in two.
	secrets *secretMarks
}

// span is a marked byte range of a text.
type span struct {
	start, end int
	find       bool // a find occurrence, not a query word
}

// masked is text with the marker's secrets masked, for one-line titles.
func (m *marker) masked(text string) string {
	if m == nil || m.secrets == nil {
		return text
	}
	return maskValues(text, m.secrets.values)
}

// spans finds the marked ranges of text, in order, never overlapping.
func (m *marker) spans(text string) []span {
	lower := strings.ToLower(text)
	// Lower case may change a text's length in some scripts: mark nothing
	// rather than cut a character in two.
	if len(lower) != len(text) {
		return nil
	}
	var out []span
	if m.find != "" {
		for i := 0; ; {
			j := strings.Index(lower[i:], m.find)
			if j < 0 {
				break
			}
			out = append(out, span{i + j, i + j + len(m.find), true})
			i += j + len(m.find)
		}
	}
	tm := newTermMatcher(m.terms)
	for i := 0; i < len(lower) && len(m.terms) > 0; {
		n := tm.at(lower, i)
		if n == 0 {
			i++
			continue
		}
		if !overlaps(out, i, i+n) {
			out = append(out, span{i, i + n, false})
		}
		i += n
	}
	sort.Slice(out, func(a, b int) bool { return out[a].start < out[b].start })
	return out
}

func overlaps(ss []span, start, end int) bool {
	for _, s := range ss {
		if s.find && start < s.end && s.start < end {
			return true
		}
	}
	return false
}

// mark returns segs with the marked words split out and styled. A nil
// marker, or one with nothing to mark, leaves them as they are.
func (m *marker) mark(segs []widget.RichTextSegment) []widget.RichTextSegment {
	if m == nil {
		return segs
	}
	segs = m.secrets.maskSegs(segs)
	if m.find == "" && len(m.terms) == 0 {
		return segs
	}
	return eachTextSeg(segs, m.markText)
}

// markText splits one text segment at its marked words. The pieces flow
// inline; the last keeps the segment's own line ending.
func (m *marker) markText(seg *widget.TextSegment) []widget.RichTextSegment {
	ss := m.spans(seg.Text)
	if len(ss) == 0 {
		return []widget.RichTextSegment{seg}
	}
	inline := seg.Style
	inline.Inline = true
	var out []widget.RichTextSegment
	last := 0
	for _, s := range ss {
		if s.start > last {
			out = append(out, &widget.TextSegment{Text: seg.Text[last:s.start], Style: inline})
		}
		hot := inline
		hot.TextStyle.Bold = true
		hot.ColorName = theme.ColorNamePrimary
		if s.find {
			if m.seen == m.cur {
				hot.ColorName = theme.ColorNameWarning
				hot.TextStyle.Underline = true
			}
			m.seen++
		}
		out = append(out, &widget.TextSegment{Text: seg.Text[s.start:s.end], Style: hot})
		last = s.end
	}
	if last < len(seg.Text) {
		out = append(out, &widget.TextSegment{Text: seg.Text[last:], Style: inline})
	}
	// The segment's line ending goes on its last piece.
	if ts := out[len(out)-1].(*widget.TextSegment); !seg.Style.Inline {
		ts.Style.Inline = false
	}
	return out
}

// countFind counts the occurrences of a lower-case find text in text.
func countFind(text, find string) int {
	if find == "" {
		return 0
	}
	return strings.Count(strings.ToLower(text), find)
}
