package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/redact"
)

// Messages a tool call can end with instead of an answer. They are written
// for the agent reading them.
const (
	msgUnavailable = "memory is unavailable right now; continue without it"
	msgBusy        = "Ireneo's memory is busy answering other calls right now. Wait a few seconds and call again, or continue without it."
	msgTimeout     = "the memory took too long to answer (over %s); try a shorter, more specific query, or continue without it"
	msgTooLarge    = "the answer is too large to send (%d bytes; the limit is %d); ask for less: a smaller top_k, token_budget, window or limit"
	msgNoCaller    = "unauthorized: this call carries no token"
	msgCancelled   = "the call was cancelled"
)

// maxAuditArgs bounds the arguments kept in one audit entry.
const maxAuditArgs = 2000

// auditScanSlack is how far past the cut arguments are scanned for secrets,
// so one that straddles the cut is still found whole.
const auditScanSlack = 1024

// AuditTooLarge is the audit outcome of a result over the size cap.
const AuditTooLarge = "too_large"

// argError is a problem with a call's arguments, told to the agent as is.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func argErrorf(format string, a ...any) error { return &argError{fmt.Sprintf(format, a...)} }

// answer is what a tool body returns: the result, how many things it found
// (for the audit log), and the audit outcome (AuditOK when empty).
type answer struct {
	result  *mcp.CallToolResult
	hits    int
	outcome string
}

// toolBody does one tool's work for a caller with decoded arguments.
type toolBody[A any] func(ctx context.Context, c Caller, args A) (answer, error)

// handle turns a tool body into an mcp-go handler that applies, to every
// call: strict argument decoding, the concurrency limit, the per-call
// timeout, the result-size cap, error hiding, and the audit record.
func handle[A any](s *Server, tool string, body toolBody[A]) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		rawArgs := rawArguments(req)
		entry := auditlog.Entry{TS: start.UTC(), Tool: tool, Args: auditArgs(rawArgs, s.secrets.get())}
		finish := func(res *mcp.CallToolResult, hits int, outcome string) (*mcp.CallToolResult, error) {
			entry.Hits, entry.Outcome, entry.Duration = hits, outcome, time.Since(start)
			s.audit.record(entry)
			return res, nil
		}

		c, ok := callerFrom(ctx)
		if !ok {
			entry.Client = "unknown"
			return finish(mcp.NewToolResultError(msgNoCaller), 0, auditlog.Invalid)
		}
		entry.Client = c.Name

		var args A
		if err := decodeArgs(rawArgs, &args); err != nil {
			return finish(mcp.NewToolResultError(fmt.Sprintf("bad arguments for %s: %v", tool, err)), 0, auditlog.Invalid)
		}

		// Wait briefly for a slot, then say busy rather than queue forever.
		wait := time.NewTimer(s.opts.QueueWait)
		select {
		case s.slots <- struct{}{}:
			wait.Stop()
		case <-wait.C:
			return finish(mcp.NewToolResultError(msgBusy), 0, auditlog.Busy)
		case <-ctx.Done():
			wait.Stop()
			return finish(mcp.NewToolResultError(msgCancelled), 0, auditlog.Cancelled)
		}

		ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
		defer cancel()
		type outcome struct {
			a   answer
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			// The slot is held until the work really ends, even if the
			// caller was already answered with a timeout.
			defer func() { <-s.slots }()
			defer func() {
				if p := recover(); p != nil {
					s.log.Error("tool panicked", "tool", tool, "panic", p, "stack", string(debug.Stack()))
					done <- outcome{err: fmt.Errorf("panic: %v", p)}
				}
			}()
			a, err := body(ctx, c, args)
			done <- outcome{a, err}
		}()

		var out outcome
		select {
		case out = <-done:
		case <-ctx.Done():
			out = outcome{err: ctx.Err()}
		}
		switch {
		case out.err == nil:
		case errors.As(out.err, new(*argError)):
			return finish(mcp.NewToolResultError(out.err.Error()), 0, auditlog.Invalid)
		case errors.Is(out.err, context.DeadlineExceeded):
			return finish(mcp.NewToolResultError(fmt.Sprintf(msgTimeout, s.opts.CallTimeout)), 0, auditlog.Timeout)
		case errors.Is(out.err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
			// The client cancelled (notifications/cancelled) or hung up: its
			// choice, not a failure of the memory, and nobody reads the answer.
			return finish(mcp.NewToolResultError(msgCancelled), 0, auditlog.Cancelled)
		default:
			// The agent gets one plain line; the details go to the log.
			s.log.Error("tool failed", "tool", tool, "client", c.Name, "err", out.err)
			return finish(mcp.NewToolResultError(msgUnavailable), 0, auditlog.Unavailable)
		}

		a := out.a
		if a.outcome == "" {
			a.outcome = auditlog.OK
		}
		if n := resultSize(a.result); n > s.opts.MaxResultBytes {
			return finish(mcp.NewToolResultError(fmt.Sprintf(msgTooLarge, n, s.opts.MaxResultBytes)), a.hits, AuditTooLarge)
		}
		return finish(a.result, a.hits, a.outcome)
	}
}

// rawArguments returns a call's arguments as JSON ({} when there are none).
func rawArguments(req mcp.CallToolRequest) []byte {
	if len(req.Params.RawArguments) > 0 && !bytes.Equal(bytes.TrimSpace(req.Params.RawArguments), []byte("null")) {
		return req.Params.RawArguments
	}
	if req.Params.Arguments == nil {
		return []byte("{}")
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return []byte("{}")
	}
	return b
}

// decodeArgs decodes strictly: an unknown argument is an error naming it,
// so an agent that guessed a name learns the right ones.
func decodeArgs(raw []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "json: ")
		return errors.New(msg)
	}
	return nil
}

// auditArgs is what the audit log keeps of a call's arguments: compact,
// with secrets redacted (a query may hold a pasted token), and cut short.
// Redaction comes before the cut, so a cut cannot leave half a secret
// behind unrecognised.
func auditArgs(raw []byte, secrets redact.SecretFinder) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		buf.Reset()
		buf.Write(raw)
	}
	s := buf.String()
	s = redact.RedactText(secrets, s[:min(len(s), maxAuditArgs+auditScanSlack)])
	if len(s) > maxAuditArgs {
		s = s[:maxAuditArgs] + "…"
	}
	return s
}

func resultSize(r *mcp.CallToolResult) int {
	b, err := json.Marshal(r)
	if err != nil {
		return 0
	}
	return len(b)
}
