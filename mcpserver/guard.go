package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type callerKey struct{}

func withCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerFrom returns the caller a request was authenticated as.
func callerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// authChallenge is the WWW-Authenticate value of every 401.
const authChallenge = `Bearer realm="ireneo"`

// guard wraps the MCP handler with the checks every HTTP request passes, in
// this order: Host and every Origin (403, against DNS rebinding and web
// pages), bearer token (401), body size (413), then the transport's rules:
// no batches, and a session this token was issued (400 without one, 404 for
// one that ended, was never issued, or is another token's). An
// authenticated request carries its Caller in its context. Refusals are
// logged where a person sees them (see refusals).
func (s *Server) guard(port string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, port) {
			s.refused.note(r, http.StatusForbidden, "Host is not this loopback server", r.Host)
			http.Error(w, fmt.Sprintf("forbidden: Host %q is not this loopback server", r.Host), http.StatusForbidden)
			return
		}
		// A request may carry several Origin headers; each must be this
		// server's own (no client sends one: Claude Code, the inspector and
		// the TypeScript SDK send none), so a page another program serves on
		// loopback is refused too.
		for _, o := range r.Header.Values("Origin") {
			if !originAllowed(o, port) {
				s.refused.note(r, http.StatusForbidden, "Origin is not this loopback server", o)
				http.Error(w, fmt.Sprintf("forbidden: Origin %q is not this loopback server", o), http.StatusForbidden)
				return
			}
		}
		bearer, ok := bearerToken(r.Header.Get("Authorization"))
		if !ok {
			s.refused.note(r, http.StatusUnauthorized, "no bearer token", "")
			unauthorized(w, `missing bearer token: send "Authorization: Bearer <token>"; make one with `+"`ireneo token create NAME`", "")
			return
		}
		c, err := s.tokens.Authenticate(r.Context(), bearer)
		if errors.Is(err, ErrUnauthorized) {
			s.refused.note(r, http.StatusUnauthorized, "unknown or revoked token", "")
			// A wrong token's answer waits its turn, so guesses are answered
			// no faster than authFailEvery each; a right one never waits.
			if !s.authFails.wait(r.Context(), r.RemoteAddr) {
				return // the client went away
			}
			unauthorized(w, "unknown or revoked token", `, error="invalid_token"`)
			return
		}
		if err != nil {
			s.log.Error("token check failed", "err", err)
			http.Error(w, "memory is unavailable right now; continue without it", http.StatusServiceUnavailable)
			return
		}
		if r.ContentLength > s.opts.MaxBodyBytes {
			tooLarge(w, s.opts.MaxBodyBytes)
			return
		}
		var body []byte
		if r.Body != nil && r.Method == http.MethodPost {
			// Read the body here, capped, so an oversized chunked body gets a
			// plain 413 rather than a parse error from deeper down.
			body, err = io.ReadAll(io.LimitReader(r.Body, s.opts.MaxBodyBytes+1))
			r.Body.Close()
			if err != nil {
				http.Error(w, "cannot read request body", http.StatusBadRequest)
				return
			}
			if int64(len(body)) > s.opts.MaxBodyBytes {
				tooLarge(w, s.opts.MaxBodyBytes)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		r = r.WithContext(withCaller(r.Context(), c))
		s.session(c, body, next).ServeHTTP(w, r)
	})
}

// session applies the session rules of Streamable HTTP to an authenticated
// request, then hands it to next.
func (s *Server) session(c Caller, body []byte, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(server.HeaderKeySessionID)
		switch r.Method {
		case http.MethodPost:
			if isBatch(body) {
				jsonrpcRefusal(w, http.StatusBadRequest, mcp.INVALID_REQUEST, "batches are not supported: send one JSON-RPC message per request")
				return
			}
			var head jsonrpcHead
			if json.Unmarshal(body, &head) != nil || modernRequest(r, head) {
				break // mcp-go answers bad JSON; modern requests have no session
			}
			if head.Method == mcp.MethodInitialize {
				next.ServeHTTP(&sessionIDWriter{ResponseWriter: w, onHeader: func(id string) { s.httpSessions.open(id, c.key) }}, r)
				return
			}
			if id == "" {
				jsonrpcRefusal(w, http.StatusBadRequest, mcp.INVALID_REQUEST, "missing Mcp-Session-Id header: send initialize first and then the session id it returns")
				return
			}
			if !s.httpSessions.use(id, c.key) {
				jsonrpcRefusal(w, http.StatusNotFound, mcp.INVALID_REQUEST, "session not found: it ended or was never issued to this token; send initialize to start a new one")
				return
			}
		case http.MethodDelete:
			if mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
				break // mcp-go says modern protocols have no sessions to end
			}
			if id == "" {
				http.Error(w, "missing Mcp-Session-Id header: say which session to end", http.StatusBadRequest)
				return
			}
			if !s.httpSessions.end(id, c.key) {
				http.Error(w, "session not found: it ended or was never issued to this token", http.StatusNotFound)
				return
			}
		case http.MethodGet:
			if id != "" && !mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) && !s.httpSessions.use(id, c.key) {
				http.Error(w, "session not found: it ended or was never issued to this token", http.StatusNotFound)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func unauthorized(w http.ResponseWriter, msg, extra string) {
	w.Header().Set("WWW-Authenticate", authChallenge+extra)
	http.Error(w, "unauthorized: "+msg, http.StatusUnauthorized)
}

func tooLarge(w http.ResponseWriter, limit int64) {
	http.Error(w, fmt.Sprintf("request body larger than %d bytes", limit), http.StatusRequestEntityTooLarge)
}

// bearerToken takes the token out of an Authorization header; the scheme is
// case-insensitive (RFC 7235).
func bearerToken(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// Wrong tokens were answered 4,800 times a second. Each source's wrong
// tokens are now answered in turn: the first authFailBurst at once, then
// one every authFailEvery, however many are sent at once (each waits for
// the slot it reserved). A source is the client's address, with all of
// 127.0.0.0/8 one source (any local program can send from any of it). Only
// a wrong token waits, so a flood of them never keeps the right token's
// owner out; they do wait on each other, as any guesser would.
const (
	authFailBurst = 5
	authFailEvery = 100 * time.Millisecond
	// authSources is when sources whose turn has come are forgotten (the
	// server listens on loopback only, so there are few).
	authSources = 256
)

type authBackoff struct {
	mu   sync.Mutex
	next map[string]time.Time // when a source's next wrong token may be answered
	now  func() time.Time
}

func newAuthBackoff() *authBackoff {
	return &authBackoff{next: map[string]time.Time{}, now: time.Now}
}

// reserve takes source's next turn and returns how long until it.
func (b *authBackoff) reserve(source string) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if len(b.next) >= authSources {
		for k, t := range b.next {
			if t.Before(now) {
				delete(b.next, k)
			}
		}
	}
	// A source idle long enough has its burst back.
	t := b.next[source]
	if floor := now.Add(-authFailBurst * authFailEvery); t.Before(floor) {
		t = floor
	}
	t = t.Add(authFailEvery)
	b.next[source] = t
	return max(0, t.Sub(now))
}

// wait waits for the turn of a wrong token from remote (host:port); it
// reports false if ctx ended first.
func (b *authBackoff) wait(ctx context.Context, remote string) bool {
	d := b.reserve(authSource(remote))
	if d == 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// authSource is the source a remote address counts as.
func authSource(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip = ip.Unmap(); ip.Is4() && ip.IsLoopback() {
			return "127.0.0.0/8"
		}
		return ip.String()
	}
	return host
}
