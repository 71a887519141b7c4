package localeenv

import "testing"

func TestIsC(t *testing.T) {
	t.Parallel()
	for loc, want := range map[string]bool{
		"C.UTF-8": true, "C.utf8": true, "POSIX.UTF-8": true, "C@euro": true,
		"C": false, "POSIX": false, "": false, "C.": false,
		"en_US.UTF-8": false, "de_DE@euro": false, "Ca.UTF-8": false, "c.UTF-8": false,
	} {
		if got := IsC(loc); got != want {
			t.Errorf("IsC(%q) = %v, want %v", loc, got, want)
		}
	}
}
