package scrub

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// The password rule finds a password given in words, as people type it to
// an assistant: "my password is Hx8!k2mz", "pwd: Hx8!k2mz", "the password
// for the router is 'Hx8!k2mz'", "password = Hx8!k2mz", and the same in a
// few other languages ("mein Passwort ist …", "minha senha é …").
//
// Prose mentions passwords far more often than it gives one ("your
// password is stored hashed", "password: see the vault"), and code names
// them ("password = request.form['password']"). So a value counts only if
// it has a password's shape (letters with digits, or a symbol, or six or
// more digits), is not a word, a placeholder, a path, a URL, an address or
// a piece of code.

// passwordKeywords are the words that introduce a password, lowercase (the
// text is matched with ASCII letters lowered). "pass" and "pw" only count
// before ':' or '=' ("pass: …"), since they have other meanings.
var passwordKeywords = []string{
	"password", "passwort", "passwd", "passphrase", "passcode", "pwd", "pass", "pw",
	"contraseña", "contrasena", "senha", "mot de passe", "kennwort", "wachtwoord", "пароль", "Пароль",
}

// passwordLinks are the words between a keyword and its value: "is",
// "was", and their forms in the other languages.
var passwordLinks = map[string]bool{
	"is": true, "was": true, "are": true, "ist": true, "war": true, "est": true, "était": true,
	"es": true, "era": true, "é": true, "è": true, "er": true,
	"s": true, // "my password's …", after the apostrophe
}

// passwordFillers may sit between the link and the value: "is now …".
var passwordFillers = map[string]bool{
	"now": true, "still": true, "just": true, "currently": true, "actually": true, "simply": true,
	"literally": true, "also": true, "jetzt": true, "maintenant": true, "agora": true, "ahora": true,
}

// passwordScopeWords start a phrase between keyword and link: "password
// for the router is …".
var passwordScopeWords = map[string]bool{
	"for": true, "to": true, "of": true, "on": true, "at": true, "in": true,
	"für": true, "pour": true, "para": true, "de": true, "voor": true, "von": true,
}

// appendPasswords adds the passwords given in words in text.
func appendPasswords(ms []Match, text string) []Match {
	low := ""
	for _, k := range passwordKeywords {
		if low == "" {
			// Most texts hold none of the keywords; test the cheap way first.
			if !mayHoldPasswordKeyword(text) {
				return ms
			}
			low = asciiLower(text)
		}
		for off := 0; ; {
			i := strings.Index(low[off:], k)
			if i < 0 {
				break
			}
			p := off + i
			off = p + len(k)
			if st, en, ok := passwordAfter(text, low, p, k); ok {
				ms = append(ms, Match{Rule: RulePassword, Start: st, End: en})
				off = en
			}
		}
	}
	return ms
}

// mayHoldPasswordKeyword is a quick test that text holds some keyword.
func mayHoldPasswordKeyword(text string) bool {
	for _, s := range []string{"ass", "ASS", "wd", "WD", "pw", "PW", "Pw", "enha", "ENHA", "ontrase", "ONTRASE", "ennwort", "ENNWORT", "achtwoord", "ACHTWOORD", "ароль"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// passwordAfter finds the value a keyword at p introduces, if any.
func passwordAfter(text, low string, p int, k string) (int, int, bool) {
	// The keyword stands alone, or ends a name: DB_PASSWORD, "password".
	if p > 0 {
		if r, _ := utf8.DecodeLastRuneInString(low[:p]); isWordRune(r) && r != '_' {
			return 0, 0, false
		}
	}
	i := p + len(k)
	if i < len(low) {
		if r, _ := utf8.DecodeRuneInString(low[i:]); isWordRune(r) {
			return 0, 0, false // passwords, passed, passenger
		}
	}
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++ // a JSON or YAML key ("password": "…"), or "password's"
	} else if strings.HasPrefix(text[i:], "’") {
		i += len("’")
	}
	i = skipDecor(text, i)
	symbolic := false
	switch {
	case i < len(text) && (text[i] == ':' || text[i] == '='):
		symbolic = true
		for i < len(text) && (text[i] == ':' || text[i] == '=' || text[i] == '>') {
			i++
		}
	case strings.HasPrefix(text[i:], "->"):
		symbolic, i = true, i+2
	case strings.HasPrefix(text[i:], "→"):
		symbolic, i = true, i+len("→")
	default:
		if k == "pass" || k == "pw" {
			return 0, 0, false
		}
		j, ok := linkAfter(low, i)
		if !ok {
			return 0, 0, false
		}
		i = j
	}
	if (k == "pass" || k == "pw") && !symbolic {
		return 0, 0, false
	}
	i = skipDecor(text, i)
	// One filler word: "is now …".
	if w, j := wordAt(low, i); passwordFillers[w] {
		i = skipBlanks(text, j)
	} else if w == "set" || w == "changed" {
		if w2, j2 := wordAt(low, skipBlanks(text, j)); w2 == "to" {
			i = skipBlanks(text, j2)
		}
	}
	st, en := valueAt(text, i)
	if st >= en || !passwordShaped(text[st:en]) {
		return 0, 0, false
	}
	return st, en, true
}

// linkAfter reads "is"/"was" (or a scope phrase, then one) at i and returns
// where the value may start.
func linkAfter(low string, i int) (int, bool) {
	w, j := wordAt(low, i)
	if passwordScopeWords[w] {
		// Up to six words of scope, then the link: "for the admin panel is".
		for n := 0; n < 6; n++ {
			j = skipBlanks(low, j)
			if j < len(low) && low[j] == ':' {
				return j + 1, true
			}
			w, j = wordAt(low, j)
			if w == "" {
				return 0, false
			}
			if passwordLinks[w] {
				break
			}
			if n == 5 {
				return 0, false
			}
		}
	} else if !passwordLinks[w] {
		return 0, false
	}
	if j < len(low) && low[j] == ':' {
		j++
	}
	return j, true
}

// wordAt reads the word of letters at i.
func wordAt(low string, i int) (string, int) {
	j := i
	for j < len(low) {
		r, n := utf8.DecodeRuneInString(low[j:])
		if !isWordRune(r) || r == '_' {
			break
		}
		j += n
	}
	return low[i:j], j
}

// skipDecor skips blanks and Markdown emphasis: "**Password:** …".
func skipDecor(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '*') {
		i++
	}
	return i
}

