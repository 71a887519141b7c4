package scrub

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Passwords given to a command rather than named by a keyword: the
// PowerShell that makes a local user (ConvertTo-SecureString "…"), a
// client's short flag (mysql -p'…', sshpass -p …, docker login -p …,
// redis-cli -a …), SQL's IDENTIFIED BY '…', Windows' net user NAME PASS
// and chpasswd's user:password. The command says the value is a password,
// so a literal counts unless it is a placeholder or a variable; an
// unquoted word must still have a password's shape.

// RuleCommandPassword finds a password given to a command.
const RuleCommandPassword = "command-password"

var (
	// netUserRe is "net user NAME VALUE", NAME bare or quoted.
	netUserRe = regexp.MustCompile(`(?i)\bnet user (?:"[^"\n]+"|\S+) ([^\s/*"][^\s"]*|"[^"\n]+")`)
	// chpasswdRe is echo "user:VALUE" | chpasswd.
	chpasswdRe = regexp.MustCompile(`\becho\s+(['"]?)[\w.-]+:([^\s'"]+)['"]?\s*\|\s*(?:sudo\s+)?chpasswd\b`)
)

// shortFlagTools take a password with a short flag: the tools, the flag,
// and whether the value may be joined to it (-pSecret) or follow it
// unquoted (-p Secret; mysql reads that as a database name).
var shortFlagTools = []struct {
	tool           string
	flag           string
	joined, spaced bool
}{
	{"mysql", "-p", true, false}, {"mariadb", "-p", true, false}, {"mysqldump", "-p", true, false}, {"mysqladmin", "-p", true, false},
	{"sshpass", "-p", true, true}, {"docker login", "-p", false, true}, {"podman login", "-p", false, true},
	{"helm registry login", "-p", false, true}, {"redis-cli", "-a", false, true},
}

// appendCommandPasswords adds the passwords given to commands in text.
func appendCommandPasswords(ms []Match, text string) []Match {
	if !mayHoldCommandPassword(text) {
		return ms
	}
	low := asciiLower(text)
	for off := 0; ; {
		i := strings.Index(low[off:], "convertto-securestring")
		if i < 0 {
			break
		}
		p := off + i + len("convertto-securestring")
		off = p
		if st, en, ok := secureStringArg(text, low, p); ok {
			ms = append(ms, Match{Rule: RuleCommandPassword, Start: st, End: en})
		}
	}
	for off := 0; ; {
		i := strings.Index(low[off:], "identified ")
		if i < 0 {
			break
		}
		p := off + i + len("identified ")
		off = p
		// IDENTIFIED BY '…', IDENTIFIED WITH plugin BY '…'.
		j := skipBlanks(low, p)
		if strings.HasPrefix(low[j:], "with ") {
			_, k := wordAt(low, skipBlanks(low, j+5))
			j = skipBlanks(low, k)
		}
		if !strings.HasPrefix(low[j:], "by ") {
			continue
		}
		// SQL quotes strings with ' or ": "identified by `metric`" is prose.
		if j = skipBlanks(low, j+3); j < len(text) && (text[j] == '\'' || text[j] == '"') {
			if st, en := valueAt(text, j); en > st && passwordShaped(text[st:en]) {
				ms = append(ms, Match{Rule: RuleCommandPassword, Start: st, End: en})
			}
		}
	}
	ms = appendShortFlagPasswords(ms, text, low)
	if strings.Contains(low, "net user ") {
		for _, m := range netUserRe.FindAllStringSubmatchIndex(text, -1) {
			st, en := m[2], m[3]
			if text[st] == '"' {
				st, en = st+1, en-1
			}
			if en > st && passwordShaped(text[st:en]) {
				ms = append(ms, Match{Rule: RuleCommandPassword, Start: st, End: en})
			}
		}
	}
	if strings.Contains(text, "chpasswd") {
		for _, m := range chpasswdRe.FindAllStringSubmatchIndex(text, -1) {
			if st, en := m[4], m[5]; literalPassword(text[st:en]) {
				ms = append(ms, Match{Rule: RuleCommandPassword, Start: st, End: en})
			}
		}
	}
	return ms
}

