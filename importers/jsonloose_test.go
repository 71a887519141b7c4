package importers

import "testing"

func TestUnquote(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"`:                   "plain",
		`"a\nb\t\"q\"\\ \/"`:        "a\nb\t\"q\"\\ /",
		`"\u00e9\u20AC"`:            "é€",
		`"\ud83d\ude00 smile"`:      "😀 smile",
		`"é ✓"`:                     "é ✓",
		`""`:                        "",
		`"\b\f\r"`:                  "\b\f\r",
		`"line1\nline2\n\nline3\n"`: "line1\nline2\n\nline3\n",
	} {
		if got, ok := unquote([]byte(in)); !ok || got != want {
			t.Errorf("unquote(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
	// Left to encoding/json: a lone surrogate (it writes U+FFFD) and
	// anything malformed.
	for _, in := range []string{`"\ud83d"`, `"\udc00"`, `"\x"`, `"abc`, `x`, `"\u12"`, "\"\xff\""} {
		if _, ok := unquote([]byte(in)); ok {
			t.Errorf("unquote(%s) accepted", in)
		}
	}
	var s looseString
	if s.UnmarshalJSON([]byte(`"\ud83d"`)); s != "\ufffd" {
		t.Errorf("lone surrogate: %q", s)
	}
}
