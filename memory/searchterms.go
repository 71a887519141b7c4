package memory

import (
	"strings"
	"unicode"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/querywords"
)

// identifiers are the identifier-like tokens of text as the index stores
// them (querywords.Identifiers): the index and queries cut them alike.
func identifiers(text string) []string { return engine.Identifiers(text) }

// searchTerms are a query's terms for memory's own searches (the sessions
// list, the forget audit's probe): its content words and its identifiers.
// Recall plans its queries itself (package recall), on the same words.
type searchTerms struct {
	words []string // content words; every word when all are stopwords
	ids   []string // normalised identifiers
}

// querySearchTerms cuts the query to querywords.MaxQueryRunes, takes out identifiers,
// and drops one-letter words, stopwords and the words asking for the
// latest, unless nothing would be left.
func querySearchTerms(q string) searchTerms {
	if rs := []rune(q); len(rs) > querywords.MaxQueryRunes {
		q = string(rs[:querywords.MaxQueryRunes])
	}
	st := searchTerms{ids: identifiers(q)}
	seen := map[string]bool{}
	var all []string
	for _, w := range querywords.Words(q) {
		if seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if len([]rune(w)) < 2 && !unicode.IsDigit([]rune(w)[0]) || querywords.IsRecencyWord(w) || querywords.IsStopword(w) {
			continue
		}
		st.words = append(st.words, w)
	}
	if len(st.words) == 0 && len(st.ids) == 0 {
		st.words = all
	}
	return st
}

// withoutIDParts drops the words that are parts of an identifier the query
// typed ("N-11" is the identifier n11 and the words n and 11): a list of
// the conversations holding N-11 is not every conversation holding 11.
func (st searchTerms) withoutIDParts(q string) searchTerms {
	parts := map[string]bool{}
	for _, f := range strings.Fields(q) {
		if len(identifiers(f)) > 0 {
			for _, w := range querywords.Words(f) {
				parts[w] = true
			}
		}
	}
	var words []string
	for _, w := range st.words {
		if !parts[w] {
			words = append(words, w)
		}
	}
	if len(words) == 0 && len(st.ids) == 0 {
		return st
	}
	st.words = words
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
