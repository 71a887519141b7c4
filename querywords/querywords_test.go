package querywords

import (
	"math/rand/v2"
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

// TestASCIIWordsAsEveryText: the ASCII path splits as the general one does,
// on every byte class an ASCII text holds (upper case, digits, marks,
// controls), and a text with one byte past ASCII takes the general path.
func TestASCIIWordsAsEveryText(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	const alphabet = "aZz09 _-.:/\t\n'\"MQk7\x00\x7f"
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		text := string(b)
		if got, want := Words(text), words(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("Words(%q) = %q, want %q", text, got, want)
		}
	}
	if got := Words("Tokyo 東京で旅行"); !reflect.DeepEqual(got, words("Tokyo 東京で旅行")) || len(got) < 2 {
		t.Fatalf("a text past ASCII: %q", got)
	}
}

// FuzzWords: Words equals the general path on any text.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"", "V-261 sensor drift", "HTTP_500 on /api", "東京で旅行", "naïve café", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := Words(text), words(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("Words(%q) = %q, want %q", text, got, want)
		}
	})
}
