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
	// The keyword stands alone, or ends a name: DB_PASSWORD, "password",
	// $PlainPassword, dbPass, PGPASSWORD.
	if p > 0 {
		if r, _ := utf8.DecodeLastRuneInString(low[:p]); isWordRune(r) && r != '_' && !nameEndsAt(text, p, k) {
			return 0, 0, false
		}
	}
	i := p + len(k)
	if i < len(low) {
		if r, _ := utf8.DecodeRuneInString(low[i:]); isWordRune(r) {
			return 0, 0, false // passwords, passed, passenger
		}
	}
	kEnd := i
	if p > 0 && text[p-1] == '<' && i < len(text) && text[i] == '>' {
		return xmlPasswordAt(text, i+1) // <Password>…</Password>
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
	case k == "pass" || k == "pw":
		return 0, 0, false
	case i < len(text) && text[i] == '(':
		// A call with a literal: set_password("…"), setPassword('…').
		if st, en := valueAt(text, i+1); en > st && en-st < len(text)-i && isQuoteRune(text, i+1) && passwordShaped(text[st:en]) {
			return st, en, true
		}
		return 0, 0, false
	default:
		if st, en, ok := passwordBesideKeyword(text, low, p, kEnd); ok {
			return st, en, true
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

// nameEndsAt reports that the keyword k at text[p:] ends a longer name
// at a case change, as variables are named: $PlainPassword, adminPwd,
// PGPASSWORD. ("compass" and "bypass" are words: the keyword is not
// capitalised there.)
func nameEndsAt(text string, p int, k string) bool {
	// "Pass" ends names that are not passwords' (OnePass, RenderPass).
	if k == "pass" || k == "pw" || p+len(k) > len(text) || !isASCIILetter(text[p]) || text[p] > 'Z' {
		return false
	}
	prev := text[p-1]
	switch {
	case 'a' <= prev && prev <= 'z' || isDigit(prev):
		return true // camelCase
	case 'A' <= prev && prev <= 'Z' && len(k) >= 6:
		// ALL CAPS: the keyword too, and the name is a variable's
		// (PGPASSWORD; a short keyword ends other names: OLDPWD).
		for j := p; j < p+len(k); j++ {
			if 'a' <= text[j] && text[j] <= 'z' {
				return false
			}
		}
		return true
	}
	return false
}

// passwordQualifiers may stand before a keyword whose value follows it
// with nothing between: "the generated password Snoppy23", "log in with
// password Hx8!k2mz". Elsewhere "password X" is as often a heading or a
// field's name as a password.
var passwordQualifiers = map[string]bool{
	"generated": true, "temporary": true, "temp": true, "new": true, "initial": true, "default": true,
	"random": true, "with": true, "using": true, "admin": true, "root": true,
}

// passwordBesideKeyword finds a value right after a keyword at p (whose
// end is at i) with only blanks between: a quoted one with no space in
// it ("the generated password "Snoppy23"", SQL's PASSWORD '…', -Password
// "…"), or an unquoted one after a flag (--password X) or a qualifier
// ("with password X").
func passwordBesideKeyword(text, low string, p, i int) (int, int, bool) {
	j := skipBlanks(text, i)
	if j == i || j >= len(text) {
		return 0, 0, false
	}
	st, en := valueAt(text, j)
	if en <= st || !passwordShaped(text[st:en]) {
		return 0, 0, false
	}
	if isQuoteRune(text, j) {
		return st, en, !strings.ContainsAny(text[st:en], " \t")
	}
	if isFlagName(text, p) || passwordQualifiers[wordBefore(low, p)] {
		return st, en, true
	}
	return 0, 0, false
}

// isQuoteRune reports an opening quote at text[i].
func isQuoteRune(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return valueQuotes[r] != 0
}

// isFlagName reports a keyword at p inside a command-line flag: --password,
// -Password, -AccountPassword.
func isFlagName(text string, p int) bool {
	s := p
	for s > 0 && (isTokenByte(text[s-1]) || text[s-1] == '_') {
		s--
	}
	return s > 0 && text[s-1] == '-' && (s == 1 || text[s-2] == ' ' || text[s-2] == '-' || text[s-2] == '\t')
}

// wordBefore is the word before p, skipping an article: "the generated
// password" gives "generated", "with the password" gives "with".
func wordBefore(low string, p int) string {
	for n := 0; n < 2; n++ {
		e := p
		for e > 0 && (low[e-1] == ' ' || low[e-1] == '\t' || low[e-1] == '*') {
			e--
		}
		if e == p && n == 0 && p > 0 {
			return "" // not a separate word
		}
		s := e
		for s > 0 && (isASCIILetter(low[s-1]) || low[s-1] == '-') {
			s--
		}
		w := low[s:e]
		if w != "the" && w != "a" && w != "an" && w != "this" && w != "that" {
			return w
		}
		p = s
	}
	return ""
}

// xmlPasswordAt is the value of a <Password> element whose content starts
// at i: its text, or the text of the <Value> inside it (Windows' unattend
// files).
func xmlPasswordAt(text string, i int) (int, int, bool) {
	i = skipSpaceNL(text, i)
	if low := asciiLower(text[i:min(len(text), i+7)]); low == "<value>" {
		i = skipSpaceNL(text, i+7)
	}
	e := strings.IndexByte(text[i:min(len(text), i+maxPasswordLen+1)], '<')
	if e <= 0 {
		return 0, 0, false
	}
	st, en := i, i+e
	for en > st && isRegexpSpace(text[en-1]) {
		en--
	}
	if en <= st || strings.ContainsAny(text[st:en], "\n\r") || !passwordShaped(text[st:en]) {
		return 0, 0, false
	}
	return st, en, true
}

func skipSpaceNL(text string, i int) int {
	for i < len(text) && isRegexpSpace(text[i]) {
		i++
	}
	return i
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
	hexLiteral  = regexp.MustCompile(`^0[xX][0-9a-fA-F]+$`) // a constant in code: PPPIOCSPASS = 0x40087447
	labelWordRe = regexp.MustCompile(`(?i)\b(?:password|passwort|passwd|passphrase|pwd|pass|pw)\b`)
	dottedName  = regexp.MustCompile(`^[A-Za-z_]\w*(?:\.\w+)+$`)
	emailLike   = regexp.MustCompile(`^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$`)
	// Validation rules, as in Laravel's 'password' => 'required|min:8'.
	ruleList = regexp.MustCompile(`^[A-Za-z_]+(?::[\w,]+)?(?:\|[A-Za-z_]+(?::[\w,]+)?)+$`)
)

// passwordShaped reports whether v looks like a password rather than a
// word, a placeholder, a path, a URL, an address or code.
func passwordShaped(v string) bool {
	if utf8.RuneCountInString(v) < 6 || isPlaceholder(v) {
		return false
	}
	if strings.ContainsAny(v, " \t") && mayHoldPasswordKeyword(v) && labelWordRe.MatchString(v) {
		return false // a label: "New password 2", "Wi-Fi password (guest)"
	}
	switch {
	case strings.ContainsAny(v, "([{") || strings.Contains(v, "://"),
		strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../"),
		strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") || strings.HasPrefix(v, "<") || strings.HasPrefix(v, "\\"),
		dottedName.MatchString(v), emailLike.MatchString(v), ruleList.MatchString(v), hexLiteral.MatchString(v):
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
		case r == '-' || r == '.' || r == '/' || r == ' ':
			// joiners in words, dates and versions, not a password's
			// symbol; a space alone makes a phrase ("Confirm password"),
			// not a passphrase
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
