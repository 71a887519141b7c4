package querywords

import (
	"strings"
	"unicode"
)

// Terms are a query's terms for the searches that are not recall (the
// conversation list's words, the forget audit's probe): its content words
// and its identifiers. Recall plans its queries itself (package recall), on
// the same words.
type Terms struct {
	Words []string // content words; every word when all are stopwords
	IDs   []string // normalised identifiers
}

// SearchTerms cuts the query to MaxQueryRunes, takes out identifiers,
// and drops one-letter words, stopwords and the words asking for the
// latest, unless nothing would be left.
func SearchTerms(q string) Terms {
	if rs := []rune(q); len(rs) > MaxQueryRunes {
		q = string(rs[:MaxQueryRunes])
	}
	st := Terms{IDs: Identifiers(q)}
	seen := map[string]bool{}
	var all []string
	for _, w := range Words(q) {
		if seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if len([]rune(w)) < 2 && !unicode.IsDigit([]rune(w)[0]) || IsRecencyWord(w) || IsStopword(w) {
			continue
		}
		st.Words = append(st.Words, w)
	}
	if len(st.Words) == 0 && len(st.IDs) == 0 {
		st.Words = all
	}
	return st
}

// WithoutIDParts drops the words that are parts of an identifier the query
// typed ("N-11" is the identifier n11 and the words n and 11): a list of
// the conversations holding N-11 is not every conversation holding 11.
func (st Terms) WithoutIDParts(q string) Terms {
	parts := map[string]bool{}
	for _, f := range strings.Fields(q) {
		if len(Identifiers(f)) > 0 {
			for _, w := range Words(f) {
				parts[w] = true
			}
		}
	}
	var words []string
	for _, w := range st.Words {
		if !parts[w] {
			words = append(words, w)
		}
	}
	if len(words) == 0 && len(st.IDs) == 0 {
		return st
	}
	st.Words = words
	return st
}

// MatchExpr renders the terms as an FTS5 MATCH expression.
func (st Terms) MatchExpr() string {
	var parts []string
	if len(st.Words) > 0 {
		q := make([]string, len(st.Words))
		for i, t := range st.Words {
			q[i] = quoteFTS(t)
		}
		parts = append(parts, "{body title} : ("+strings.Join(q, " OR ")+")")
	}
	if len(st.IDs) > 0 {
		q := make([]string, len(st.IDs))
		for i, t := range st.IDs {
			q[i] = quoteFTS(t)
		}
		parts = append(parts, "ids : ("+strings.Join(q, " OR ")+")")
	}
	return strings.Join(parts, " OR ")
}

func quoteFTS(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
