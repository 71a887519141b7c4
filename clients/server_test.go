package clients

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/mcpserver/mcptest"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// testServer is a real MCP server on loopback over the fixture memory, with
// an unscoped token, for the configs to reach.
type testServer struct {
	url  string
	full string // the unscoped token's secret
}

func startTestServer(t testing.TB, opts mcpserver.Options) *testServer {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := mcpserver.New(mcptest.NewFixtureMemory(t), tokenstore.NewMemoryTokenStore(), opts)
	full, _, err := s.Tokens().Create(context.Background(), "full", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &testServer{url: s.URL(), full: full}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
