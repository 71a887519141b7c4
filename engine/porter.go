package engine

// The Porter stemmer as SQLite's FTS5 "porter" tokenizer applies it, so that
// stems stay those the FTS5 index of earlier releases made (and that memory's
// coverage stage compares by prefix). Tokens shorter than 3 or longer than 64
// bytes pass through, as in FTS5; only ASCII letters count as vowels.

const porterMaxToken = 64

func isVowel(c byte, yIsVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || (yIsVowel && c == 'y')
}

// gobbleVC skips one vowel run then one consonant run and returns the
// position after it, or 0 if there is no such VC.
func gobbleVC(z []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(z); i++ {
		cons = !isVowel(z[i], cons)
		if !cons {
			break
		}
	}
	for i++; i < len(z); i++ {
		cons = !isVowel(z[i], cons)
		if cons {
			return i + 1
		}
	}
	return 0
}

func mGt0(z []byte) bool { return gobbleVC(z, false) != 0 }

func mGt1(z []byte) bool {
	n := gobbleVC(z, false)
	return n != 0 && gobbleVC(z[n:], true) != 0
}

func mEq1(z []byte) bool {
	n := gobbleVC(z, false)
	return n != 0 && gobbleVC(z[n:], true) == 0
}

// ostar: the stem ends consonant-vowel-consonant, the last not w, x or y.
func ostar(z []byte) bool {
	if len(z) == 0 {
		return false
	}
	if c := z[len(z)-1]; c == 'w' || c == 'x' || c == 'y' {
		return false
	}
	mask := 0
	for _, c := range z {
		b := 0
		if !isVowel(c, mask&1 != 0) {
			b = 1
		}
		mask = mask<<1 + b
	}
	return mask&7 == 5
}

func hasVowel(z []byte) bool {
	for i, c := range z {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}

func hasSuffix(b []byte, s string) bool {
	return len(b) > len(s) && string(b[len(b)-len(s):]) == s
}

// rule is one suffix replacement of steps 2 to 4, taken when cond holds for
// the stem before the suffix.
type rule struct {
	suffix, repl string
	cond         func([]byte) bool
}

func mGt1ST(z []byte) bool {
	return mGt1(z) && len(z) > 0 && (z[len(z)-1] == 's' || z[len(z)-1] == 't')
}

// The rules of a step are grouped by the suffix's last-but-one letter, and
// within a group the first suffix that matches decides (as in FTS5).
var step2 = map[byte][]rule{
	'a': {{"ational", "ate", mGt0}, {"tional", "tion", mGt0}},
	'c': {{"enci", "ence", mGt0}, {"anci", "ance", mGt0}},
	'e': {{"izer", "ize", mGt0}},
	'g': {{"logi", "log", mGt0}},
	'l': {{"bli", "ble", mGt0}, {"alli", "al", mGt0}, {"entli", "ent", mGt0}, {"eli", "e", mGt0}, {"ousli", "ous", mGt0}},
	'o': {{"ization", "ize", mGt0}, {"ation", "ate", mGt0}, {"ator", "ate", mGt0}},
	's': {{"alism", "al", mGt0}, {"iveness", "ive", mGt0}, {"fulness", "ful", mGt0}, {"ousness", "ous", mGt0}},
	't': {{"aliti", "al", mGt0}, {"iviti", "ive", mGt0}, {"biliti", "ble", mGt0}},
}

var step3 = map[byte][]rule{
	'a': {{"ical", "ic", mGt0}},
	's': {{"ness", "", mGt0}},
	't': {{"icate", "ic", mGt0}, {"iciti", "ic", mGt0}},
	'u': {{"ful", "", mGt0}},
	'v': {{"ative", "", mGt0}},
	'z': {{"alize", "al", mGt0}},
}

var step4 = map[byte][]rule{
	'a': {{"al", "", mGt1}},
	'c': {{"ance", "", mGt1}, {"ence", "", mGt1}},
	'e': {{"er", "", mGt1}},
	'i': {{"ic", "", mGt1}},
	'l': {{"able", "", mGt1}, {"ible", "", mGt1}},
	'n': {{"ant", "", mGt1}, {"ement", "", mGt1}, {"ment", "", mGt1}, {"ent", "", mGt1}},
	'o': {{"ion", "", mGt1ST}, {"ou", "", mGt1}},
	's': {{"ism", "", mGt1}},
	't': {{"ate", "", mGt1}, {"iti", "", mGt1}},
	'u': {{"ous", "", mGt1}},
	'v': {{"ive", "", mGt1}},
	'z': {{"ize", "", mGt1}},
}

func applyStep(b []byte, rules map[byte][]rule) []byte {
	if len(b) < 2 {
		return b
	}
	for _, r := range rules[b[len(b)-2]] {
		if hasSuffix(b, r.suffix) {
			stem := b[:len(b)-len(r.suffix)]
			if r.cond(stem) {
				return append(stem, r.repl...)
			}
			return b
		}
	}
	return b
}

// stem returns the Porter stem of a lowercase token.
func stem(tok string) string {
	if len(tok) < 3 || len(tok) > porterMaxToken {
		return tok
	}
	var arr [porterMaxToken + 2]byte
	b := append(arr[:0], tok...)
	// Step 1a.
	if n := len(b); b[n-1] == 's' {
		switch {
		case b[n-2] == 'e':
			if (n > 4 && b[n-4] == 's' && b[n-3] == 's') || (n > 3 && b[n-3] == 'i') {
				b = b[:n-2]
			} else {
				b = b[:n-1]
			}
		case b[n-2] == 's':
		default:
			b = b[:n-1]
		}
	}
	// Step 1b.
	removed := false
	if n := len(b); n >= 2 {
		switch b[n-2] {
		case 'e':
			if hasSuffix(b, "eed") {
				if mGt0(b[:n-3]) {
					b = b[:n-1]
				}
			} else if hasSuffix(b, "ed") {
				if hasVowel(b[:n-2]) {
					b, removed = b[:n-2], true
				}
			}
		case 'n':
			if hasSuffix(b, "ing") && hasVowel(b[:n-3]) {
				b, removed = b[:n-3], true
			}
		}
	}
	if removed {
		switch {
		case hasSuffix(b, "at"), hasSuffix(b, "bl"), hasSuffix(b, "iz"):
			b = append(b, 'e')
		default:
			n := len(b)
			c := b[n-1]
			if n >= 2 && !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == b[n-2] {
				b = b[:n-1]
			} else if mEq1(b) && ostar(b) {
				b = append(b, 'e')
			}
		}
	}
	// Step 1c.
	if n := len(b); b[n-1] == 'y' && hasVowel(b[:n-1]) {
		b[n-1] = 'i'
	}
	b = applyStep(b, step2)
	b = applyStep(b, step3)
	b = applyStep(b, step4)
	// Step 5a.
	if n := len(b); b[n-1] == 'e' {
		if mGt1(b[:n-1]) || (mEq1(b[:n-1]) && !ostar(b[:n-1])) {
			b = b[:n-1]
		}
	}
	// Step 5b.
	if n := len(b); n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && mGt1(b[:n-1]) {
		b = b[:n-1]
	}
	if string(b) == tok {
		return tok
	}
	return string(b)
}
