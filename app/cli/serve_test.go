package cli

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/funes"
)

// seedMemory puts two conversations, in projects alpha and beta, in dir.
func seedMemory(t *testing.T, dir string) {
	t.Helper()
	ts := time.Date(2026, 10, 8, 9, 14, 0, 0, time.UTC)
	var ss []*funes.Session
	for _, p := range []string{"alpha", "beta"} {
		ss = append(ss, &funes.Session{ID: "conv-" + p, Harness: funes.HarnessChatGPT, Title: p + " pricing", Project: p,
			Turns: []funes.Turn{{TurnUUID: p + "-0", TS: ts, Role: funes.RoleUser,
				Blocks: []funes.Block{{Type: funes.BlockText, Text: "MT-4471 price for " + p + " is MARK" + strings.ToUpper(p)}}}}})
	}
	storeSessions(t, dir, ss...)
}

func mcpClient(t *testing.T, url, token string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "cli-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

func recallText(t *testing.T, c *client.Client, query string) string {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = "recall"
	req.Params.Arguments = map[string]any{"query": query}
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// startServe runs `ireneo serve` in process until the test ends, and returns
// the URL it printed.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append(args, "serve", "--addr", "127.0.0.1:0"), strings.NewReader(""), &out, &errb)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("serve exited %d: %s", code, errb.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
	})
	re := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if u := re.FindString(out.String()); u != "" {
			return u
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s %s", code, out.String(), errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("serve printed no URL: %s %s", out.String(), errb.String())
	return ""
}

// TestServeTokensAudit: the whole loop through the CLI — make a scoped
// token, serve, call as an agent would, read the audit — with the real
// keyring when the run has one, else the file store.
func TestServeTokensAudit(t *testing.T) {
	home, mem := mcpEnv(t)
	seedMemory(t, mem)
	store := "file"
	if os.Getenv("IRENEO_TEST_KEYRING") != "" {
		store = "keyring"
	}
	m := "--memory=" + mem
	code, out, errs := ireneo(t, m, "token", "create", "agent", "--project", "alpha", "--json", "--token-store", store)
	if code != 0 {
		t.Fatalf("create: %s", errs)
	}
	var created struct{ Secret string }
	json.Unmarshal([]byte(out), &created)

	url := startServe(t, m, "--token-store", store)
	c := mcpClient(t, url, created.Secret)
	got := recallText(t, c, "MT-4471")
	if !strings.Contains(got, "MARKALPHA") || strings.Contains(got, "MARKBETA") {
		t.Fatalf("scoped recall through serve:\n%s", got)
	}
	recallText(t, c, "zebra")

	// The audit shows both calls; it is written as calls finish.
	var entries []auditlog.Entry
	for range 100 {
		_, out, _ = ireneo(t, m, "audit", "--json", "--client", "agent")
		json.Unmarshal([]byte(out), &entries)
		if len(entries) == 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(entries) != 2 || entries[0].Outcome != auditlog.NoMatch || entries[1].Outcome != auditlog.OK || entries[1].Hits != 1 {
		t.Fatalf("audit --json: %s", out)
	}
	code, out, _ = ireneo(t, m, "audit")
	if code != 0 || !strings.Contains(out, "agent") || !strings.Contains(out, `{"query":"MT-4471"}`) {
		t.Fatalf("audit:\n%s", out)
	}
	if _, out, _ = ireneo(t, m, "audit", "--client", "someone-else"); !strings.Contains(out, "No calls") {
		t.Fatalf("audit --client filter:\n%s", out)
	}

	if store == "keyring" {
		// Only the keyring holds the secret: not the memory, not the config.
		for _, dir := range []string{mem, filepath.Join(home, ".config")} {
			filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				if b, _ := os.ReadFile(path); strings.Contains(string(b), strings.TrimPrefix(created.Secret, "ireneo_")) {
					t.Errorf("token secret found in %s", path)
				}
				return nil
			})
		}
	}
}

func TestServeRefusesNonLoopback(t *testing.T) {
	_, mem := mcpEnv(t)
	for _, addr := range []string{"0.0.0.0:47119", ":47119", "192.168.0.10:47119", "[::]:1"} {
		code, _, errs := ireneo(t, "--memory="+mem, "serve", "--addr", addr, "--token-store", "file")
		if code != ExitUsage || !strings.Contains(errs, "not a loopback address") {
			t.Errorf("serve --addr %s: %d %s", addr, code, errs)
		}
	}
}

// TestMCPStdio drives `ireneo mcp` in process with mcp-go's stdio client:
// it answers on stdout and keeps stdout clean of logs.
func TestMCPStdio(t *testing.T) {
	_, mem := mcpEnv(t)
	seedMemory(t, mem)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"--memory=" + mem, "mcp"}, inR, outW, &errb)
		outW.Close()
	}()
	c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "cli-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	got := recallText(t, c, "MT-4471")
	if !strings.Contains(got, "MARKALPHA") || !strings.Contains(got, "MARKBETA") {
		t.Fatalf("stdio recall:\n%s", got)
	}
	inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("mcp exited %d: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mcp did not exit at end of input")
	}
	cancel()
	c.Close()
	if _, out, _ := ireneo(t, "--memory="+mem, "audit", "--json", "--client", "stdio"); !strings.Contains(out, `"tool": "recall"`) {
		t.Fatalf("stdio call not audited: %s", out)
	}
}
