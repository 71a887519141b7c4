package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/auditlog"
)

// send makes one raw HTTP request to the MCP endpoint.
func send(t *testing.T, method, url string, hdr map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const listToolsBody = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`

// openSession initializes over raw HTTP with a token and returns the
// session id the server issued.
func openSession(t *testing.T, url, token string) string {
	t.Helper()
	hdr := map[string]string{"Authorization": bearer(token)}
	resp, body := send(t, http.MethodPost, url, hdr, initializeBody)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q: %s", resp.StatusCode, id, body)
	}
	hdr["Mcp-Session-Id"] = id
	hdr["Mcp-Protocol-Version"] = "2025-06-18"
	if resp, body := send(t, http.MethodPost, url, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	return id
}

// TestSessionLifecycle: sessions per Streamable HTTP, bound to the token
// that opened them.
func TestSessionLifecycle(t *testing.T) {
	ts := startTestServer(t, Options{})
	id := openSession(t, ts.url, ts.full)
	with := func(token, session string) map[string]string {
		h := map[string]string{"Authorization": bearer(token), "Mcp-Protocol-Version": "2025-06-18"}
		if session != "" {
			h["Mcp-Session-Id"] = session
		}
		return h
	}
	status := func(what string, want int, resp *http.Response, body string, wantText string) {
		t.Helper()
		if resp.StatusCode != want || !strings.Contains(body, wantText) {
			t.Errorf("%s: %d %q, want %d with %q", what, resp.StatusCode, body, want, wantText)
		}
	}

	resp, body := send(t, http.MethodPost, ts.url, with(ts.full, id), listToolsBody)
	status("own session", http.StatusOK, resp, body, `"recall"`)

	resp, body = send(t, http.MethodPost, ts.url, with(ts.full, ""), listToolsBody)
	status("no session id", http.StatusBadRequest, resp, body, "missing Mcp-Session-Id")

	forged := "mcp-session-0b7e3f3c-2d5e-4f7e-9a61-6f1b1d5c2a10"
	resp, body = send(t, http.MethodPost, ts.url, with(ts.full, forged), listToolsBody)
	status("well-formed id never issued", http.StatusNotFound, resp, body, "session not found")

	resp, body = send(t, http.MethodPost, ts.url, with(ts.scoped, id), listToolsBody)
	status("another token's session", http.StatusNotFound, resp, body, "session not found")
	resp, body = send(t, http.MethodDelete, ts.url, with(ts.scoped, id), "")
	status("another token ends it", http.StatusNotFound, resp, body, "session not found")
	resp, body = send(t, http.MethodPost, ts.url, with(ts.full, id), listToolsBody)
	status("still alive after the other token's DELETE", http.StatusOK, resp, body, `"recall"`)

	resp, body = send(t, http.MethodPost, ts.url, with(ts.full, id), `[`+listToolsBody+`,`+listToolsBody+`]`)
	status("batch", http.StatusBadRequest, resp, body, "batches are not supported")

	resp, body = send(t, http.MethodDelete, ts.url, with(ts.full, id), "")
	status("DELETE", http.StatusOK, resp, body, "")
	resp, body = send(t, http.MethodPost, ts.url, with(ts.full, id), listToolsBody)
	status("after DELETE", http.StatusNotFound, resp, body, "session not found")
	resp, body = send(t, http.MethodDelete, ts.url, with(ts.full, id), "")
	status("DELETE again", http.StatusNotFound, resp, body, "session not found")

	// A new initialize starts a new session.
	if id2 := openSession(t, ts.url, ts.full); id2 == id {
		t.Errorf("a new initialize reused the ended session id")
	}
}

// TestEveryOriginChecked: a second, foreign Origin header is refused even
// when the first is loopback.
func TestEveryOriginChecked(t *testing.T) {
	ts := startTestServer(t, Options{})
	req, _ := http.NewRequest(http.MethodPost, ts.url, strings.NewReader(initializeBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", bearer(ts.full))
	req.Header.Add("Origin", "http://"+ts.Addr())
	req.Header.Add("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("two Origins, the second foreign: %d, want 403", resp.StatusCode)
	}
}

// TestRefusalsAudited: 401s and 403s reach the audit log (so the Activity
// screen), one entry per reason per interval with a count of repeats, and
// never the token presented.
func TestRefusalsAudited(t *testing.T) {
	var seen atomic.Int32
	ts := startTestServer(t, Options{OnCall: func(auditlog.Entry) { seen.Add(1) }})
	var mu sync.Mutex
	clock := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	ts.refused.mu.Lock()
	ts.refused.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	ts.refused.mu.Unlock()
	wrong := "ireneo_" + strings.Repeat("B", 43)
	for range 5 {
		send(t, http.MethodPost, ts.url, map[string]string{"Authorization": bearer(wrong)}, initializeBody)
	}
	send(t, http.MethodPost, ts.url, map[string]string{"Authorization": bearer(ts.full), "Origin": "https://evil.example"}, initializeBody)
	// Another foreign Origin within the interval is counted, not written:
	// varying a header can't flood the log.
	send(t, http.MethodPost, ts.url, map[string]string{"Authorization": bearer(ts.full), "Origin": "https://evil2.example"}, initializeBody)
	mu.Lock()
	clock = clock.Add(refusalEvery + time.Second)
	mu.Unlock()
	send(t, http.MethodPost, ts.url, map[string]string{"Authorization": bearer(wrong)}, initializeBody)
	ts.FlushAudit()
	es, err := auditlog.List(context.Background(), ts.mem, auditlog.Query{Client: RefusedClient})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 {
		t.Fatalf("refusals audited: %d, want 3: %+v", len(es), es)
	}
	var args map[string]any
	json.Unmarshal([]byte(es[0].Args), &args)
	if es[0].Outcome != auditlog.Unauthorized || args["repeats_before"] != float64(4) || !strings.Contains(es[0].Tool, "POST") {
		t.Errorf("latest 401 = %+v", es[0])
	}
	if es[1].Outcome != auditlog.Forbidden || !strings.Contains(es[1].Args, "evil.example") {
		t.Errorf("403 = %+v", es[1])
	}
	for _, e := range es {
		if strings.Contains(e.Args, wrong) || strings.Contains(e.Args, ts.full) {
			t.Errorf("a refusal kept the token: %+v", e)
		}
	}
	if n := seen.Load(); n < 3 {
		t.Errorf("OnCall saw %d refusals, want 3", n)
	}
}
