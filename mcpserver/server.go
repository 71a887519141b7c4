package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	ans "github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/o200k"
	"github.com/ireneo-app/ireneo/recall"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// Limits and their defaults.
const (
	DefaultMaxBodyBytes   = 1 << 20 // request body
	DefaultQueueWait      = 3 * time.Second
	DefaultCallTimeout    = 20 * time.Second
	DefaultMaxResultBytes = 512 << 10 // one tool result, text and structured together
	MaxQueryChars         = 500       // a recall or sessions query
	DefaultGetTokenBudget = 4000      // a get answer, when the call names none
)

// defaultMaxConcurrent gives one tool-call slot a core, and at least two.
// A recall is CPU-bound, so calls beyond the cores only share them and each
// takes longer: 32 clients asking at once on 2 cores, 2 slots gave p99 87-89 ms
// against 117 ms for 3 and 120-150 ms for 4, at the same calls a second
// (BENCHMARKS.md, tenth round).
func defaultMaxConcurrent() int { return max(2, runtime.GOMAXPROCS(0)) }

// Options tunes a Server. Zero fields take the defaults above.
type Options struct {
	Version        string        // reported to clients
	MaxBodyBytes   int64         // larger requests get 413
	MaxConcurrent  int           // tool calls at once (default: one per core, at least 2); more wait up to QueueWait, then get a busy error
	QueueWait      time.Duration // how long a call waits for a free slot
	CallTimeout    time.Duration // per tool call
	MaxResultBytes int           // larger results are refused
	// Tool defaults, for calls that leave the argument out: how many
	// passages recall returns, and the token budget of recall and sessions
	// answers and of get answers. The first two are the person's
	// default_top_k and default_token_budget; SetRecallDefaults changes
	// them on a running server.
	DefaultTopK           int
	DefaultTokenBudget    int
	DefaultGetTokenBudget int
	// Logger receives operational logs; it defaults to text on stderr, which
	// keeps stdout clean for the stdio transport.
	Logger *slog.Logger
	// OnCall, if set, sees every audited call as it happens (the GUI's
	// activity view). It must not block.
	OnCall func(auditlog.Entry)
	// Secrets finds the secrets in a call's arguments, which are redacted
	// before the call is audited or shown to OnCall. Nil means
	// LazySecrets, else the built-in rules without the person's own
	// patterns.
	Secrets redact.SecretFinder
	// LazySecrets, if Secrets is nil, builds the finder when it is first
	// needed (in the background after a client's initialize, or by the
	// first tool call), so a process a client starts answers initialize
	// without first compiling every rule. A nil result means the built-in
	// rules.
	LazySecrets func() redact.SecretFinder

	// validateOutput checks every result against its tool's output schema;
	// tests turn it on so a schema and its results can't drift apart.
	validateOutput bool
}

func (o Options) withDefaults() Options {
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = defaultMaxConcurrent()
	}
	if o.QueueWait <= 0 {
		o.QueueWait = DefaultQueueWait
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if o.DefaultTopK <= 0 {
		o.DefaultTopK = recall.DefaultK
	}
	if o.DefaultTokenBudget <= 0 {
		o.DefaultTokenBudget = recall.DefaultBudget
	}
	if o.DefaultGetTokenBudget <= 0 {
		o.DefaultGetTokenBudget = DefaultGetTokenBudget
	}
	o.DefaultTokenBudget = min(max(o.DefaultTokenBudget, minTokenBudget), maxTokenBudget)
	o.DefaultGetTokenBudget = min(max(o.DefaultGetTokenBudget, minTokenBudget), maxTokenBudget)
	o.DefaultTopK = min(o.DefaultTopK, recall.MaxK)
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return o
}

// backend is what the tools read of a memory; tests swap it to make the
// memory fail.
type backend interface {
	Recall(ctx context.Context, o recall.Options) (*recall.Result, error)
	Get(ctx context.Context, o conversations.GetOptions) (*conversations.Transcript, error)
	Sessions(ctx context.Context, q conversations.Query) ([]ans.Conversation, int, error)
	Projects(ctx context.Context, scope []string) ([]ans.ProjectCount, int, error)
}

// memoryBackend is a memory with recall run over it by package recall and
// its conversations read by package conversations.
type memoryBackend struct{ *memory.Memory }

