package engine

import (
	"reflect"
	"testing"
)

func TestIdentifiers(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"V-261 sensor drift ticket", []string{"v261"}},
		{"ticket MT-4471 is open, mt4471 again", []string{"mt4471"}},
		{"N-11 and CVE-2024-3094", []string{"n11", "cve20243094"}},
		{"rate 3.4% vs 34%", []string{"3x4pct", "34pct"}},
		{"upgrade to v1.2.3.", []string{"v1x2x3"}},
		{"see foo_bar.go for ERR_CONN_RESET", []string{"foobargo", "errconnreset"}},
		{"call fmt.Println in src/main", []string{"fmtprintln", "srcmain"}},
		{"e.g. the U.S. and a well-known x-ray", nil},
		{"no ids here", nil},
		{"1999 alone", nil},
		{"東京2024年", nil},
	} {
		if got := Identifiers(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Identifiers(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
