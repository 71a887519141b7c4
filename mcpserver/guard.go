package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
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
// this order: Host and Origin (403, against DNS rebinding and web pages),
// bearer token (401), body size (413). An authenticated request carries
// its Caller in its context.
func (s *Server) guard(port string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, port) {
			http.Error(w, fmt.Sprintf("forbidden: Host %q is not this loopback server", r.Host), http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); !originAllowed(o) {
			http.Error(w, fmt.Sprintf("forbidden: Origin %q is not loopback", o), http.StatusForbidden)
			return
		}
		bearer, ok := bearerToken(r.Header.Get("Authorization"))
		if !ok {
			unauthorized(w, `missing bearer token: send "Authorization: Bearer <token>"; make one with `+"`ireneo token create NAME`", "")
			return
		}
		c, err := s.tokens.Authenticate(r.Context(), bearer)
		if errors.Is(err, ErrUnauthorized) {
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
		if r.Body != nil && r.Method == http.MethodPost {
			// Read the body here, capped, so an oversized chunked body gets a
			// plain 413 rather than a parse error from deeper down.
			body, err := io.ReadAll(io.LimitReader(r.Body, s.opts.MaxBodyBytes+1))
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
		next.ServeHTTP(w, r.WithContext(withCaller(r.Context(), c)))
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
