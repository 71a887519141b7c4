// Package o200k counts text in o200k tokens, exactly, for every budget
// Ireneo keeps (the chunks' stored counts, recall's and the MCP answers'
// budgets). It is a leaf over the tiktoken library, with a hand split for
// plain text that its tests hold to the library's counts.
package o200k

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

var (
	codecOnce sync.Once
	codec     tokenizer.Codec
)

// Count counts s in o200k tokens, the vocabulary of current OpenAI
// models; Claude's counts are close enough for budgeting. The count is
// exact: budgets rely on it.
func Count(s string) int {
	if s == "" {
		return 0
	}
	codecOnce.Do(func() {
		c, err := tokenizer.Get(tokenizer.O200kBase)
		if err == nil {
			codec = c
		}
	})
	if codec == nil {
		// The vocabulary is embedded, so this is only a guard: about 4 bytes a token.
		return utf8.RuneCountInString(s)/4 + 1
	}
	if n, ok := countByHand(s); ok {
		return n
	}
	return codecCount(s)
}

func codecCount(s string) int {
	n, err := codec.Count(s)
	if err != nil {
		return utf8.RuneCountInString(s)/4 + 1
	}
	return n
}

// o200k splits text into pieces with a regular expression before byte-pair
// encoding each piece on its own, and the library's backtracking regexp is
// most of its cost. For text of printable ASCII, tabs, line breaks and
// punctuation or symbols beyond ASCII (most of what a conversation holds,
// and every entry of a context block: its " · " and " …") countByHand
// splits the same way by hand and counts each piece once, from a cache: the
// words of a history repeat. Anything else goes to the library whole.
// TestCountTokensMatchesCodec and FuzzCountTokens hold the two to the same
// counts.
//
// The expression, in the order its alternatives are tried:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	\p{N}{1,3}
//	 ?[^\s\p{L}\p{N}]+[\r\n/]*
//	\s*[\r\n]+
//	\s+(?!\S)
//	\s+
//
// In ASCII the upper and lower letter classes are disjoint, which takes
// all backtracking out of the first two. A punctuation mark or symbol
// beyond ASCII (Unicode P or S: no letter, number, mark or white space)
// falls in exactly the classes ASCII punctuation does, so it is split as
// one; its pieces go to the library, as every piece does, through the cache.

// Byte classes, for ASCII; a punctuation mark or symbol beyond it is
// charOther too.
const (
	charOther = iota // printable punctuation and symbols
	charUpper
	charLower
	charDigit
	charSpace   // ' ' and '\t'
	charNewline // '\r' and '\n'
	charNo      // anything countByHand leaves to the library
)

var asciiClass = func() (t [128]uint8) {
	for i := range t {
		c := byte(i)
		switch {
		case c >= 'A' && c <= 'Z':
			t[i] = charUpper
		case c >= 'a' && c <= 'z':
			t[i] = charLower
		case c >= '0' && c <= '9':
			t[i] = charDigit
		case c == ' ' || c == '\t':
			t[i] = charSpace
		case c == '\r' || c == '\n':
			t[i] = charNewline
		case c > ' ' && c < 0x7f:
			t[i] = charOther
		default:
			t[i] = charNo
		}
	}
	return t
}()

// classAt is the class of the character at i and its width in bytes.
func classAt(s string, i int) (uint8, int) {
	if s[i] < utf8.RuneSelf {
		return asciiClass[s[i]], 1
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && w == 1 {
		return charNo, 1 // the library reads a bad byte as U+FFFD, which counts apart
	}
	if unicode.In(r, unicode.P, unicode.S) {
		return charOther, w
	}
	return charNo, w
}

// countByHand counts s if it holds only characters it can split (see
// classAt); ok is false otherwise.
func countByHand(s string) (n int, ok bool) {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			if asciiClass[s[i]] == charNo {
				return 0, false
			}
			i++
			continue
		}
		c, w := classAt(s, i)
		if c == charNo {
			return 0, false
		}
		i += w
	}
	for i := 0; i < len(s); {
		j := pieceEnd(s, i)
		n += pieceTokens(s[i:j])
		i = j
	}
	return n, true
}

