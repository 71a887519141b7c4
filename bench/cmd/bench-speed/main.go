// Command bench-speed measures recall at a heavy user's scale (issue 10):
// a lifelike memory of 10,000 conversations (about 20M tokens), built once
// into a cache folder through the importers, asked the lifelike questions in
// process and over MCP Streamable HTTP (an mcp-go client against
// mcpserver), beside the plain-FTS5 floor's SQL over the same turns, in the
// same run. See bench/README.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/bench/cputime"
	"github.com/ireneo-app/ireneo/bench/mcpprocess"
	"github.com/ireneo-app/ireneo/bench/recallbench"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
	"github.com/ireneo-app/ireneo/tokenstore"
)

func main() {
	var (
		n      = flag.Int("n", 10000, "conversations in the lifelike history")
		seed   = flag.Int64("seed", 1, "lifelike seed")
		cache  = flag.String("cache", "", "where the imported memory is kept (default: the user cache dir)")
		qs     = flag.Int("q", 300, "questions asked (spread over the types)")
		build  = flag.Bool("build-only", false, "build the cached memory and stop")
		exact  = flag.Bool("check-exact", false, "also score every match of each question's candidate query and fail if the engine's pruned top-k differs (slow; no timings)")
		prof   = flag.String("cpuprofile", "", "write a CPU profile of the in-process recalls to this file")
		noMCP  = flag.Bool("no-mcp", false, "skip the floor and MCP HTTP (in-process recalls only)")
		cands  = flag.String("candidates", "", "with -no-mcp: comma-separated engine candidate counts (recall.Tuning.Candidates), each question asked of each in turn beside the shipped pipeline")
		tune   = flag.String("tune", "", "with -no-mcp: configurations NAME:Field=value,… (fields of recall.Tuning, as bench-recall takes them), space-separated, each question asked of each in turn beside the shipped pipeline")
		mprof  = flag.String("mcpprofile", "", "write a CPU profile of the MCP HTTP recalls (client and server) to this file")
		bin    = flag.String("ireneo", "", "the ireneo binary whose `mcp` start and `serve` RSS are measured (default: build it)")
		procs  = flag.Int("starts", 20, "how many times `ireneo mcp` (and the `--version` floor) is started; 0 skips the process measurements")
		resF   = flag.String("results", "", "with -no-mcp: write each recall's result as JSON (pipeline, question index, result; tab-separated) to this file, to compare two builds' outputs")
		timesF = flag.String("times", "", "with -no-mcp: write each recall's pipeline, question index, CPU ms, wall ms and question to this file (tab-separated)")
		pOnly  = flag.Bool("processes-only", false, "measure only the real processes (`ireneo mcp` start, `serve` RSS), not the floor, in process or MCP in process")
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
	// Every k-th question, so all types are asked.
	step := max(1, len(d.Questions) / *qs)
	var texts []string
	for i := 0; i < len(d.Questions) && len(texts) < *qs; i += step {
		texts = append(texts, d.Questions[i].Text)
	}
	if *exact {
		for _, q := range texts {
			if _, err := recall.Recall(ctx, m, recall.Options{Query: q, CheckExact: true}); err != nil && err != recall.ErrEmptyQuery {
				fail(fmt.Errorf("%q: %w", q, err))
			}
		}
		fmt.Printf("lifelike N=%d: %d questions, the engine's pruned top-k equal to the exhaustive one on every one\n", *n, len(texts))
		return
	}
	if *pOnly {
		processes(ctx, m, memDir, *bin, texts, max(1, *procs))
		return
	}
	if *noMCP {
		runs := []tuned{{name: "shipped"}}
		// -candidates N is -tune "Candidates=N:Candidates=N".
		var specs []string
		for _, c := range strings.Split(*cands, ",") {
			if c = strings.TrimSpace(c); c == "" {
				continue
			}
			if n, err := strconv.Atoi(c); err != nil || n < 1 {
				fail(fmt.Errorf("-candidates: %q is not a positive count", c))
			}
			specs = append(specs, "Candidates="+c+":Candidates="+c)
		}
		cfgs, err := recallbench.ParseTuning(strings.Join(append(specs, *tune), " "))
		if err != nil {
			fail(fmt.Errorf("-tune: %w", err))
		}
		for _, c := range cfgs {
			var o recall.Options
			c.Apply(&o)
			runs = append(runs, tuned{name: c.Name, tn: o.Tuning})
		}
		if *resF != "" {
			f, err := os.Create(*resF)
			if err != nil {
				fail(err)
			}
			defer f.Close()
			resultsOut = f
		}
		inProcess(ctx, m, texts, *prof, *timesF, runs)
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

	s := mcpserver.New(m, tokenstore.NewMemoryTokenStore(), mcpserver.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	tok, _, err := s.Tokens().Create(ctx, fmt.Sprintf("bench-speed-%d", time.Now().UnixNano()), nil)
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

	if *mprof != "" {
		stop := cpuProfile(*mprof)
		defer stop()
	}
	// Each question is asked of the floor, then of recall in process and
	// over MCP, whichever goes first in alternating order: the first ask of
	// a question pays for its cold pages and engine blocks (as a person's
	// new question does), the second reads them warm. Then what MCP adds:
	// the MCP call beside the question asked in process again, both warm,
	// again in alternating order so neither is always the warmer one.
	var floor, overhead []time.Duration
	var inFirst, inAgain, mcpFirst, mcpAgain []time.Duration
	askInProcess := func(q string) time.Duration {
		start := time.Now()
		if _, err := recall.Recall(ctx, m, recall.Options{Query: q}); err != nil && err != recall.ErrEmptyQuery {
			fail(err)
		}
		return time.Since(start)
	}
	askMCP := func(q string) time.Duration {
		req := mcp.CallToolRequest{}
		req.Params.Name = mcpserver.ToolRecall
		req.Params.Arguments = map[string]any{"query": q}
		start := time.Now()
		res, err := c.CallTool(ctx, req)
		if err != nil {
			fail(err)
		}
		d := time.Since(start)
		if res.IsError {
			var msg string
			for _, c := range res.Content {
				if t, ok := c.(mcp.TextContent); ok {
					msg += t.Text
				}
			}
			fmt.Fprintf(os.Stderr, "recall %q over MCP: tool error: %s\n", q, msg)
		}
		return d
	}
	for qi, q := range texts {
		start := time.Now()
		if _, err := fl.Search(ctx, q, time.Time{}, recall.DefaultK); err != nil {
			fail(err)
		}
		floor = append(floor, time.Since(start))
		if qi%2 == 0 {
			inFirst = append(inFirst, askInProcess(q))
			mcpAgain = append(mcpAgain, askMCP(q))
		} else {
			mcpFirst = append(mcpFirst, askMCP(q))
			inAgain = append(inAgain, askInProcess(q))
		}
		var tHTTP, tWarm time.Duration
		for k := range 2 {
			if (k+qi)%2 == 0 {
				tHTTP = askMCP(q)
			} else {
				tWarm = askInProcess(q)
			}
		}
		overhead = append(overhead, tHTTP-tWarm)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("lifelike N=%d: %d conversations, %d tokens; %d questions, each asked of the floor, then of recall in process and over MCP HTTP, which first alternating (half the questions each); load %s\n",
		*n, st.Conversations, st.Tokens, len(texts), string(load[:min(len(load), 14)]))
	fmt.Println("| | questions | p50 ms | p95 ms | p50 / floor | p95 / floor |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	fp50, fp95 := pct(floor, .5), pct(floor, .95)
	for _, r := range []struct {
		name string
		ds   []time.Duration
	}{{"floor (plain FTS5 SQL)", floor},
		{"recall in process, first ask", inFirst}, {"recall in process, asked again", inAgain},
		{"recall over MCP HTTP, first ask", mcpFirst}, {"recall over MCP HTTP, asked again", mcpAgain}} {
		p50, p95 := pct(r.ds, .5), pct(r.ds, .95)
		fmt.Printf("| %s | %d | %.1f | %.1f | %.2f | %.2f |\n", r.name, len(r.ds), ms(p50), ms(p95), float64(p50)/float64(fp50), float64(p95)/float64(fp95))
	}
	fmt.Printf("MCP HTTP over the same question asked in process again, in alternating order (auth, audit, shaping, JSON, HTTP): p50 %.2f ms, p95 %.2f ms\n", ms(pct(overhead, .5)), ms(pct(overhead, .95)))
	c.Close()
	s.Close()
	if *procs > 0 {
		processes(ctx, m, memDir, *bin, texts, *procs)
	}
}

// processes measures real ireneo processes over the memory: `ireneo mcp`
// answering initialize from its start, beside `ireneo --version`, and
// `ireneo serve`'s RSS after 300 recalls.
func processes(ctx context.Context, m *memory.Memory, memDir, bin string, texts []string, starts int) {
	tmp, err := os.MkdirTemp("", "ireneo-bench-procs-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		root, err := moduleRoot(ctx)
		if err != nil {
			fail(err)
		}
		bin = filepath.Join(tmp, "ireneo")
		if err := mcpprocess.Build(ctx, root, bin); err != nil {
			fail(err)
		}
	}
	env := mcpprocess.Env(tmp)
	// BENCH_SPEED_SERVE_ENV adds variables to the children's environment
	// (GOGC=50, GOMEMLIMIT=80MiB), to compare what they do to RSS.
	if os.Getenv("BENCH_SPEED_SERVE_ENV") != "" {
		env = append(env, strings.Fields(os.Getenv("BENCH_SPEED_SERVE_ENV"))...)
	}
	rs, err := mcpprocess.Measure(ctx, bin, memDir, texts[0], env, starts)
	if err != nil {
		fail(err)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("`ireneo mcp` started %d times with mcp-go's stdio client, each beside `ireneo --version`; load %s\n", starts, string(load[:min(len(load), 14)]))
	fmt.Println("| | p50 ms | p95 ms | min ms | p50 CPU ms |")
	fmt.Println("|---|---:|---:|---:|---:|")
	row := func(name string, f, cpu func(mcpprocess.Round) time.Duration) {
		fmt.Printf("| %s | %.1f | %.1f | %.1f | %.1f |\n", name, ms(mcpprocess.Pct(rs, .5, f)), ms(mcpprocess.Pct(rs, .95, f)), ms(mcpprocess.Pct(rs, 0, f)), ms(mcpprocess.Pct(rs, .5, cpu)))
	}
	zero := func(mcpprocess.Round) time.Duration { return 0 }
	row("floor: `ireneo --version`, start to exit", func(r mcpprocess.Round) time.Duration { return r.Floor }, func(r mcpprocess.Round) time.Duration { return r.FloorCPU })
	row("`ireneo mcp`: start to initialize answered", func(r mcpprocess.Round) time.Duration { return r.Initialize }, zero)
	row("then the first recall", func(r mcpprocess.Round) time.Duration { return r.FirstRecall }, func(r mcpprocess.Round) time.Duration { return r.MCPCPU })
	last := rs[len(rs)-1]
	fmt.Printf("`ireneo mcp` after one recall: VmRSS %.1f MB, VmHWM %.1f MB (the CPU column of the recall row is the whole mcp session)\n", float64(last.RSSKB)/1024, float64(last.HWMKB)/1024)

	tok, _, err := mcpserver.NewTokens(m, tokenstore.NewMemoryTokenStore()).Create(ctx, fmt.Sprintf("bench-serve-%d", time.Now().UnixNano()), nil)
	if err != nil {
		fail(err)
	}
	var qs []string
	for len(qs) < 300 {
		qs = append(qs, texts[len(qs)%len(texts)])
	}
	sr, err := mcpprocess.Serve(ctx, bin, memDir, tok, env, qs)
	if err != nil {
		fail(err)
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("`ireneo serve` after %d recalls over HTTP (p50 %.1f ms, p95 %.1f ms, %.1f CPU-ms a call): VmRSS %.1f MB (heap and stacks %.1f, binary and files %.1f), VmHWM %.1f MB; load %s\n",
		len(sr.Calls), ms(pct(sr.Calls, .5)), ms(pct(sr.Calls, .95)), ms(sr.CPU)/float64(len(sr.Calls)),
		float64(sr.RSSKB)/1024, float64(sr.AnonKB)/1024, float64(sr.FileKB)/1024, float64(sr.HWMKB)/1024, string(load[:min(len(load), 14)]))
}

// moduleRoot is the folder of the go.mod this command is built from.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find the module root: %w", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

// cpuProfile profiles until the returned stop.
func cpuProfile(path string) (stop func()) {
	f, err := os.Create(path)
	if err != nil {
		fail(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fail(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// tuned is one pipeline timed in process; a nil tn is the shipped one.
type tuned struct {
	name string
	tn   *recall.Tuning
}

// resultsOut, when set, gets every in-process recall's result (-results).
var resultsOut io.Writer

// inProcess times the in-process recalls alone, under a CPU profile when
// asked: where the time of one recall goes. Each question is asked of every
// pipeline in turn, so a change of load hits them alike, the
// first one rotating (it pays for the cold pages).
func inProcess(ctx context.Context, m *memory.Memory, texts []string, prof, timesFile string, runs []tuned) {
	var times io.Writer
	if timesFile != "" {
		f, err := os.Create(timesFile)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		times = f
	}
	if prof != "" {
		f, err := os.Create(prof)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	ds := make([][]time.Duration, len(runs))
	cpu := make([]time.Duration, len(runs)) // the process's CPU time over each pipeline's recalls
	t0 := time.Now()
	for qi, q := range texts {
		if os.Getenv("BENCH_SPEED_TRACE") != "" {
			fmt.Fprintf(os.Stderr, "asking %q\n", q)
		}
		// The first to ask warms the caches for the others: rotate.
		for j := range runs {
			i := (qi + j) % len(runs)
			r := runs[i]
			c0 := cputime.Self()
			start := time.Now()
			qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			var err error
			var res *recall.Result
			// Labelled so a profile can be cut by question (-tagfocus q=…).
			pprof.Do(qctx, pprof.Labels("q", strconv.Itoa(qi)), func(qctx context.Context) {
				res, err = recall.Recall(qctx, m, recall.Options{Query: q, Tuning: r.tn})
			})
			cancel()
			qcpu := cputime.Self() - c0
			if resultsOut != nil && err == nil {
				b, _ := json.Marshal(res)
				fmt.Fprintf(resultsOut, "%s\t%d\t%s\n", r.name, qi, b)
			}
			cpu[i] += qcpu
			if err != nil && err != recall.ErrEmptyQuery {
				fmt.Fprintf(os.Stderr, "%q: %v\n", q, err)
			}
			d := time.Since(start)
			ds[i] = append(ds[i], d)
			if times != nil {
				fmt.Fprintf(times, "%s\t%d\t%.3f\t%.3f\t%q\n", r.name, qi, ms(qcpu), ms(d), q)
			}
			if d > time.Second {
				fmt.Fprintf(os.Stderr, "slow (%s): %v for %q\n", r.name, d.Round(time.Millisecond), q)
			}
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("%d questions in process in %v; load %s\n", len(texts), time.Since(t0).Round(time.Millisecond), string(load[:min(len(load), 14)]))
	if st, err := os.ReadFile("/proc/self/status"); err == nil { // Linux: what the recalls left resident
		var rss []string
		for _, l := range strings.Split(string(st), "\n") {
			if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "VmHWM:") || strings.HasPrefix(l, "RssFile:") {
				rss = append(rss, strings.Join(strings.Fields(l), " "))
			}
		}
		fmt.Println(strings.Join(rss, ", "))
	}
	for i, r := range runs {
		fmt.Printf("%s: p50 %.1f ms, p95 %.1f ms, CPU %.2f ms per recall\n", r.name, ms(pct(ds[i], .5)), ms(pct(ds[i], .95)), ms(cpu[i])/float64(len(ds[i])))
	}
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench-speed:", err)
	os.Exit(1)
}
