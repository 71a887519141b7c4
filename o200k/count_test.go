package o200k

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// tokenCases are shapes the hand split of plain ASCII must get right:
// contractions, capitals, digit runs, punctuation before words and line
// breaks, and every kind of run of white space.
var tokenCases = []string{
	"", "a", " ", "  ", "\n", "\t", "\r\n", " \n", "\n ", "  \n  \n\t x", "a  b", "a   b", "a \t\n b",
	"Hello, world!", "don't DON'T you're We'VE I'm they'll she'd it's IT'S 'Tis o'clock '", "x'", "x'l", "x're", "x'r",
	"HTTPServer XMLHttpRequest camelCase snake_case kebab-case ALLCAPS A B C aB Ab",
	"12 123 1234 12345 3.14159 1,000,000 v1.2.3 0x1F2e",
	"path/to/file.go:12:3 https://example.com/a?b=c&d=e#f //comment /* c */ a//b ./x ../../y",
	"func main() {\n\tfmt.Println(\"hi\")\n}\n\n\n", "if (a && b) || !c {\r\n\treturn;\r\n}",
	"....\n\n", "--\n", "-- /\n/", "?!\r\r\n", " ...", " .", "  .", "\t.", " 'quoted' \"double\"",
	"MT-4471 N-11 P-003 DR-512 3.4% lisbon", "ümlaut naïve café 東京 emoji 🎉 done", "a\x00b", "\v\f",
	"trailing spaces   ", "   leading", "mixed \t \t tabs\t\t", "end with newline\n", "x\n\n\ny",
	"```go\nx := 1\n```\n", "| a | b |\n|---|---|\n| 1 | 2 |\n", "$ ls -la ~/.config && echo $HOME",
	"sk-ABCdef123456ghiJKL789", "AKIAIOSFODNN7EXAMPLE", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	// Punctuation and symbols beyond ASCII, split by hand too: a context
	// block's separators, typographic quotes and dashes, arrows, currency,
	// emoji; a bad byte and a real U+FFFD; a mark after a symbol.
	"[1] 2026-10-08 09:14 UTC · chatgpt · \"Title\" · project: a, b\n", "cut here …", " …", "…\n/\n", "a…b", "··",
	"“quoted” ‘single’ «guillemets» — en–dash", "x → y ⇒ z ✓ ✗ ★", "€5 £3 ¥9 ©2026 ®", "🎉🎉 party 🎉\n", " 🎉", "\t—x",
	"bad \xff byte", "real \ufffd char", "·\u0301mark", "¹²³ superscripts", "don’t", "x\u00a0y",
}

func codecOnly(t testing.TB, s string) int {
	t.Helper()
	Count("x") // loads the codec
	return codecCount(s)
}

func TestCountTokensMatchesCodec(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if s == "" {
			return
		}
		if got, want := Count(s), codecOnly(t, s); got != want {
			t.Fatalf("Count(%q) = %d, the library counts %d", s, got, want)
		}
	}
	for _, s := range tokenCases {
		check(s)
		for _, t := range tokenCases { // pairs: what happens at a boundary
			check(s + t)
		}
	}
	// Real and realistic conversation text: every fixture in the repo and
	// under ../shared.
	n := 0
	for _, root := range []string{"../memory/testdata", "../importers/testdata", "../../shared/fixtures"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || n > 400 {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil || len(data) > 2<<20 || !utf8.Valid(data) {
				return nil
			}
			n++
			check(string(data))
			for _, line := range strings.SplitAfter(string(data), "\n") {
				check(line)
			}
			return nil
		})
	}
	t.Logf("%d files", n)
}

func FuzzCountTokens(f *testing.F) {
	for _, s := range tokenCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Count(s), codecOnly(t, s); s != "" && got != want {
			t.Fatalf("Count(%q) = %d, the library counts %d", s, got, want)
		}
	})
}

func BenchmarkCountTokens(b *testing.B) {
	text := strings.Repeat(strings.Join(tokenCases[:30], " "), 20)
	b.SetBytes(int64(len(text)))
	b.Run("codec", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			codecOnly(b, text)
		}
	})
	b.Run("Count", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Count(text)
		}
	})
}

// TestCountTokensMixedAlphabet strings together, at random, the characters
// whose classes the hand split tells apart, beyond ASCII too: every seam
// between two classes, many times over.
func TestCountTokensMixedAlphabet(t *testing.T) {
	alphabet := []string{"a", "Z", "q", "7", " ", "  ", "\t", "\n", "\r", "/", "'", "s", "'ll", ".", "-", "_", "\"",
		"·", "…", "“", "”", "—", "→", "€", "🎉", "\ufffd", "é", "東", "\u0301", "²", "\u00a0", "\xff"}
	rng := rand.New(rand.NewPCG(19, 1))
	Count("x")
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		if s == "" {
			continue
		}
		if got, want := Count(s), codecCount(s); got != want {
			t.Fatalf("Count(%q) = %d, the library counts %d", s, got, want)
		}
	}
}