func isSpaceClass(c uint8) bool { return c == charSpace || c == charNewline }

// pieceEnd is where the piece that starts at i ends, in text countByHand
// takes. Letters, digits and white space are ASCII here.
func pieceEnd(s string, i int) int {
	c, w := classAt(s, i)
	// Alternatives 1 and 2: an optional prefix (anything but a line
	// break, letter or digit), capitals, then small letters; at least one
	// letter; then a contraction.
	j := i
	if c == charOther || c == charSpace {
		j += w
	}
	k := j
	for k < len(s) && s[k] < utf8.RuneSelf && asciiClass[s[k]] == charUpper {
		k++
	}
	for k < len(s) && s[k] < utf8.RuneSelf && asciiClass[s[k]] == charLower {
		k++
	}
	if k > j {
		return contractionEnd(s, k)
	}
	switch c {
	case charDigit: // \p{N}{1,3}
		k := i + 1
		for k < len(s) && k < i+3 && s[k] < utf8.RuneSelf && asciiClass[s[k]] == charDigit {
			k++
		}
		return k
	case charOther, charSpace: // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
		k := i
		if s[i] == ' ' {
			k++
		}
		if k < len(s) {
			if c, _ := classAt(s, k); c == charOther {
				for k < len(s) {
					c, w := classAt(s, k)
					if c != charOther {
						break
					}
					k += w
				}
				for k < len(s) && (s[k] == '\r' || s[k] == '\n' || s[k] == '/') {
					k++
				}
				return k
			}
		}
	}
	// c is white space here. Its run ends at e.
	e := i
	for e < len(s) && s[e] < utf8.RuneSelf && isSpaceClass(asciiClass[s[e]]) {
		e++
	}
	// `\s*[\r\n]+`: up to the run's last line break.
	for k := e - 1; k >= i; k-- {
		if asciiClass[s[k]] == charNewline {
			return k + 1
		}
	}
	// `\s+(?!\S)`: the run but its last character, unless the run ends the
	// text; `\s+`: a lone white space before a non-space.
	if e == len(s) || e-i == 1 {
		return e
	}
	return e - 1
}

// contractionEnd takes `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` at k.
func contractionEnd(s string, k int) int {
	if k+1 >= len(s) || s[k] != '\'' {
		return k
	}
	switch s[k+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return k + 2
	case 'r', 'v':
		if k+2 < len(s) && s[k+2]|0x20 == 'e' {
			return k + 3
		}
	case 'l':
		if k+2 < len(s) && s[k+2]|0x20 == 'l' {
			return k + 3
		}
	}
	return k
}

// pieceCache holds the token count of pieces already counted. It is
// emptied when full, which bounds it at a few MB.
var pieceCache = struct {
	sync.RWMutex
	m map[string]int32
}{m: map[string]int32{}}

const pieceCacheMax = 1 << 17

// pieceTokens counts one piece of the split: the library splits a piece
// into itself, so its count of the piece alone is the piece's.
func pieceTokens(p string) int {
	if len(p) == 1 {
		return 1 // every byte is a token of its own
	}
	pieceCache.RLock()
	n, ok := pieceCache.m[p]
	pieceCache.RUnlock()
	if ok {
		return int(n)
	}
	c := codecCount(p)
	if len(p) <= 64 { // long pieces (hashes, rules of dashes) rarely repeat
		pieceCache.Lock()
		if len(pieceCache.m) >= pieceCacheMax {
			clear(pieceCache.m)
		}
		pieceCache.m[strings.Clone(p)] = int32(c) // not a slice of the whole text
		pieceCache.Unlock()
	}
	return c
}
