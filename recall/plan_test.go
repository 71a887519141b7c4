package recall

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/querywords"
)

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
		if !reflect.DeepEqual(p.Terms, c.terms) || !reflect.DeepEqual(p.IDs, c.ids) || p.Recent != c.recent || p.Speaker != c.speaker {
			t.Errorf("planQuery(%q) = terms %q ids %q recent %v speaker %q; want %q %q %v %q",
				c.q, p.Terms, p.IDs, p.Recent, p.Speaker, c.terms, c.ids, c.recent, c.speaker)
		}
	}
	if p := planQuery("What score did I say I got on the test?", true); !reflect.DeepEqual(p.Stops, []string{"what", "did", "i", "say", "got", "on", "the"}) {
		t.Errorf("stops = %q, want the stopwords taken out, once each", p.Stops)
	}
	if p := planQuery("the of and", true); p.Stops != nil {
		t.Errorf("stops = %q for a query of stopwords alone, want none (they are searched)", p.Stops)
	}
	if p := planQuery(strings.Repeat("x", querywords.MaxQueryRunes+50), true); len(p.Terms) != 1 || len(p.Terms[0]) != querywords.MaxQueryRunes {
		t.Errorf("long query not cut to %d runes: %d", querywords.MaxQueryRunes, len(p.Terms[0]))
	}
}
