// Package mcptest is the client side of the MCP tests: a memory of three
// fixture conversations with markers, mcp-go clients over HTTP, tool calls
// and their text, and the ireneo binary built from this checkout. It does
// not import mcpserver, so the server's own tests use it too; it is
// imported by tests only.
package mcptest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
	MarkerAlpha  = "ALPHAMARK"
	MarkerBeta   = "BETAMARK"
	MarkerGlobal = "GLOBALMARK"
)

// FixtureSessions are the three fixture conversations, about MT-4471.
func FixtureSessions() []*funes.Session {
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
		mk("conv-alpha", funes.HarnessChatGPT, "alpha", "Alpha pricing", MarkerAlpha, 0),
		mk("conv-beta", funes.HarnessClaude, "beta", "Beta pricing", MarkerBeta, 1),
		mk("conv-global", funes.HarnessCodex, "", "Global pricing", MarkerGlobal, 2),
	}
}

// NewFixtureMemory opens a memory in a temp dir holding FixtureSessions.
func NewFixtureMemory(t testing.TB) *memory.Memory {
	t.Helper()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if _, err := m.Ingest(context.Background(), FixtureSessions(), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return m
}

// Connect makes an initialized mcp-go client over HTTP with a token.
func Connect(t testing.TB, url, token string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	c, err := Dial(url, token, opts...)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Dial is Connect that returns its error, for the refusals.
func Dial(url, token string, opts ...client.ClientOption) (*client.Client, error) {
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
	if _, err := c.Initialize(ctx, InitRequest()); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// CallTool calls a tool and fails the test on a transport error.
func CallTool(t testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
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

// ResultText joins a result's text content.
func ResultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// InitRequest is the initialize request the test clients send.
func InitRequest() mcp.InitializeRequest {
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "ireneo-test", Version: "1"}
	return req
}

// BuildIreneo builds the ireneo binary from the repository root, as a
// client that starts `ireneo mcp` would run it.
func BuildIreneo(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the whole app; skipped with -short")
	}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	if _, err := os.Stat(filepath.Join(root, "main.go")); err != nil {
		t.Skip("no main.go at the repository root yet")
	}
	bin := filepath.Join(t.TempDir(), "ireneo")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
