package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/ireneo-app/ireneo/tokenstore"
)

// TestAuthMatrix is every refusal row of the design, over real HTTP.
func TestAuthMatrix(t *testing.T) {
	ts := startTestServer(t, Options{})
	ctx := context.Background()
	revoked, _, err := ts.Tokens().Create(ctx, "gone", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Tokens().Revoke(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ts.Addr())
	wrong := "ireneo_" + strings.Repeat("A", 43)

	for _, tc := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"good token", map[string]string{"Authorization": bearer(ts.full)}, http.StatusOK},
		{"scheme is case-insensitive", map[string]string{"Authorization": "bearer " + ts.full}, http.StatusOK},
		{"no token", nil, http.StatusUnauthorized},
		{"empty bearer", map[string]string{"Authorization": "Bearer "}, http.StatusUnauthorized},
		{"basic auth", map[string]string{"Authorization": "Basic Zm9vOmJhcg=="}, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": bearer(wrong)}, http.StatusUnauthorized},
		{"token's hash as token", map[string]string{"Authorization": bearer(fmt.Sprintf("%x", HashSecret(ts.full)))}, http.StatusUnauthorized},
		{"revoked token", map[string]string{"Authorization": bearer(revoked)}, http.StatusUnauthorized},
		{"evil origin", map[string]string{"Authorization": bearer(ts.full), "Origin": "https://evil.example"}, http.StatusForbidden},
		{"evil origin, no token", map[string]string{"Origin": "http://evil.example:" + port}, http.StatusForbidden},
		{"null origin", map[string]string{"Authorization": bearer(ts.full), "Origin": "null"}, http.StatusForbidden},
		{"own origin", map[string]string{"Authorization": bearer(ts.full), "Origin": "http://127.0.0.1:" + port}, http.StatusOK},
		{"own origin by name", map[string]string{"Authorization": bearer(ts.full), "Origin": "http://localhost:" + port}, http.StatusOK},
		{"loopback origin, other port", map[string]string{"Authorization": bearer(ts.full), "Origin": "http://localhost:6274"}, http.StatusForbidden},
		{"loopback origin, no port", map[string]string{"Authorization": bearer(ts.full), "Origin": "http://127.0.0.1"}, http.StatusForbidden},
		{"own port over https", map[string]string{"Authorization": bearer(ts.full), "Origin": "https://127.0.0.1:" + port}, http.StatusForbidden},
		{"foreign host", map[string]string{"Authorization": bearer(ts.full), "Host": "evil.example:" + port}, http.StatusForbidden},
		{"rebinding host without port", map[string]string{"Authorization": bearer(ts.full), "Host": "evil.example"}, http.StatusForbidden},
		{"loopback host, other port", map[string]string{"Authorization": bearer(ts.full), "Host": "127.0.0.1:1"}, http.StatusForbidden},
		{"localhost host", map[string]string{"Authorization": bearer(ts.full), "Host": "localhost:" + port}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawPost(t, ts.url, tc.hdr, initializeBody)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if tc.want == http.StatusUnauthorized {
				if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, `Bearer realm="ireneo"`) {
					t.Fatalf("WWW-Authenticate = %q", got)
				}
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	ts := startTestServer(t, Options{})
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"` + strings.Repeat("a", DefaultMaxBodyBytes) + `"}}}`
	resp := rawPost(t, ts.url, map[string]string{"Authorization": bearer(ts.full)}, big)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
	// The same without a Content-Length (chunked) is refused the same way.
	req, _ := http.NewRequest(http.MethodPost, ts.url, struct{ *strings.Reader }{strings.NewReader(big)})
	req.Header.Set("Authorization", bearer(ts.full))
	req.Header.Set("Content-Type", "application/json")
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked: status %d, want 413", resp2.StatusCode)
	}
}

// TestClientRefusedWithoutToken: mcp-go's own client, both handshakes,
// cannot get in without a valid token, and is cut off once it is revoked.
func TestClientRefusedWithoutToken(t *testing.T) {
	ts := startTestServer(t, Options{})
	for _, tok := range []string{"", "ireneo_nope"} {
		c, err := dial(ts.url, tok)
		if err == nil {
			c.Close()
			t.Fatalf("token %q: connected", tok)
		}
		if !errors.Is(err, transport.ErrAuthorizationRequired) {
			t.Fatalf("token %q: err = %v, want ErrAuthorizationRequired", tok, err)
		}
	}

	ctx := context.Background()
	tok, _, err := ts.Tokens().Create(ctx, "short-lived", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, ts.url, tok)
	if res := callTool(t, c, ToolListProjects, nil); res.IsError {
		t.Fatal(resultText(res))
	}
	if err := ts.Tokens().Revoke(ctx, "short-lived"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, toolRequest(ToolListProjects, nil)); !errors.Is(err, transport.ErrAuthorizationRequired) {
		t.Fatalf("after revoke: err = %v", err)
	}
}

func TestNormalizeAddr(t *testing.T) {
	for in, want := range map[string]string{
		"":                     DefaultAddr,
		"localhost":            "127.0.0.1:47119",
		"localhost:5000":       "127.0.0.1:5000",
		"127.0.0.1:0":          "127.0.0.1:0",
		"127.0.0.2:8080":       "127.0.0.2:8080",
		"[::1]:9000":           "[::1]:9000",
		"::1":                  "[::1]:47119",
		"127.0.0.1":            "127.0.0.1:47119",
		"[::ffff:127.0.0.1]:1": "127.0.0.1:1",
	} {
		got, err := NormalizeAddr(in)
		if err != nil || got != want {
			t.Errorf("NormalizeAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"0.0.0.0:47119", ":47119", "[::]:47119", "192.168.1.5:47119", "10.0.0.1", "example.com:80", "localhost.evil.example:1", "127.0.0.1:99999", "127.0.0.1:http"} {
		if got, err := NormalizeAddr(in); err == nil {
			t.Errorf("NormalizeAddr(%q) = %q, want refusal", in, got)
		}
	}
}

func TestStartRefusesNonLoopback(t *testing.T) {
	s := New(newFixtureMemory(t), tokenstore.NewMemoryTokenStore(), Options{Logger: quietLogger()})
	defer s.Close()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		if err := s.Start(addr); err == nil || !strings.Contains(err.Error(), "not a loopback address") {
			t.Errorf("Start(%q) = %v", addr, err)
		}
	}
	if s.Running() {
		t.Fatal("running after refusals")
	}
}

func TestStartPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	s := New(newFixtureMemory(t), tokenstore.NewMemoryTokenStore(), Options{Logger: quietLogger()})
	defer s.Close()
	err = s.Start(ln.Addr().String())
	if !errors.Is(err, ErrPortInUse) || !strings.Contains(err.Error(), "port "+port+" is already in use") {
		t.Fatalf("Start on a used port: %v", err)
	}
}

func TestStartStopRestart(t *testing.T) {
	ts := startTestServer(t, Options{})
	if !ts.Running() || ts.Addr() == "" {
		t.Fatal("not running")
	}
	if err := ts.Start("127.0.0.1:0"); err == nil {
		t.Fatal("second Start succeeded")
	}
	if err := ts.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ts.Running() || ts.Addr() != "" {
		t.Fatal("still running after Stop")
	}
	if err := ts.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	c := connect(t, ts.URL(), ts.full)
	if res := callTool(t, c, ToolListProjects, nil); res.IsError {
		t.Fatal(resultText(res))
	}
}
