package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Streamable HTTP sessions, as the spec has them for protocol versions
// before 2026-07-28: the server issues an id at initialize, every later
// request carries it, a DELETE ends it. mcp-go checks only an id's shape, so
// the guard keeps the ids this server issued and which token opened each:
// an id that was never issued, has ended, or belongs to another token gets
// 404, and a request without one gets 400. Requests of the 2026-07-28
// protocol are stateless and carry no session.

// Session table bounds. mcp-go keeps a session's state (about 10 KB) from
// its initialize until a DELETE, and most clients never send one (30,000
// initializes took serve from 45 MB to 359 MB), so the table decides how
// long a session lives and tells mcp-go to let go of each one it drops
// (drop): one idle for sessionIdle, the least recently seen of a token that
// opens more than maxSessionsPerToken, and the least recently seen of all
// beyond maxHTTPSessions. A client whose session was dropped gets 404 and,
// as the transport's spec says it must, initializes again.
const (
	sessionIdle         = 8 * time.Hour
	maxSessionsPerToken = 64
	maxHTTPSessions     = 1024
	// sessionSweepEvery is how often a request also looks for idle
	// sessions (a scan of at most maxHTTPSessions entries).
	sessionSweepEvery = time.Minute
)

type sessionEntry struct {
	owner    string // the opening token's key
	lastSeen time.Time
}

type sessionTable struct {
	mu        sync.Mutex
	ids       map[string]*sessionEntry
	owned     map[string]int // sessions per owner
	lastSweep time.Time
	now       func() time.Time
	// drop, if set, frees what the MCP library holds of sessions the table
	// dropped; it is called without mu held.
	drop func(ids []string)
}

func newSessionTable() *sessionTable {
	return &sessionTable{ids: map[string]*sessionEntry{}, owned: map[string]int{}, now: time.Now}
}

// Len is how many sessions the table holds.
func (t *sessionTable) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.ids)
}

// open records a session id issued to owner, dropping others to stay
// within the bounds.
func (t *sessionTable) open(id, owner string) {
	t.mu.Lock()
	now := t.now()
	dropped := t.sweep(now, nil)
	if t.owned[owner] >= maxSessionsPerToken {
		dropped = t.evictOldest(owner, dropped)
	}
	if len(t.ids) >= maxHTTPSessions {
		dropped = t.evictOldest("", dropped)
	}
	if _, ok := t.ids[id]; !ok {
		t.owned[owner]++
	}
	t.ids[id] = &sessionEntry{owner: owner, lastSeen: now}
	t.mu.Unlock()
	t.release(dropped)
}

// remove deletes id; t.mu is held.
func (t *sessionTable) remove(id string, e *sessionEntry) {
	delete(t.ids, id)
	if t.owned[e.owner]--; t.owned[e.owner] <= 0 {
		delete(t.owned, e.owner)
	}
}

// sweep drops sessions idle longer than sessionIdle, at most once every
// sessionSweepEvery; t.mu is held.
func (t *sessionTable) sweep(now time.Time, dropped []string) []string {
	if now.Sub(t.lastSweep) < sessionSweepEvery {
		return dropped
	}
	t.lastSweep = now
	for id, e := range t.ids {
		if now.Sub(e.lastSeen) > sessionIdle {
			t.remove(id, e)
			dropped = append(dropped, id)
		}
	}
	return dropped
}

// evictOldest drops the least recently seen session of owner ("" for any
// owner); t.mu is held.
func (t *sessionTable) evictOldest(owner string, dropped []string) []string {
	var oldest string
	var oldestSeen time.Time
	for id, e := range t.ids {
		if owner != "" && e.owner != owner {
			continue
		}
		if oldest == "" || e.lastSeen.Before(oldestSeen) {
			oldest, oldestSeen = id, e.lastSeen
		}
	}
	if oldest == "" {
		return dropped
	}
	t.remove(oldest, t.ids[oldest])
	return append(dropped, oldest)
}

func (t *sessionTable) release(ids []string) {
	if len(ids) > 0 && t.drop != nil {
		t.drop(ids)
	}
}

// use reports whether id is a live session of owner, and marks it seen.
func (t *sessionTable) use(id, owner string) bool {
	t.mu.Lock()
	now := t.now()
	dropped := t.sweep(now, nil)
	e, ok := t.ids[id]
	live := ok && e.owner == owner
	if live && now.Sub(e.lastSeen) > sessionIdle {
		t.remove(id, e)
		dropped = append(dropped, id)
		live = false
	}
	if live {
		e.lastSeen = now
	}
	t.mu.Unlock()
	t.release(dropped)
	return live
}

// end ends owner's session id, reporting whether there was one. The
// request that ends it goes on to mcp-go, which lets go of it itself.
func (t *sessionTable) end(id, owner string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.ids[id]
	if !ok || e.owner != owner {
		return false
	}
	t.remove(id, e)
	return true
}

// jsonrpcHead is what the guard reads of a POST body.
type jsonrpcHead struct {
	Method mcp.MCPMethod `json:"method"`
	Params struct {
		Meta *mcp.Meta `json:"_meta"`
	} `json:"params"`
}

// isBatch reports whether a body is a JSON-RPC batch (a JSON array).
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// modernRequest reports whether a request speaks the stateless 2026-07-28
// protocol, by the same signs mcp-go reads: its header or its _meta.
func modernRequest(r *http.Request, head jsonrpcHead) bool {
	if mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
		return true
	}
	return head.Params.Meta != nil && mcp.IsModernProtocol(head.Params.Meta.ProtocolVersion())
}

// jsonrpcRefusal answers a request the transport refuses with a JSON-RPC
// error and an HTTP status, so both a client's HTTP layer and its JSON-RPC
// layer see why.
func jsonrpcRefusal(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": msg},
	})
}

// sessionIDWriter catches the session id mcp-go issues in an initialize
// response, so the guard can record who it belongs to.
type sessionIDWriter struct {
	http.ResponseWriter
	onHeader func(id string)
	wrote    bool
}

func (w *sessionIDWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		if id := w.Header().Get(server.HeaderKeySessionID); id != "" && code < 300 {
			w.onHeader(id)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionIDWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *sessionIDWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *sessionIDWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