func (b memoryBackend) Get(ctx context.Context, o conversations.GetOptions) (*conversations.Transcript, error) {
	return conversations.Get(ctx, b.Memory, o)
}

func (b memoryBackend) Sessions(ctx context.Context, q conversations.Query) ([]ans.Conversation, int, error) {
	return conversations.List(ctx, b.Memory, q)
}

func (b memoryBackend) Projects(ctx context.Context, scope []string) ([]ans.ProjectCount, int, error) {
	return conversations.Projects(ctx, b.Memory, scope)
}

func (b memoryBackend) Recall(ctx context.Context, o recall.Options) (*recall.Result, error) {
	return recall.Recall(ctx, b.Memory, o)
}

// Audit lists the memory's audit log, for insights.
func (b memoryBackend) Audit(ctx context.Context, q auditlog.Query) ([]auditlog.Entry, error) {
	return auditlog.List(ctx, b.Memory, q)
}

// Server is Ireneo's MCP server over one memory. One Server can listen on
// loopback HTTP (Start/Stop, restartable) and serve stdio (ServeStdio). It
// is safe for concurrent use, and is what both the CLI and the GUI run.
type Server struct {
	mem    backend
	tokens *Tokens
	opts   Options
	log    *slog.Logger
	mcp    *server.MCPServer
	audit  *auditLog
	// secrets redacts call arguments before they are audited.
	secrets *auditSecrets
	slots   chan struct{} // one per running tool call
	// sessions are the Streamable HTTP sessions issued, by token.
	httpSessions *sessionTable
	// mcpHTTP is the transport the current Handler serves, told to let go
	// of each session the table drops.
	mcpHTTP atomic.Pointer[server.StreamableHTTPServer]
	// liveSessions counts the sessions mcp-go holds (registered, not yet
	// unregistered), for tests and benchmarks of the bounds.
	liveSessions atomic.Int64
	// refused logs refused HTTP requests for the person to see.
	refused *refusals
	// authFails spaces out the answers to wrong tokens.
	authFails *authBackoff

	defaults atomic.Pointer[recallDefaults]

	mu   sync.Mutex
	http *http.Server
	ln   net.Listener
	done chan struct{} // closed when the current listener stops serving
}

// New makes a Server over memory m. tokens holds the secrets that HTTP
// clients present; it may be nil for a stdio-only server.
func New(m *memory.Memory, tokens tokenstore.TokenStore, opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{
		mem:          memoryBackend{m},
		opts:         opts,
		log:          opts.Logger,
		audit:        newAuditLog(m, opts.Logger, opts.OnCall),
		secrets:      newAuditSecrets(opts.Secrets, opts.LazySecrets),
		slots:        make(chan struct{}, opts.MaxConcurrent),
		httpSessions: newSessionTable(),
		authFails:    newAuthBackoff(),
	}
	s.httpSessions.drop = s.dropSessions
	d := opts.recallDefaults()
	s.defaults.Store(&d)
	s.refused = newRefusals(s.audit)
	if tokens != nil {
		s.tokens = NewTokens(m, tokens)
	}
	hooks := &server.Hooks{}
	// The first tool call needs the secret rules and the token vocabulary;
	// load them while the client reads the initialize answer and lists the
	// tools, not before answering it.
	hooks.AddAfterInitialize(func(context.Context, any, *mcp.InitializeRequest, *mcp.InitializeResult) {
		s.secrets.warm()
		go o200k.Count("warm up")
	})
	hooks.AddOnRegisterSession(func(context.Context, server.ClientSession) { s.liveSessions.Add(1) })
	hooks.AddOnUnregisterSession(func(context.Context, server.ClientSession) { s.liveSessions.Add(-1) })
	mopts := []server.ServerOption{
		server.WithHooks(hooks),
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithInstructions(serverInstructions),
	}
	if opts.validateOutput {
		mopts = append(mopts, server.WithOutputSchemaValidation())
	}
	s.mcp = server.NewMCPServer("ireneo", opts.Version, mopts...)
	s.addTools()
	return s
}

// Tokens is the server's token manager (nil for a stdio-only server).
func (s *Server) Tokens() *Tokens { return s.tokens }

