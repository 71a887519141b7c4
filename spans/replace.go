// Package spans rewrites a text by byte spans: each span sorted by where
// it starts is replaced, the bytes between them kept as they are. It is
// the one such loop for forget's erasure of quotes (package answer),
// scrub's redaction and the GUI's masks; a leaf.
package spans

import "strings"

// Edit replaces text[Start:End] with With.
type Edit struct {
	Start, End int
	With       string
}

// Replace applies edits, sorted by Start, to text. An edit that begins
// before the one before it ended, or that lies outside text, is skipped:
// callers merge overlapping spans as they mean them, and a bad span costs
// nothing rather than a panic.
func Replace(text string, edits []Edit) string {
	if len(edits) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, e := range edits {
		if e.Start < last || e.End < e.Start || e.End > len(text) {
			continue
		}
		b.WriteString(text[last:e.Start])
		b.WriteString(e.With)
		last = e.End
	}
	b.WriteString(text[last:])
	return b.String()
}
