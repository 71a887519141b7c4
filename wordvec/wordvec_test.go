package wordvec

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"slices"
	"testing"
)

// The embedded table is the one PROVENANCE.md describes.
func TestTableMatchesProvenance(t *testing.T) {
	prov, err := os.ReadFile("PROVENANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`table\.bin sha256: ([0-9a-f]{64})`).FindSubmatch(prov)
	if m == nil {
		t.Fatal("PROVENANCE.md states no sha256 of table.bin")
	}
	sum := sha256.Sum256(tableBin)
	if got := hex.EncodeToString(sum[:]); got != string(m[1]) {
		t.Fatalf("embedded table.bin has sha256 %s, PROVENANCE.md says %s", got, m[1])
	}
	if err := Ready(); err != nil {
		t.Fatal(err)
	}
	if Size() != 50000 {
		t.Fatalf("table has %d words, want 50000", Size())
	}
	for _, w := range []string{"the", "overheating", "hot", "invoice", "ticket"} {
		if !Known(w) {
			t.Errorf("%q not in the table", w)
		}
	}
}

func TestTokens(t *testing.T) {
	for in, want := range map[string][]string{
		"The pump's running TOO hot!":  {"the", "pump", "running", "too", "hot"},
		"don't, can't; isn’t":          {"do", "ca", "is"},
		"getUserName from the_db v2.1": {"get", "user", "name", "from", "the", "db", "v2", "1"},
		"":                             nil,
		"'quoted' K-039":               {"quoted", "k", "039"},
		"Café résumé":                  {"café", "résumé"},
	} {
		if got := Tokens(in); !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

// Meaning, not spelling: a paraphrase is closer than an unrelated text.
func TestSynonymsCloserThanUnrelated(t *testing.T) {
	for _, c := range []struct{ a, near, far string }{
		{"overheating", "too hot", "invoice"},
		{"the bearing is overheating", "the bearing runs too hot", "please send the invoice for march"},
		{"greasing the fan", "lubrication of the fan", "booking a flight to paris"},
		{"when does my first sprint end", "the sprint finishes on friday", "my favourite pasta recipe"},
	} {
		a := Sentence(c.a)
		near, far := Cosine(a, Sentence(c.near)), Cosine(a, Sentence(c.far))
		if near <= far {
			t.Errorf("%q: %q at %.3f is not closer than %q at %.3f", c.a, c.near, near, c.far, far)
		}
	}
}

func TestDeterministic(t *testing.T) {
	texts := []string{"the bearing runs too hot", "invoice for march", "lubrication schedule", "sprint review"}
	var vs [][]float32
	for _, s := range texts {
		vs = append(vs, Sentence(s))
	}
	d1, d2 := Common(vs, 2), Common(vs, 2)
	if len(d1) != 2 {
		t.Fatalf("Common found %d directions, want 2", len(d1))
	}
	for i := range d1 {
		if !slices.Equal(d1[i], d2[i]) {
			t.Fatal("Common differs between runs")
		}
	}
	if !slices.Equal(Sentence(texts[0]), Sentence(texts[0])) {
		t.Fatal("Sentence differs between runs")
	}
	// Removing the common directions leaves vectors orthogonal to them.
	v := Sentence(texts[0])
	Remove(v, d1)
	for _, u := range d1 {
		dot := 0.0
		for i := range v {
			dot += float64(v[i]) * u[i]
		}
		if dot > 1e-4 || dot < -1e-4 {
			t.Fatalf("a removed direction is left: dot %g", dot)
		}
	}
}

func TestEmptyAndUnknownAreSafe(t *testing.T) {
	for _, s := range []string{"", "   ", "!!!", "zzqxjv qqwrtz", "\xff\xfe"} {
		if v := Sentence(s); v != nil {
			t.Errorf("Sentence(%q) = a vector, want nil", s)
		}
	}
	if c := Cosine(nil, Sentence("hot")); c != 0 {
		t.Errorf("Cosine(nil, v) = %v, want 0", c)
	}
	if c := Cosine(make([]float32, Dims), Sentence("hot")); c != 0 {
		t.Errorf("Cosine(zero, v) = %v, want 0", c)
	}
	if d := Common(nil, 2); len(d) != 0 {
		t.Errorf("Common(nil) = %d directions", len(d))
	}
	Remove(nil, Common([][]float32{Sentence("hot")}, 2))
}

func TestEncodeRoundTrip(t *testing.T) {
	v := make([]float32, Dims)
	for i := range v {
		v[i] = float32(i-50) / 10
	}
	b, err := Encode([]string{"alpha", "beta"}, [][]float32{v, make([]float32, Dims)})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := decode(b)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, Dims)
	tb.addWord(got, tb.index["alpha"], 1)
	if c := Cosine(got, v); c < 0.9999 {
		t.Fatalf("int8 round trip cosine %v", c)
	}
	for _, bad := range [][]byte{nil, []byte("IRWV1\n"), b[:len(b)-1], append(b[:len(b):len(b)], 0)} {
		if _, err := decode(bad); err == nil {
			t.Errorf("decode of %d bad bytes: no error", len(bad))
		}
	}
}

func FuzzSentence(f *testing.F) {
	for _, s := range []string{"", "the bearing runs too hot", "don't", "it's'", "a'b'c", "getURLForID", "’t", "n'", "\xff'a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := Sentence(s)
		c := Cosine(v, Sentence("hot"))
		if c != c || c > 1.0001 || c < -1.0001 {
			t.Fatalf("cosine %v", c)
		}
		for _, w := range Tokens(s) {
			if w == "" {
				t.Fatal("empty token")
			}
		}
	})
}

func FuzzDecode(f *testing.F) {
	b, _ := Encode([]string{"a"}, [][]float32{make([]float32, Dims)})
	f.Add(b)
	f.Add([]byte("IRWV1\n\x64\x00\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tb, err := decode(b)
		if err == nil && len(tb.scale) > 0 {
			v := make([]float32, Dims)
			tb.addWord(v, 0, 1)
		}
	})
}