// Handler is the guarded HTTP handler for the MCP endpoint, for tests and
// for embedding; port is the one Host headers must name.
func (s *Server) Handler(port string) http.Handler {
	mcpHTTP := server.NewStreamableHTTPServer(s.mcp,
		server.WithEndpointPath(EndpointPath),
		server.WithStreamableHTTPLogger(s.log),
		// Tools send no notifications, so there is nothing to stream on GET;
		// this also lets Stop finish without waiting on idle streams.
		server.WithDisableStreaming(true),
	)
	s.mcpHTTP.Store(mcpHTTP)
	mux := http.NewServeMux()
	mux.Handle(EndpointPath, s.guard(port, mcpHTTP))
	return mux
}

// dropSessions makes mcp-go let go of sessions the session table dropped:
// a DELETE of each, as a client ending it sends, to the transport (which
// frees its own state and the server's), and the server's registration in
// case the transport that opened it is an earlier Handler's.
func (s *Server) dropSessions(ids []string) {
	h := s.mcpHTTP.Load()
	for _, id := range ids {
		if h != nil {
			r, err := http.NewRequest(http.MethodDelete, "http://127.0.0.1"+EndpointPath, nil)
			if err == nil {
				r.Header.Set(server.HeaderKeySessionID, id)
				h.ServeHTTP(discardResponse{}, r)
			}
		}
		s.mcp.UnregisterSession(context.Background(), id)
	}
}

// discardResponse is a ResponseWriter for the server's own requests to
// mcp-go, whose answers nobody reads.
type discardResponse struct{}

func (discardResponse) Header() http.Header         { return http.Header{} }
func (discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (discardResponse) WriteHeader(int)             {}

// Start listens on addr (DefaultAddr if empty), which must be loopback,
// and serves in the background until Stop.
func (s *Server) Start(addr string) error {
	if s.tokens == nil {
		return errors.New("start MCP server: no token store, so no HTTP client could authenticate")
	}
	addr, err := NormalizeAddr(addr)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.http != nil {
		return fmt.Errorf("MCP server is already listening on %s", s.ln.Addr())
	}
	// No keyring check here: Authenticate needs only the catalog's hashes,
	// so a locked or missing keyring must not keep clients out.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if portInUse(err) {
			return fmt.Errorf("cannot listen on %s: port %s %w (is another `ireneo serve` or the Ireneo tray app running?); stop it or choose another port with --addr 127.0.0.1:PORT", addr, portOf(addr), ErrPortInUse)
		}
		return fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	hs := &http.Server{
		Handler:           s.Handler(port),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      s.opts.CallTimeout + s.opts.QueueWait + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	done := make(chan struct{})
	s.http, s.ln, s.done = hs, ln, done
	go func() {
		defer close(done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("MCP HTTP server stopped", "err", err)
		}
	}()
	s.log.Info("MCP server listening", "url", URLFor(ln.Addr().String()))
	return nil
}

func portOf(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

// Addr is the address the server listens on, or "" when it is not running.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// URL is the MCP endpoint URL, or "" when the server is not running.
func (s *Server) URL() string {
	if a := s.Addr(); a != "" {
		return URLFor(a)
	}
	return ""
}

// Running reports whether the HTTP listener is up.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.http != nil
}

// Stop stops the HTTP listener, letting calls in flight finish until ctx
// ends, and writes out the audit log. The server can be started again.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	hs, done := s.http, s.done
	s.http, s.ln, s.done = nil, nil, nil
	s.mu.Unlock()
	var err error
	if hs != nil {
		if err = hs.Shutdown(ctx); err != nil {
			hs.Close()
		}
		<-done
	}
	s.audit.flush()
	return err
}

// Close stops everything for good: the listener, if any, and the audit
// writer, after writing what it holds.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.Stop(ctx)
	s.audit.close()
	return err
}

// FlushAudit waits until every call so far is in the audit log.
func (s *Server) FlushAudit() { s.audit.flush() }

// ServeStdio serves MCP over in and out (a client that started `ireneo mcp`)
// until in ends or ctx is cancelled. Calls are audited as client "stdio" and
// see the whole memory: whoever can start the process can read the files.
// Logs go to the server's Logger, never to out.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ss := server.NewStdioServer(s.mcp)
	ss.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	ss.SetContextFunc(func(ctx context.Context) context.Context { return withCaller(ctx, StdioCaller) })
	err := ss.Listen(ctx, in, out)
	s.audit.flush()
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("stdio MCP server: %w", err)
	}
	return nil
}
