package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// Fixture conversations: one per project and one untagged. Each carries a
// marker that must never reach a token scoped away from it.
const (
	markerAlpha  = "ALPHAMARK"
	markerBeta   = "BETAMARK"
	markerGlobal = "GLOBALMARK"
)

func fixtureSessions() []*funes.Session {
	t0 := time.Date(2026, 10, 8, 9, 14, 0, 0, time.UTC)
	mk := func(id, harness, project, title, marker string, day int) *funes.Session {
		ts := t0.AddDate(0, 0, day)
		return &funes.Session{
			ID: id, Harness: harness, Title: title, Project: project,
			Turns: []funes.Turn{
				{TurnUUID: id + "-u0", Seq: 0, TS: ts, Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: "What price did we settle for MT-4471 in " + title + "?"}}},
				{TurnUUID: id + "-u1", Seq: 1, TS: ts.Add(time.Minute), Role: funes.RoleAssistant, Blocks: []funes.Block{{Type: funes.BlockText, Text: "For MT-4471 we settled on the figure recorded here: " + marker + " 42 EUR per seat."}}},
				{TurnUUID: id + "-u2", Seq: 2, TS: ts.Add(2 * time.Minute), Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: "Thanks, noted " + marker + " for the quarterly review."}}},
			},
		}
	}
	return []*funes.Session{
		mk("conv-alpha", funes.HarnessChatGPT, "alpha", "Alpha pricing", markerAlpha, 0),
		mk("conv-beta", funes.HarnessClaude, "beta", "Beta pricing", markerBeta, 1),
		mk("conv-global", funes.HarnessCodex, "", "Global pricing", markerGlobal, 2),
	}
}

// newFixtureMemory opens a memory in a temp dir holding fixtureSessions.
func newFixtureMemory(t testing.TB) *memory.Memory {
	t.Helper()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if _, err := m.Ingest(context.Background(), fixtureSessions(), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return m
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testServer is a running HTTP server over the fixture memory, with tokens.
type testServer struct {
	*Server
	mem    *memory.Memory
	url    string
	full   string // unscoped token
	scoped string // token scoped to alpha
}

func startTestServer(t testing.TB, opts Options) *testServer {
	t.Helper()
	m := newFixtureMemory(t)
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	opts.validateOutput = true
	s := New(m, NewMemoryTokenStore(), opts)
	ctx := context.Background()
	full, _, err := s.Tokens().Create(ctx, "full", nil)
	if err != nil {
		t.Fatal(err)
	}
	scoped, _, err := s.Tokens().Create(ctx, "scoped", []string{"alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &testServer{Server: s, mem: m, url: s.URL(), full: full, scoped: scoped}
}

// connect makes an initialized mcp-go client over HTTP with a token.
func connect(t testing.TB, url, token string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	c, err := dial(url, token, opts...)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func dial(url, token string, opts ...client.ClientOption) (*client.Client, error) {
	hdr := map[string]string{}
	if token != "" {
		hdr["Authorization"] = "Bearer " + token
	}
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(hdr))
	if err != nil {
		return nil, err
	}
	c := client.NewClient(tr, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "ireneo-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func callTool(t testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// resultText joins a result's text content.
func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// resultJSON is a result's whole encoding, for leak checks.
func resultJSON(t testing.TB, r *mcp.CallToolResult) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// structured decodes a result's structured content into v.
func structured(t testing.TB, r *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(r.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// rawPost sends one JSON-RPC request over plain HTTP with the given headers.
func rawPost(t testing.TB, url string, hdr map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func bearer(tok string) string { return fmt.Sprintf("Bearer %s", tok) }

func toolRequest(name string, args map[string]any) mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return req
}

func initRequest() mcp.InitializeRequest {
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "ireneo-test", Version: "1"}
	return req
}
