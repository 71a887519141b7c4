package mcpserver

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// stdioPipeClient serves s over in-process pipes and returns an initialized
// mcp-go stdio client on the other end.
func stdioPipeClient(t testing.TB, s *Server) *client.Client {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, sr, sw) }()
	c := client.NewClient(transport.NewIO(cr, cw, io.NopCloser(strings.NewReader(""))))
	t.Cleanup(func() {
		c.Close()
		cw.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return")
		}
		sw.Close()
	})
	ictx, icancel := context.WithTimeout(ctx, 10*time.Second)
	defer icancel()
	if err := c.Start(ictx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "ireneo-test", Version: "1"}
	if _, err := c.Initialize(ictx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestStdioInProcess(t *testing.T) {
	m := newFixtureMemory(t)
	s := New(m, nil, Options{Logger: quietLogger()})
	defer s.Close()
	c := stdioPipeClient(t, s)
	res := callTool(t, c, ToolRecall, map[string]any{"query": "MT-4471"})
	if res.IsError {
		t.Fatal(resultText(res))
	}
	for _, mk := range []string{markerAlpha, markerBeta, markerGlobal} {
		if !strings.Contains(resultText(res), mk) {
			t.Errorf("stdio sees everything, but %s is missing", mk)
		}
	}
	s.FlushAudit()
	es, _ := auditlog.List(context.Background(), m, auditlog.Query{})
	if len(es) != 1 || es[0].Client != "stdio" || es[0].Tool != ToolRecall {
		t.Fatalf("audit = %+v", es)
	}
}
