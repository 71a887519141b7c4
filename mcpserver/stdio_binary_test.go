package mcpserver

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/mcpserver/mcptest"
)

var buildIreneo = mcptest.BuildIreneo

// TestStdioBinary: mcp-go's stdio client starts the real `ireneo mcp`.
func TestStdioBinary(t *testing.T) {
	bin := buildIreneo(t)
	m := newFixtureMemory(t)
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home, "LANG=en_US.UTF-8", "PATH=" + os.Getenv("PATH")}
	c, err := client.NewStdioMCPClient(bin, env, "--memory", m.Dir(), "mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, initRequest()); err != nil {
		t.Fatal(err)
	}
	res := callTool(t, c, ToolRecall, map[string]any{"query": "MT-4471"})
	if res.IsError || !strings.Contains(resultText(res), markerGlobal) {
		t.Fatalf("recall over stdio: %s", resultText(res))
	}
	var tr GetOutput
	res = callTool(t, c, ToolGet, map[string]any{"session_id": "conv-beta", "turn_uuid": "conv-beta-u1", "window": 1})
	structured(t, res, &tr)
	if res.IsError || len(tr.Turns) != 3 || !tr.Turns[1].Focus {
		t.Fatalf("get over stdio: %s", resultText(res))
	}
	c.Close()
	// The child wrote its audit entries before exiting.
	deadline := time.Now().Add(5 * time.Second)
	for {
		es, _ := auditlog.List(context.Background(), m, auditlog.Query{Client: "stdio"})
		if len(es) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stdio calls audited: %d, want 2", len(es))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
