package memory

import (
	"strings"
	"unicode"
)

// MaxQueryRunes caps a recall query; longer input is cut, not refused.
const MaxQueryRunes = 500

// identifiers finds identifier-like tokens (MT-4471, N-11, P-003, DR-512,
// 3.4%, v1.2.1) and returns them normalised as single index terms, so that
// "MT-4471", "mt4471" and "MT 4471" typed later all meet the same term.
func identifiers(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, raw := range identCandidates(text) {
		n := normIdent(raw)
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// identCandidates splits text into runs of letters and digits joined by
// - _ . / : and an optional trailing %, keeping only runs with a digit and
// something else (a letter, a separator or a percent sign).
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
		tok := string(rs[i:end])
		if isIdent(tok) {
			out = append(out, tok)
		}
		i = end
	}
	return out
}

func isAlnum(r rune) bool  { return unicode.IsLetter(r) || unicode.IsDigit(r) }
func isJoiner(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' || r == ':' }

func isIdent(tok string) bool {
	var digit, letter, other bool
	for _, r := range tok {
		switch {
		case unicode.IsDigit(r):
			digit = true
		case unicode.IsLetter(r):
			letter = true
		default:
			other = true
		}
	}
	if !digit || len(tok) > 40 {
		return false
	}
	return letter || other
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

// words splits text into lowercase runs of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isAlnum(r) })
}

// IsStopword reports whether a lowercase word is an English function word
// or question word (stopwords below). Recall's query plan leaves them out of
// the search as memory's own searches do.
func IsStopword(w string) bool { return stopwords[w] }

// IsRecencyWord reports whether a lowercase word asks for the latest state
// of something ("latest", "current", "now").
func IsRecencyWord(w string) bool { return recencyWords[w] }

// Identifiers finds identifier-like tokens (MT-4471, 3.4%, v1.2.1) and
// returns them normalised as the index stores them.
func Identifiers(text string) []string { return identifiers(text) }

// Words splits text into lowercase runs of letters and digits.
func Words(text string) []string { return words(text) }

// searchTerms are a query's terms for memory's own searches (the sessions
// list, the forget audit's probe): its content words and its identifiers.
// Recall plans its queries itself (package recall), on the same words.
type searchTerms struct {
	words []string // content words; every word when all are stopwords
	ids   []string // normalised identifiers
}

// querySearchTerms cuts the query to MaxQueryRunes, takes out identifiers,
// and drops one-letter words, stopwords and the words asking for the
// latest, unless nothing would be left.
func querySearchTerms(q string) searchTerms {
	if rs := []rune(q); len(rs) > MaxQueryRunes {
		q = string(rs[:MaxQueryRunes])
	}
	st := searchTerms{ids: identifiers(q)}
	seen := map[string]bool{}
	var all []string
	for _, w := range words(q) {
		if seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if len([]rune(w)) < 2 && !unicode.IsDigit([]rune(w)[0]) || recencyWords[w] || stopwords[w] {
			continue
		}
		st.words = append(st.words, w)
	}
	if len(st.words) == 0 && len(st.ids) == 0 {
		st.words = all
	}
	return st
}

// matchExpr renders the terms as an FTS5 MATCH expression.
func (st searchTerms) matchExpr() string {
	var parts []string
	if len(st.words) > 0 {
		q := make([]string, len(st.words))
		for i, t := range st.words {
			q[i] = quoteFTS(t)
		}
		parts = append(parts, "{body title} : ("+strings.Join(q, " OR ")+")")
	}
	if len(st.ids) > 0 {
		q := make([]string, len(st.ids))
		for i, t := range st.ids {
			q[i] = quoteFTS(t)
		}
		parts = append(parts, "ids : ("+strings.Join(q, " OR ")+")")
	}
	return strings.Join(parts, " OR ")
}

func quoteFTS(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// recencyWords say the question wants the latest state of something; they
// name nothing to search for.
var recencyWords = map[string]bool{
	"latest": true, "newest": true, "current": true, "currently": true, "recent": true,
	"recently": true, "lately": true, "nowadays": true, "now": true, "today": true, "updated": true,
}

// stopwords are English function words and question words: they carry no
// topic, and in a long question they drown the words that do.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
	before being below between both but by can could did do does doing down during each few for from further had has
	have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself
	no nor not now of off on once only or other our ours ourselves out over own same she should so some such than that
	the their theirs them themselves then there these they this those through to too under until up very was we were
	what when where which while who whom why will with would you your yours yourself yourselves ago also any anyone
	anything did didn doesn don get got let lets like may might must need ok okay please remind recall remember said
	say says tell told thing things us use used using want wanted way we'd what's whats who's whose yes yet ever
	earlier last time previously before again discussed discuss talked talk conversation conversations chat chats
	mentioned mention`) {
		m[w] = true
	}
	return m
}()
