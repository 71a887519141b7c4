package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/config"
	"github.com/ireneo-app/ireneo/settings"
)

// testConfig is a configuration of its own for one test, touching no
// environment, so tests that use it can run in parallel.
func testConfig(t *testing.T, mem string) config.Config {
	t.Helper()
	return config.Config{Version: "test", MemoryDir: mem, Dir: t.TempDir(), Settings: settings.Default()}
}

// runCfg runs the CLI with cfg in process and returns the exit code and both
// streams.
func runCfg(t *testing.T, cfg config.Config, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := RunConfig(context.Background(), cfg, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestRecallDefaultsFromSettings: default_top_k and default_token_budget
// are what `recall` returns without -k and --budget; the flags still win.
func TestRecallDefaultsFromSettings(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, seed(t))
	var res struct {
		Hits        []json.RawMessage `json:"hits"`
		Budget      int               `json:"budget"`
		TotalTokens int               `json:"total_tokens"`
	}
	recall := func(args ...string) {
		t.Helper()
		code, out, errs := runCfg(t, cfg, append([]string{"recall", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("recall: %d %s", code, errs)
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Settings.DefaultK, cfg.Settings.DefaultBudget = 3, 5000
	recall("pump seal")
	if len(res.Hits) != 3 || res.Budget != 5000 {
		t.Errorf("default_top_k 3, budget 5000: %d hits, budget %d", len(res.Hits), res.Budget)
	}
	cfg.Settings.DefaultK, cfg.Settings.DefaultBudget = 10, 200
	recall("pump seal")
	if res.Budget != 200 || res.TotalTokens > 200 || len(res.Hits) >= 10 {
		t.Errorf("default_token_budget 200: %d hits, %d tokens, budget %d", len(res.Hits), res.TotalTokens, res.Budget)
	}
	recall("-k", "2", "--budget", "4000", "pump seal")
	if len(res.Hits) != 2 || res.Budget != 4000 {
		t.Errorf("flags over the settings: %d hits, budget %d", len(res.Hits), res.Budget)
	}
}

// TestServerAddrFromSettings: server_addr is where `serve` listens and what
// `connect` writes into a client's config unless --addr says otherwise.
func TestServerAddrFromSettings(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	cfg.Settings.ServerAddr = "127.0.0.1:47333"
	root := NewRoot(cfg, strings.NewReader(""), io.Discard, io.Discard)
	for _, name := range []string{"serve", "connect"} {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		if def := c.Flags().Lookup("addr").DefValue; def != cfg.Settings.ServerAddr {
			t.Errorf("%s --addr defaults to %q, want the setting %q", name, def, cfg.Settings.ServerAddr)
		}
	}
	code, out, errs := runCfg(t, cfg, "connect", "claude-desktop")
	if code != 0 {
		t.Fatalf("connect: %d %s", code, errs)
	}
	if strings.Contains(out, "47119") {
		t.Errorf("connect ignored server_addr:\n%s", out)
	}
}

// TestMCPRecallDefaultsFromSettings: an agent that names no top_k gets
// default_top_k passages over `ireneo mcp`, and the tool says so.
func TestMCPRecallDefaultsFromSettings(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, seed(t))
	cfg.Settings.DefaultK = 2
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- RunConfig(ctx, cfg, []string{"mcp"}, inR, outW, io.Discard)
		outW.Close()
	}()
	c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if b, _ := json.Marshal(tl); tl.Name == "recall" && !strings.Contains(string(b), "default 2,") {
			t.Errorf("recall's schema does not give the default top_k 2: %s", b)
		}
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "recall"
	req.Params.Arguments = map[string]any{"query": "pump seal"}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var got struct{ Hits []json.RawMessage }
	json.Unmarshal(b, &got)
	if len(got.Hits) != 2 {
		t.Errorf("recall without top_k: %d hits, want default_top_k 2", len(got.Hits))
	}
	inW.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("mcp did not exit at end of input")
	}
}

// TestFileTokenStoreInConfigDir: the file token store lives in the
// configured settings folder ($IRENEO_CONFIG), like settings.json.
func TestFileTokenStoreInConfigDir(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	code, _, errs := runCfg(t, cfg, "token", "create", "laptop", "--token-store", "file")
	if code != 0 {
		t.Fatalf("token create: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, config.TokenFileName)); err != nil {
		t.Errorf("no token file in the config folder: %v (warning said: %s)", err, errs)
	}
}

// TestMemoryFlagOverConfig: --memory beats the configured directory.
func TestMemoryFlagOverConfig(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	other := t.TempDir()
	code, out, errs := runCfg(t, cfg, "--memory", other, "status")
	if code != 0 || !strings.Contains(out, other) {
		t.Fatalf("status --memory %s: %d\n%s%s", other, code, out, errs)
	}
	code, out, _ = runCfg(t, cfg, "status")
	if code != 0 || !strings.Contains(out, cfg.MemoryDir) {
		t.Fatalf("status: %d\n%s", code, out)
	}
}

// TestUnreadableSettingsStopOnlyWhatNeedsThem: a broken settings.json stops
// an import (it might carry the person's secret patterns) but not a recall.
func TestUnreadableSettingsStopOnlyWhatNeedsThem(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, seed(t))
	os.WriteFile(cfg.SettingsPath(), []byte("{broken"), 0o600)
	cfg.Settings, cfg.SettingsErr = settings.LoadFrom(cfg.Dir)
	if code, _, errs := runCfg(t, cfg, "import", t.TempDir()); code == 0 || !strings.Contains(errs, cfg.SettingsPath()) {
		t.Errorf("import with broken settings: %d %s; want it refused naming the file", code, errs)
	}
	if code, _, errs := runCfg(t, cfg, "recall", "pump"); code != 0 {
		t.Errorf("recall with broken settings: %d %s", code, errs)
	}
}
