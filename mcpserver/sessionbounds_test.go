package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// initialize sends one raw initialize with a keep-alive client and returns
// the session id issued.
func initialize(t testing.TB, c *http.Client, url, token string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", bearer(token))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	return id
}

// listTools reports the status of a tools/list in session id.
func listTools(t testing.TB, c *http.Client, url, token, id string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(listToolsBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", bearer(token))
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSessionsCappedPerToken: thousands of initializes that never end
// their sessions leave at most maxSessionsPerToken of them, in Ireneo's
// table and in mcp-go's (its state was never freed: 30k initializes took
// serve from 45 MB to 359 MB); the oldest go first, and another token's
// session survives the flood.
func TestSessionsCappedPerToken(t *testing.T) {
	ts := startTestServer(t, Options{})
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer c.CloseIdleConnections()
	other := initialize(t, c, ts.url, ts.scoped)
	first := initialize(t, c, ts.url, ts.full)
	const n = 3000
	var last string
	for range n {
		last = initialize(t, c, ts.url, ts.full)
	}
	if got := ts.httpSessions.Len(); got > maxSessionsPerToken+1 {
		t.Errorf("table holds %d sessions after %d initializes, want at most %d", got, n, maxSessionsPerToken+1)
	}
	if got := ts.liveSessions.Load(); got > maxSessionsPerToken+1 {
		t.Errorf("mcp-go holds %d sessions after %d initializes, want at most %d", got, n, maxSessionsPerToken+1)
	}
	if s := listTools(t, c, ts.url, ts.full, first); s != http.StatusNotFound {
		t.Errorf("the oldest session, dropped: %d, want 404", s)
	}
	if s := listTools(t, c, ts.url, ts.full, last); s != http.StatusOK {
		t.Errorf("the newest session: %d, want 200", s)
	}
	if s := listTools(t, c, ts.url, ts.scoped, other); s != http.StatusOK {
		t.Errorf("the other token's session after the flood: %d, want 200", s)
	}
}

// TestSessionsCappedInAll: many tokens together stay within
// maxHTTPSessions.
func TestSessionsCappedInAll(t *testing.T) {
	ts := startTestServer(t, Options{})
	ctx := context.Background()
	tokens := maxHTTPSessions/maxSessionsPerToken + 4
	var wg sync.WaitGroup
	for i := range tokens {
		tok, _, err := ts.Tokens().Create(ctx, fmt.Sprintf("t%d", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Transport: &http.Transport{}}
			defer c.CloseIdleConnections()
			for range maxSessionsPerToken {
				initialize(t, c, ts.url, tok)
			}
		}()
	}
	wg.Wait()
	if got := ts.httpSessions.Len(); got > maxHTTPSessions {
		t.Errorf("table holds %d sessions, want at most %d", got, maxHTTPSessions)
	}
	if got := ts.liveSessions.Load(); got > maxHTTPSessions {
		t.Errorf("mcp-go holds %d sessions, want at most %d", got, maxHTTPSessions)
	}
}

// TestSessionsExpireIdle: a session idle longer than sessionIdle is gone,
// from both tables, at the next request of anyone; one in use stays.
func TestSessionsExpireIdle(t *testing.T) {
	ts := startTestServer(t, Options{})
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	var mu sync.Mutex
	clock := time.Now()
	ts.httpSessions.mu.Lock()
	ts.httpSessions.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	ts.httpSessions.mu.Unlock()
	idle := initialize(t, c, ts.url, ts.full)
	busy := initialize(t, c, ts.url, ts.full)
	before := ts.liveSessions.Load()
	for range 3 {
		mu.Lock()
		clock = clock.Add(sessionIdle / 3)
		mu.Unlock()
		if s := listTools(t, c, ts.url, ts.full, busy); s != http.StatusOK {
			t.Fatalf("the session in use: %d, want 200", s)
		}
	}
	mu.Lock()
	clock = clock.Add(time.Minute)
	mu.Unlock()
	if s := listTools(t, c, ts.url, ts.full, busy); s != http.StatusOK {
		t.Fatalf("the session in use: %d, want 200", s)
	}
	if got := ts.liveSessions.Load(); got != before-1 {
		t.Errorf("mcp-go holds %d sessions after one expired, want %d", got, before-1)
	}
	if s := listTools(t, c, ts.url, ts.full, idle); s != http.StatusNotFound {
		t.Errorf("the idle session: %d, want 404", s)
	}
}