// mayHoldCommandPassword is a quick test for the commands above.
func mayHoldCommandPassword(text string) bool {
	// Each string starts with a byte that is rare in prose, so the search
	// skips along quickly.
	for _, s := range []string{"mysql", "mariadb", "sshpass", "ker login", "man login", "try login", "redis-cli", "ecureS", "ecures", "ECURES", "dentified", "DENTIFIED", "net user", "NET USER", "Net user", "chpasswd"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// secureStringArg is the literal ConvertTo-SecureString is given, after
// the command at p: its first quoted argument, or -String's.
func secureStringArg(text, low string, p int) (int, int, bool) {
	i := p
	for n := 0; n < 6; n++ {
		i = skipBlanks(text, i)
		switch {
		case i >= len(text):
			return 0, 0, false
		case isQuoteRune(text, i):
			st, en := valueAt(text, i)
			return st, en, en > st && literalPassword(text[st:en])
		case text[i] == '-':
			_, j := wordAt(low, i+1) // a switch: -String, -AsPlainText, -Force
			if j == i+1 {
				return 0, 0, false
			}
			i = j
		default:
			return 0, 0, false // a variable or an expression: not a literal
		}
	}
	return 0, 0, false
}

// appendShortFlagPasswords finds the short-flag passwords on the lines
// that run a tool which takes one.
func appendShortFlagPasswords(ms []Match, text, low string) []Match {
	for _, t := range shortFlagTools {
		for off := 0; ; {
			k := strings.Index(low[off:], t.tool)
			if k < 0 {
				break
			}
			k += off
			off = k + len(t.tool)
			if k > 0 && isTokenByte(low[k-1]) {
				continue
			}
			le := strings.IndexByte(low[off:], '\n')
			if le < 0 {
				le = len(low)
			} else {
				le += off
			}
			for f := off; ; {
				j := strings.Index(low[f:le], " "+t.flag)
				if j < 0 {
					break
				}
				i := f + j + 1 + len(t.flag) // just past the flag
				f = i
				if st, en, ok := flagValue(text, i, t.joined, t.spaced); ok {
					ms = append(ms, Match{Rule: RuleCommandPassword, Start: st, End: en})
				}
			}
			off = le
		}
	}
	return ms
}

// flagValue is the value after a short flag ending at i: quoted (joined
// or after a space), joined bare, or after a space bare.
func flagValue(text string, i int, joined, spaced bool) (int, int, bool) {
	if i >= len(text) {
		return 0, 0, false
	}
	if isQuoteRune(text, i) {
		st, en := valueAt(text, i)
		return st, en, en > st && literalPassword(text[st:en])
	}
	if !isRegexpSpace(text[i]) {
		if !joined {
			return 0, 0, false
		}
		st, en := valueAt(text, i)
		return st, en, en > st && passwordShaped(text[st:en])
	}
	j := skipBlanks(text, i)
	if j >= len(text) || text[j] == '-' {
		return 0, 0, false
	}
	if isQuoteRune(text, j) {
		st, en := valueAt(text, j)
		return st, en, en > st && literalPassword(text[st:en])
	}
	if !spaced {
		return 0, 0, false
	}
	st, en := valueAt(text, j)
	return st, en, en > st && passwordShaped(text[st:en])
}

// literalPassword reports a quoted value that a command takes as a
// password: anything of four characters or more but a placeholder, a
// variable or an expression.
func literalPassword(v string) bool {
	if utf8.RuneCountInString(v) < 4 || isPlaceholder(v) || strings.ContainsAny(v, "\n\r") {
		return false
	}
	return !strings.HasPrefix(v, "$") && !strings.HasPrefix(v, "%") && !strings.Contains(v, "$(") && !strings.Contains(v, "${")
}
