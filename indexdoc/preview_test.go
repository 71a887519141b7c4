package indexdoc

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// previewByFields is preview as it was written first: split, join, cut the
// runes. preview must give the same string for every input.
func previewByFields(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)[:n]
	cut := strings.LastIndexByte(string(rs), ' ')
	out := string(rs)
	if cut > len(out)/2 {
		out = out[:cut]
	}
	return out + "…"
}

// TestPreviewAsFields: over strings of words, runs of every kind of space,
// multi-byte letters and invalid bytes, cut at every length around theirs,
// preview is what splitting and joining gave.
func TestPreviewAsFields(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	pieces := []string{"a", "word", "é", "東京", "\u00a0", " ", "  ", "\n\n", "\t", "\v", "\f", "\r", "\u0085", "\x85", "\u2003", "\uFFFD", "\xff", "\xe6\x9d", "x\xffy", "…", "🙂"}
	cut := 0
	for range 20000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		for _, n := range []int{0, 1, 2, 3, 5, 8, r.IntN(60), utf8.RuneCountInString(s), utf8.RuneCountInString(s) - 1} {
			if n < 0 {
				continue
			}
			got, want := preview(s, n), previewByFields(s, n)
			if got != want {
				t.Fatalf("preview(%q, %d) = %q, want %q", s, n, got, want)
			}
			if strings.HasSuffix(want, "…") {
				cut++
			}
		}
	}
	if cut < 1000 {
		t.Fatalf("only %d previews were cut: the cut is barely compared", cut)
	}
}

func BenchmarkPreview(b *testing.B) {
	s := strings.Repeat("the pump seal on line 4 was replaced   \n\n after the leak; ", 40)
	for b.Loop() {
		preview(s, PreviewRunes)
	}
}

func BenchmarkPreviewByFields(b *testing.B) {
	s := strings.Repeat("the pump seal on line 4 was replaced   \n\n after the leak; ", 40)
	for b.Loop() {
		previewByFields(s, PreviewRunes)
	}
}
