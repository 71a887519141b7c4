package memory

import (
	"strings"
	"unicode"

	"github.com/ireneo-app/ireneo/engine"
)

// MaxQueryRunes caps a recall query; longer input is cut, not refused.
const MaxQueryRunes = 500

// identifiers finds identifier-like tokens (MT-4471, N-11, P-003, DR-512,
// 3.4%, v1.2.1, foo_bar.go) and returns them normalised as single index
// terms, so that "MT-4471" and "mt4471" typed later meet the same term.
// The engine's analysis decides, so index and query agree.
func identifiers(text string) []string { return engine.Identifiers(text) }

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// words splits text into lowercase runs of letters and digits. A run of
// a script written without spaces (Han, Kana, Hangul, Thai) becomes the
// character bigrams the engine indexes it as (engine.SegmentWord), its
// combining marks kept with it, so each word is one index term.
func words(text string) []string {
	ws := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isAlnum(r) && !unicode.Is(unicode.Mn, r) })
	for i := 0; i < len(ws); i++ {
		if seg := engine.SegmentWord(ws[i]); seg != nil {
			ws = append(ws[:i], append(seg, ws[i+1:]...)...)
			i += len(seg) - 1
		}
	}
	return ws
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
