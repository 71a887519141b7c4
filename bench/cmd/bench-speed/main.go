// Command bench-speed measures recall at a heavy user's scale (issue 10):
// a lifelike memory of 10,000 conversations (about 20M tokens), built once
// into a cache folder through the importers, asked the lifelike questions in
// process and over MCP Streamable HTTP (an mcp-go client against
// mcpserver), beside the plain-FTS5 floor's SQL over the same turns, in the
// same run. See bench/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/bench/recallbench"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/recall"
)

func main() {
	var (
		n     = flag.Int("n", 10000, "conversations in the lifelike history")
		seed  = flag.Int64("seed", 1, "lifelike seed")
		cache = flag.String("cache", "", "where the imported memory is kept (default: the user cache dir)")
		qs    = flag.Int("q", 300, "questions asked (spread over the types)")
		build = flag.Bool("build-only", false, "build the cached memory and stop")
	)
	flag.Parse()
	ctx := context.Background()
	t0 := time.Now()
	m, memDir, d, err := recallbench.LifelikeMemory(ctx, *cache, *n, *seed, os.Stderr)
	if err != nil {
		fail(err)
	}
	defer m.Close()
	st, err := m.Status(ctx)
	if err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "memory %s: %d conversations, %d chunks, %d tokens (ready in %v)\n", memDir, st.Conversations, st.Chunks, st.Tokens, time.Since(t0).Round(time.Second))
	if *build {
		return
	}
	stored, err := recallbench.ReadSources(memDir)
	if err != nil {
		fail(err)
	}
	tmp, err := os.MkdirTemp("", "ireneo-bench-speed-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	fl, err := recallbench.OpenFloor(ctx, filepath.Join(tmp, "floor.db"), stored)
	if err != nil {
		fail(err)
	}
	defer fl.Close()

	s := mcpserver.New(m, mcpserver.NewMemoryTokenStore(), mcpserver.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	tok, _, err := s.Tokens().Create(ctx, "bench-speed", nil)
	if err != nil {
		fail(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		fail(err)
	}
	defer s.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}}
	tr, err := transport.NewStreamableHTTP(s.URL(), transport.WithHTTPBasicClient(hc),
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	if err != nil {
		fail(err)
	}
	c := client.NewClient(tr)
	if err := c.Start(ctx); err != nil {
		fail(err)
	}
	defer c.Close()
	ir := mcp.InitializeRequest{}
	ir.Params.ClientInfo = mcp.Implementation{Name: "bench-speed", Version: "1"}
	if _, err := c.Initialize(ctx, ir); err != nil {
		fail(err)
	}

	// Every k-th question, so all types are asked.
	step := max(1, len(d.Questions) / *qs)
	var texts []string
	for i := 0; i < len(d.Questions) && len(texts) < *qs; i += step {
		texts = append(texts, d.Questions[i].Text)
	}
	var floor, inproc, overHTTP []time.Duration
	for _, q := range texts {
		start := time.Now()
		if _, err := fl.Search(ctx, q, time.Time{}, recall.DefaultK); err != nil {
			fail(err)
		}
		floor = append(floor, time.Since(start))
		start = time.Now()
		if _, err := recall.Recall(ctx, m, recall.Options{Query: q}); err != nil && err != recall.ErrEmptyQuery {
			fail(err)
		}
		inproc = append(inproc, time.Since(start))
		req := mcp.CallToolRequest{}
		req.Params.Name = mcpserver.ToolRecall
		req.Params.Arguments = map[string]any{"query": q}
		start = time.Now()
		res, err := c.CallTool(ctx, req)
		if err != nil {
			fail(err)
		}
		overHTTP = append(overHTTP, time.Since(start))
		if res.IsError {
			fmt.Fprintf(os.Stderr, "recall %q over MCP: tool error\n", q)
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("lifelike N=%d: %d conversations, %d tokens; %d questions, each asked of the floor, in process and over MCP HTTP in turn; load %s\n",
		*n, st.Conversations, st.Tokens, len(texts), string(load[:min(len(load), 14)]))
	fmt.Println("| | p50 ms | p95 ms | p50 / floor | p95 / floor |")
	fmt.Println("|---|---:|---:|---:|---:|")
	fp50, fp95 := pct(floor, .5), pct(floor, .95)
	for _, r := range []struct {
		name string
		ds   []time.Duration
	}{{"floor (plain FTS5 SQL)", floor}, {"recall in process", inproc}, {"recall over MCP HTTP", overHTTP}} {
		p50, p95 := pct(r.ds, .5), pct(r.ds, .95)
		fmt.Printf("| %s | %.1f | %.1f | %.2f | %.2f |\n", r.name, ms(p50), ms(p95), float64(p50)/float64(fp50), float64(p95)/float64(fp95))
	}
}

func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench-speed:", err)
	os.Exit(1)
}
