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

// Session table bounds: ids idle this long are forgotten, and the table
// never holds more than maxHTTPSessions (the longest idle go first).
const (
	sessionIdle     = 24 * time.Hour
	maxHTTPSessions = 10000
)

type sessionEntry struct {
	owner    string // the opening token's key
	lastSeen time.Time
}

type sessionTable struct {
	mu  sync.Mutex
	ids map[string]*sessionEntry
	now func() time.Time
}

func newSessionTable() *sessionTable {
	return &sessionTable{ids: map[string]*sessionEntry{}, now: time.Now}
}

// open records a session id issued to owner.
func (t *sessionTable) open(id, owner string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if len(t.ids) >= maxHTTPSessions {
		t.evict(now)
	}
	t.ids[id] = &sessionEntry{owner: owner, lastSeen: now}
}

// evict drops idle sessions, and if none are idle, the least recently seen.
func (t *sessionTable) evict(now time.Time) {
	var oldest string
	var oldestSeen time.Time
	for id, e := range t.ids {
		if now.Sub(e.lastSeen) > sessionIdle {
			delete(t.ids, id)
			continue
		}
		if oldest == "" || e.lastSeen.Before(oldestSeen) {
			oldest, oldestSeen = id, e.lastSeen
		}
	}
	if len(t.ids) >= maxHTTPSessions && oldest != "" {
		delete(t.ids, oldest)
	}
}

// use reports whether id is a live session of owner, and marks it seen.
func (t *sessionTable) use(id, owner string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.ids[id]
	if !ok || e.owner != owner {
		return false
	}
	now := t.now()
	if now.Sub(e.lastSeen) > sessionIdle {
		delete(t.ids, id)
		return false
	}
	e.lastSeen = now
	return true
}

// end ends owner's session id, reporting whether there was one.
func (t *sessionTable) end(id, owner string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.ids[id]
	if !ok || e.owner != owner {
		return false
	}
	delete(t.ids, id)
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
