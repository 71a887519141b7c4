package recall

import (
	"strings"
	"unicode"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/querywords"
)

// A hit says more than the question. A past turn that holds nothing but the
// query's own words (above all the person's earlier copy of the same
// question, asked again in another session) matches the query better than
// anything that answers it: short, every word, newer. It answers nothing,
// so it ranks below what does (Tuning.Echo), and copies of one text across
// conversations are shown once, with their count (Hit.Copies).

// queryStems are the index terms of every word of the query, the words
// the plan searches and the stopwords alike.
func queryStems(q string) map[string]bool {
	out := map[string]bool{}
	for _, w := range querywords.Words(q) {
		out[engine.Term(w)] = true
		out[w] = true
	}
	return out
}

// echoes reports whether a turn, by its stored preview, says nothing but
// the query's words: every word it holds is one of the query's (as the index
// would stem it), a stopword, or a single letter. A preview cut short
// ("…") is of a turn that says more.
func echoes(preview string, stems map[string]bool) bool {
	if preview == "" || strings.HasSuffix(preview, "…") {
		return false
	}
	held := false
	for _, w := range querywords.Words(preview) {
		rs := []rune(w)
		if stems[w] || stems[engine.Term(w)] {
			held = true
			continue
		}
		if len(rs) < 2 && !unicode.IsDigit(rs[0]) || querywords.IsStopword(w) || querywords.IsRecencyWord(w) {
			continue
		}
		return false
	}
	return held
}

// copyKey is a turn's text as compared for copies: its words, lowercased,
// one space apart; "" for a preview cut short, which is never a copy.
func copyKey(preview string) string {
	if preview == "" || strings.HasSuffix(preview, "…") {
		return ""
	}
	return strings.Join(querywords.Words(preview), " ")
}
