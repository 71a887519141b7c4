package mcpserver

import (
	"net"
	"net/netip"
	"strings"
	"testing"
)

// FuzzNormalizeAddr: whatever it accepts is a loopback host and a port.
func FuzzNormalizeAddr(f *testing.F) {
	for _, s := range []string{"", "localhost", "127.0.0.1:0", "[::1]:1", "0.0.0.0:1", ":1", "[::ffff:127.0.0.1]:5", "example.com:80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := NormalizeAddr(in)
		if err != nil {
			return
		}
		host, _, err := net.SplitHostPort(out)
		if err != nil {
			t.Fatalf("%q → %q: %v", in, out, err)
		}
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.IsLoopback() {
			t.Fatalf("%q → %q is not loopback", in, out)
		}
	})
}

// FuzzToolArgs: no argument object makes decoding panic.
func FuzzToolArgs(f *testing.F) {
	for _, s := range []string{`{"query":"MT-4471","top_k":"5"}`, `{"top_k":1e99}`, `{"top_k":-1.5}`, `null`, `[]`, `{"since":"2026-10-08"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var r RecallArgs
		if decodeArgs([]byte(raw), &r) == nil {
			dateRange(r.Since, r.Until)
			sourceArg(r.Source)
		}
		var g GetArgs
		decodeArgs([]byte(raw), &g)
		var s SessionsArgs
		decodeArgs([]byte(raw), &s)
		_ = strings.TrimSpace(r.Query)
	})
}