func skipBlanks(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

// The quotes a value may sit in, opening to closing.
var valueQuotes = map[rune]rune{'"': '"', '\'': '\'', '`': '`', '“': '”', '‘': '’', '«': '»', '„': '“'}

// maxPasswordLen bounds a value: longer runs are not typed passwords.
const maxPasswordLen = 128

// valueAt is the span of the value at i: a quoted string, or a run of
// non-space characters without the punctuation that ends a sentence (but
// "!", which ends many passwords).
func valueAt(text string, i int) (int, int) {
	if i >= len(text) {
		return i, i
	}
	if r, n := utf8.DecodeRuneInString(text[i:]); valueQuotes[r] != 0 {
		closeQ := string(valueQuotes[r])
		st := i + n
		end := strings.Index(text[st:min(len(text), st+maxPasswordLen+4)], closeQ)
		if end <= 0 || strings.ContainsAny(text[st:st+end], "\n\r") {
			return i, i
		}
		return st, st + end
	}
	j := i
	for j < len(text) && !isRegexpSpace(text[j]) {
		j++
	}
	for j > i && strings.IndexByte(".,;:?)]}'\"`", text[j-1]) >= 0 {
		j--
	}
	if j-i > maxPasswordLen {
		return i, i
	}
	return i, j
}

var (
	dottedName = regexp.MustCompile(`^[A-Za-z_]\w*(?:\.\w+)+$`)
	emailLike  = regexp.MustCompile(`^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$`)
	// Validation rules, as in Laravel's 'password' => 'required|min:8'.
	ruleList = regexp.MustCompile(`^[A-Za-z_]+(?::[\w,]+)?(?:\|[A-Za-z_]+(?::[\w,]+)?)+$`)
)

// passwordShaped reports whether v looks like a password rather than a
// word, a placeholder, a path, a URL, an address or code.
func passwordShaped(v string) bool {
	if utf8.RuneCountInString(v) < 6 || isPlaceholder(v) {
		return false
	}
	switch {
	case strings.ContainsAny(v, "([{") || strings.Contains(v, "://"),
		strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../"),
		strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") || strings.HasPrefix(v, "<") || strings.HasPrefix(v, "\\"),
		dottedName.MatchString(v), emailLike.MatchString(v), ruleList.MatchString(v):
		return false
	}
	var letter, digit, symbol bool
	// A "!" at the end is the sentence's as often as the password's, so it
	// does not make a word a password: "the password is incorrect!".
	for _, r := range strings.TrimRight(v, "!") {
		switch {
		case '0' <= r && r <= '9':
			digit = true
		case isWordRune(r):
			letter = true
		case r == '-' || r == '.' || r == '/':
			// joiners in words, dates and versions, not a password's symbol
		default:
			symbol = true
		}
	}
	return letter && digit || symbol && (letter || digit) || digit && !letter && !symbol && isDigits(v)
}

func isDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// isWordRune is a letter, digit or '_' in any script.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || '0' <= r && r <= '9' || isASCIILetter(byte(r))
	}
	return r != utf8.RuneError && r > 0xbf && !isPunctRune(r)
}

// isPunctRune is the non-ASCII punctuation quotes and arrows use.
func isPunctRune(r rune) bool {
	switch r {
	case '“', '”', '‘', '’', '«', '»', '„', '→', '…', '—', '–', '\u00a0':
		return true
	}
	return false
}
