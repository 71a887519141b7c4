package querywords

import (
	"reflect"
	"testing"
)

func TestWordsTable(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"The Pump-Seal, again!", []string{"the", "pump", "seal", "again"}},
		{"東京で", []string{"東京", "京で"}},
		{"", []string{}},
	} {
		if got := Words(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if !IsStopword("the") || IsStopword("pump") || !IsRecencyWord("latest") || IsRecencyWord("pump") {
		t.Error("stopwords or recency words misread")
	}
	if got := Identifiers("ticket MT-4471"); !reflect.DeepEqual(got, []string{"mt4471"}) {
		t.Errorf("Identifiers: %q", got)
	}
}
