package mcpserver

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestAuthBackoffSpacesGuesses: after a burst, a source's wrong tokens are
// answered authFailEvery apart however many come at once (they were
// answered 4,800 a second); all of 127.0.0.0/8 is one source; a source
// left alone gets its burst back.
func TestAuthBackoffSpacesGuesses(t *testing.T) {
	b := newAuthBackoff()
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	b.now = func() time.Time { return now }
	var last time.Duration
	for i := range 100 {
		src := "127.0.0.1:40000"
		if i%2 == 1 {
			src = "127.8.9.10:50000" // another loopback address is the same source
		}
		d := b.reserve(authSource(src))
		if i < authFailBurst && d != 0 {
			t.Fatalf("guess %d within the burst waits %v", i, d)
		}
		if i >= authFailBurst && d != last+authFailEvery {
			t.Fatalf("guess %d waits %v, want %v", i, d, last+authFailEvery)
		}
		last = d
	}
	if d := b.reserve(authSource("[::1]:40000")); d != 0 {
		t.Errorf("another source waits %v behind loopback v4's guesses", d)
	}
	now = now.Add(last + authFailBurst*authFailEvery)
	if d := b.reserve(authSource("127.0.0.1:1")); d != 0 {
		t.Errorf("after a quiet while, a guess waits %v", d)
	}
}

// TestWrongTokensNeverKeepTheOwnerOut: while a flood of wrong tokens waits
// its turns, the right token is answered at once, every time.
func TestWrongTokensNeverKeepTheOwnerOut(t *testing.T) {
	ts := startTestServer(t, Options{})
	wrong := "ireneo_" + strings.Repeat("C", 43)
	const flood = 40
	var answered atomic.Int32
	var wg sync.WaitGroup
	for range flood {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := send(t, http.MethodPost, ts.url, map[string]string{"Authorization": bearer(wrong)}, initializeBody)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("wrong token: %d", resp.StatusCode)
			}
			answered.Add(1)
		}()
	}
	// Wait until the flood has reserved its turns: the last lies
	// (flood-burst) turns ahead, seconds away.
	for {
		ts.authFails.mu.Lock()
		ahead := time.Until(ts.authFails.next["127.0.0.0/8"])
		ts.authFails.mu.Unlock()
		if ahead > (flood-authFailBurst-5)*authFailEvery {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for range 3 {
		if resp, body := send(t, http.MethodPost, ts.url, map[string]string{"Authorization": bearer(ts.full)}, initializeBody); resp.StatusCode != http.StatusOK {
			t.Fatalf("the right token during the flood: %d %s", resp.StatusCode, body)
		}
	}
	if n := answered.Load(); n >= flood {
		t.Errorf("all %d wrong tokens were answered before the right one", n)
	}
	wg.Wait()
}
