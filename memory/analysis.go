package memory

import (
	"strings"
	"unicode"

	"github.com/ireneo-app/ireneo/funes"
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

// queryPlan is a recall query taken apart.
type queryPlan struct {
	terms []string // content words searched in the body and title
	all   []string // every content word, before pruning by cost
	// stops are the stopwords taken out of the query: too common to search
	// by, they still tell apart turns that match its content words alike.
	stops  []string
	ids    []string // normalised identifiers
	recent bool     // the query asks for the latest state of something
	// speaker is the role whose turns the question is about: RoleUser for
	// "what did I say", RoleAssistant for "what did you suggest"; "" if
	// neither.
	speaker string
}

// planQuery cuts the query to MaxQueryRunes, takes out identifiers, and
// drops stopwords and question words unless nothing would be left. The query
// is only ever searched as text: every term is quoted when it reaches FTS5.
func planQuery(q string, dropStop bool) queryPlan {
	if rs := []rune(q); len(rs) > MaxQueryRunes {
		q = string(rs[:MaxQueryRunes])
	}
	var p queryPlan
	p.ids = identifiers(q)
	seen := map[string]bool{}
	var all []string
	for _, w := range words(q) {
		if seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if len([]rune(w)) < 2 && !unicode.IsDigit([]rune(w)[0]) {
			if dropStop {
				p.stops = append(p.stops, w) // "I" says whose words are asked about
			}
			continue
		}
		if recencyWords[w] {
			p.recent = true
			if dropStop {
				continue
			}
		}
		if dropStop && stopwords[w] {
			p.stops = append(p.stops, w)
			continue
		}
		p.terms = append(p.terms, w)
	}
	if len(p.terms) == 0 && len(p.ids) == 0 {
		p.terms, p.stops = all, nil
	}
	p.all = append([]string(nil), p.terms...)
	p.speaker = speakerOf(q)
	return p
}

// speakerOf tells whose words a question asks about, from how it says it:
// the person's own ("what did I say", "I mentioned", "my …") or the
// assistant's ("what did you suggest", "your advice"). A question about
// both, or neither, gets "".
func speakerOf(q string) string {
	ws := words(q)
	var user, asst bool
	for i, w := range ws {
		next := ""
		if i+1 < len(ws) {
			next = ws[i+1]
		}
		prev := ""
		if i > 0 {
			prev = ws[i-1]
		}
		switch {
		case (w == "i" && userVerbs[next]) || (userVerbs[w] && prev == "i"):
			user = true
		case w == "you" && asstVerbs[next], asstVerbs[w] && prev == "you",
			w == "your" && asstNouns[next]:
			asst = true
		}
	}
	switch {
	case user && !asst:
		return funes.RoleUser
	case asst && !user:
		return funes.RoleAssistant
	}
	return ""
}

// userVerbs and asstVerbs are what a person or the assistant did with
// words; asstNouns what the assistant gave.
var (
	userVerbs = setOf(`said say told tell mentioned mention asked ask wrote write shared share described describe
		explained explain wanted want planned plan decided decide chose choose picked prefer preferred like liked
		noted note stated state called named set listed`)
	asstVerbs = setOf(`suggest suggested recommend recommended propose proposed advise advised say said tell told
		mention mentioned give gave provide provided write wrote list listed explain explained call called offer
		offered outline outlined come came share shared`)
	asstNouns = setOf(`suggestion suggestions advice recommendation recommendations proposal idea ideas answer
		explanation plan tips list`)
)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// recallExpr renders the plan as recall's FTS5 MATCH expression: the words
// searched in the chunk, its title and, when asked, its date; identifiers
// in their own column.
func (p queryPlan) recallExpr(useIDs, date bool) string {
	cols := "body title"
	if date {
		cols += " date"
	}
	var parts []string
	if len(p.terms) > 0 {
		q := make([]string, len(p.terms))
		for i, t := range p.terms {
			q[i] = quoteFTS(t)
		}
		parts = append(parts, "{"+cols+"} : ("+strings.Join(q, " OR ")+")")
	}
	if useIDs && len(p.ids) > 0 {
		q := make([]string, len(p.ids))
		for i, t := range p.ids {
			q[i] = quoteFTS(t)
		}
		parts = append(parts, "ids : ("+strings.Join(q, " OR ")+")")
	}
	return strings.Join(parts, " OR ")
}

// matchExpr renders the plan as an FTS5 MATCH expression.
func (p queryPlan) matchExpr(useIDs bool) string {
	var parts []string
	if len(p.terms) > 0 {
		q := make([]string, len(p.terms))
		for i, t := range p.terms {
			q[i] = quoteFTS(t)
		}
		parts = append(parts, "{body title} : ("+strings.Join(q, " OR ")+")")
	}
	if useIDs && len(p.ids) > 0 {
		q := make([]string, len(p.ids))
		for i, t := range p.ids {
			q[i] = quoteFTS(t)
		}
		parts = append(parts, "ids : ("+strings.Join(q, " OR ")+")")
	}
	return strings.Join(parts, " OR ")
}

func quoteFTS(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// recencyWords say the question wants the latest state of something.
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
