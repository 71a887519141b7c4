package memory

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// Table tests for query analysis: identifiers, the plan (content words,
// stopwords, the speaker a question is about) and the MATCH expression.

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
		if got := identifiers(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("identifiers(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPlanQueryTable(t *testing.T) {
	for _, c := range []struct {
		q       string
		terms   []string
		ids     []string
		recent  bool
		speaker string
	}{
		{"which work order was raised for the leaking seal on pump P-003?",
			[]string{"work", "order", "raised", "leaking", "seal", "pump", "003"}, []string{"p003"}, false, ""},
		{"what's the latest reject rate on line L-07", []string{"reject", "rate", "line", "07"}, []string{"l07"}, true, ""},
		{"the of and", []string{"the", "of", "and"}, nil, false, ""}, // nothing but stopwords: keep them
		{"what did I say about the sprint end date", []string{"sprint", "end", "date"}, nil, false, funes.RoleUser},
		{"what did you suggest for the kiln", []string{"suggest", "kiln"}, nil, false, funes.RoleAssistant},
		{"your advice on the kiln", []string{"advice", "kiln"}, nil, false, funes.RoleAssistant},
		{"I said you suggested", []string{"suggested"}, nil, false, ""}, // both: neither
		{"Vibration vibration VIBRATION", []string{"vibration"}, nil, false, ""},
	} {
		p := planQuery(c.q, true)
		if !reflect.DeepEqual(p.terms, c.terms) || !reflect.DeepEqual(p.ids, c.ids) || p.recent != c.recent || p.speaker != c.speaker {
			t.Errorf("planQuery(%q) = terms %q ids %q recent %v speaker %q; want %q %q %v %q",
				c.q, p.terms, p.ids, p.recent, p.speaker, c.terms, c.ids, c.recent, c.speaker)
		}
	}
	if p := planQuery("What score did I say I got on the test?", true); !reflect.DeepEqual(p.stops, []string{"what", "did", "i", "say", "got", "on", "the"}) {
		t.Errorf("stops = %q, want the stopwords taken out, once each", p.stops)
	}
	if p := planQuery("the of and", true); p.stops != nil {
		t.Errorf("stops = %q for a query of stopwords alone, want none (they are searched)", p.stops)
	}
	if p := planQuery(strings.Repeat("x", MaxQueryRunes+50), true); len(p.terms) != 1 || len(p.terms[0]) != MaxQueryRunes {
		t.Errorf("long query not cut to %d runes: %d", MaxQueryRunes, len(p.terms[0]))
	}
}

func TestRecallExprTable(t *testing.T) {
	p := queryPlan{terms: []string{"seal", `say "hi"`}, ids: []string{"p003"}}
	for _, c := range []struct {
		ids, date bool
		want      string
	}{
		{true, true, `{body title date} : ("seal" OR "say ""hi""") OR ids : ("p003")`},
		{false, false, `{body title} : ("seal" OR "say ""hi""")`},
	} {
		if got := p.recallExpr(c.ids, c.date); got != c.want {
			t.Errorf("recallExpr(%v, %v) = %s, want %s", c.ids, c.date, got, c.want)
		}
	}
	if got := (queryPlan{}).recallExpr(true, true); got != "" {
		t.Errorf("empty plan gave %q", got)
	}
}
