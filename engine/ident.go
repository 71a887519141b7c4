package engine

import (
	"strings"
	"unicode"
)

// Identifiers finds the identifiers in text (MT-4471, N-11, CVE-2024-3094,
// 3.4%, v1.2.3, foo_bar.go, ERR_CONN_RESET, fmt.Println) and returns each
// once, in order, normalised to one index term: lowercased letters and
// digits, a dot between digits written "x" and a percent sign "pct", so
// "MT-4471", "mt4471" and "MT_4471" meet the same term and 3.4% and 34%
// do not. The body indexes an identifier's parts ("mt", "4471"); the
// identifiers field holds it whole, so a document holding it exactly beats
// one holding only its parts. Index and queries both find them here.
//
// An identifier is a run of letters and digits joined by single - _ . / :
// (and an optional trailing %) that holds a digit and something else, or,
// without a digit, holds an underscore, or a dot, slash or colon between
// parts of two letters or more (so e.g. and U.S. are not identifiers, nor
// well-known). Runs of a segmented script are never identifiers, nor runs
// longer than 40 bytes.
func Identifiers(text string) []string {
	var out []string
	var seen map[string]bool
	for _, raw := range identCandidates(text) {
		n := normIdent(raw)
		if n == "" || seen[n] {
			continue
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

func isAlnum(r rune) bool  { return unicode.IsLetter(r) || unicode.IsDigit(r) }
func isJoiner(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' || r == ':' }

// identCandidates splits text into runs of letters and digits joined by
// single joiners, with an optional trailing %, keeping the identifiers.
func identCandidates(text string) []string {
	var out []string
	rs := []rune(text)
	for i := 0; i < len(rs); {
		if !isAlnum(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) {
			if isAlnum(rs[j]) {
				j++
				continue
			}
			if isJoiner(rs[j]) && j+1 < len(rs) && isAlnum(rs[j+1]) {
				j++
				continue
			}
			break
		}
		end := j
		if end < len(rs) && rs[end] == '%' {
			end++
		}
		if tok := string(rs[i:end]); isIdent(tok) {
			out = append(out, tok)
		}
		i = end
	}
	return out
}

func isIdent(tok string) bool {
	if len(tok) > 40 || hasSegmented(tok) {
		return false
	}
	var digit, letter, other, under, dotted bool
	short := false // a part of one letter
	partLen := 0
	end := func() {
		if partLen == 1 {
			short = true
		}
		partLen = 0
	}
	for _, r := range tok {
		switch {
		case unicode.IsDigit(r):
			digit = true
			partLen++
		case unicode.IsLetter(r):
			letter = true
			partLen++
		default:
			other = true
			end()
			switch r {
			case '_':
				under = true
			case '.', '/', ':':
				dotted = true
			}
		}
	}
	end()
	if digit {
		return letter || other
	}
	return under || dotted && !short
}

// normIdent lowercases an identifier and keeps letters and digits; a dot
// between digits becomes "x" and a percent sign "pct", so 3.4% and 34% differ.
func normIdent(tok string) string {
	rs := []rune(strings.ToLower(tok))
	var b strings.Builder
	for i, r := range rs {
		switch {
		case isAlnum(r):
			b.WriteRune(r)
		case r == '.' && i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1]):
			b.WriteByte('x')
		case r == '%':
			b.WriteString("pct")
		}
	}
	return b.String()
}
