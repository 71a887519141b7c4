package querywords

import (
	"reflect"
	"strings"
	"testing"
)

// Table tests for the text analysis the index and the searches that are not
// recall share: identifiers, search terms and the MATCH expression.

func TestIdentifiersTable(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"ticket MT-4471 is open", []string{"mt4471"}},
		{"MT 4471 and mt4471", []string{"mt4471"}},
		{"rate 3.4% vs 34%", []string{"3x4pct", "34pct"}},
		{"v1.2.1 on N-11, P-003.", []string{"v1x2x1", "n11", "p003"}},
		{"path a/b9:c", []string{"ab9c"}},
		{"no ids here", nil},
		{"1999 alone", nil},
		{strings.Repeat("a1", 30), nil}, // longer than 40: not an identifier
	} {
		if got := Identifiers(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Identifiers(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSearchTermsTable(t *testing.T) {
	for _, c := range []struct {
		q     string
		words []string
		ids   []string
		expr  string
	}{
		{"which work order was raised for the leaking seal on pump P-003?",
			[]string{"work", "order", "raised", "leaking", "seal", "pump", "003"}, []string{"p003"},
			`{body title} : ("work" OR "order" OR "raised" OR "leaking" OR "seal" OR "pump" OR "003") OR ids : ("p003")`},
		{"what's the latest reject rate on line L-07", []string{"reject", "rate", "line", "07"}, []string{"l07"},
			`{body title} : ("reject" OR "rate" OR "line" OR "07") OR ids : ("l07")`},
		{"the of and", []string{"the", "of", "and"}, nil, `{body title} : ("the" OR "of" OR "and")`}, // nothing but stopwords: keep them
		{`say "hi" MT-1`, []string{"hi", "mt", "1"}, []string{"mt1"}, `{body title} : ("hi" OR "mt" OR "1") OR ids : ("mt1")`},
	} {
		st := SearchTerms(c.q)
		if !reflect.DeepEqual(st.Words, c.words) || !reflect.DeepEqual(st.IDs, c.ids) || st.MatchExpr() != c.expr {
			t.Errorf("SearchTerms(%q) = %q %q %s; want %q %q %s", c.q, st.Words, st.IDs, st.MatchExpr(), c.words, c.ids, c.expr)
		}
	}
	if st := SearchTerms(strings.Repeat("x", MaxQueryRunes+50)); len(st.Words) != 1 || len(st.Words[0]) != MaxQueryRunes {
		t.Errorf("long query not cut to %d runes: %d", MaxQueryRunes, len(st.Words[0]))
	}
	if got := (Terms{}).MatchExpr(); got != "" {
		t.Errorf("empty terms gave %q", got)
	}
}
