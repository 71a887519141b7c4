package spans

import "testing"

func TestReplace(t *testing.T) {
	for _, c := range []struct {
		text  string
		edits []Edit
		want  string
	}{
		{"abcdef", nil, "abcdef"},
		{"abcdef", []Edit{{1, 3, "X"}}, "aXdef"},
		{"abcdef", []Edit{{0, 1, ""}, {2, 2, "+"}, {5, 6, "!"}}, "b+cde!"},
		{"abcdef", []Edit{{0, 6, "whole"}}, "whole"},
		{"abcdef", []Edit{{1, 4, "X"}, {2, 5, "Y"}}, "aXef"},    // overlapping: the second skipped
		{"abcdef", []Edit{{4, 9, "X"}, {-1, 2, "Y"}}, "abcdef"}, // outside the text
		{"abcdef", []Edit{{3, 2, "X"}}, "abcdef"},               // backwards
	} {
		if got := Replace(c.text, c.edits); got != c.want {
			t.Errorf("Replace(%q, %v) = %q, want %q", c.text, c.edits, got, c.want)
		}
	}
}
