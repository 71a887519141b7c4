package scrub

import "strings"

// appendURLPasswords finds passwords in URLs (scheme://user:PASSWORD@host)
// by hand: a regex without a literal prefix would try every position of the
// text, and this rule runs on all of it.
func appendURLPasswords(ms []Match, text string) []Match {
	for off := 0; ; {
		i := strings.Index(text[off:], "://")
		if i < 0 {
			return ms
		}
		p := off + i
		off = p + 3
		// The scheme: a letter, then letters, digits, '+', '.', '-'.
		j := p
		for j > 0 && p-j < 32 && isSchemeChar(text[j-1]) {
			j--
		}
		if p-j < 2 || !isASCIILetter(text[j]) {
			continue
		}
		// The userinfo runs to '@'; a '/', space or quote first means none.
		end := off
		for end < len(text) && end-off < 400 && !isURLStop(text[end]) {
			end++
		}
		if end >= len(text) || text[end] != '@' || end+1 >= len(text) || isURLStop(text[end+1]) {
			continue
		}
		user, pass, ok := strings.Cut(text[off:end], ":")
		if !ok || user == "" || pass == "" || isPlaceholder(pass) {
			continue
		}
		st := off + len(user) + 1
		ms = append(ms, Match{Rule: RuleURLPassword, Start: st, End: end})
		off = end
	}
}

func isSchemeChar(c byte) bool {
	return isASCIILetter(c) || '0' <= c && c <= '9' || c == '+' || c == '.' || c == '-'
}

func isURLStop(c byte) bool {
	switch c {
	case '/', '@', ' ', '\t', '\n', '\r', '\f', '\'', '"', '<', '>', '`':
		return true
	}
	return false
}
