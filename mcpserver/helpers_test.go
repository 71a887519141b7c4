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

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/mcpserver/mcptest"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// The fixture memory and the client side are mcptest's, shared with the
// tests of the packages that drive this server.
const (
	markerAlpha  = mcptest.MarkerAlpha
	markerBeta   = mcptest.MarkerBeta
	markerGlobal = mcptest.MarkerGlobal
)

var (
	newFixtureMemory = mcptest.NewFixtureMemory
	connect          = mcptest.Connect
	dial             = mcptest.Dial
	callTool         = mcptest.CallTool
	resultText       = mcptest.ResultText
	initRequest      = mcptest.InitRequest
)

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
	s := New(m, tokenstore.NewMemoryTokenStore(), opts)
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
