// Command bench-recall runs the recall-quality benchmark (issue 7): for each
// N it generates a synthetic history, writes it in the four export formats,
// imports it as `ireneo import` does, and prints hit@1/3/8, answer-in-text
// at 3 and latency per question type, for Ireneo's recall and for a bare
// FTS5 BM25 baseline. See bench/README.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/bench/realmem"
	"github.com/ireneo-app/ireneo/bench/recallbench"
	"github.com/ireneo-app/ireneo/bench/rhelm"
)

func main() {
	var (
		ns       = flag.String("n", "1000", "comma-separated history sizes (conversations) of the recalldata set")
		sets     = flag.String("sets", "recalldata,realmem,lifelike,rhelm,agentwork", "comma-separated evaluation sets: recalldata, realmem, lifelike, rhelm, agentwork")
		llN      = flag.Int("lifelike-n", 1000, "conversations in the lifelike history")
		llSeed   = flag.Int64("lifelike-seed", 1, "lifelike generator seed")
		llQ      = flag.Int("lifelike-questions", 0, "lifelike questions asked per type (0 = all)")
		cache    = flag.String("cache", "", "where imported lifelike memories are kept between runs (default: the user cache dir)")
		nowFlag  = flag.String("now", "", "the time of asking for the sets whose questions carry none (recalldata, lifelike, agentwork), RFC 3339 or 2006-01-02; empty: just after each history")
		awN      = flag.Int("agentwork-n", 10000, "conversations in the agentwork history")
		awSeed   = flag.Int64("agentwork-seed", 1, "agentwork generator seed")
		awQ      = flag.Int("agentwork-questions", 0, "agentwork questions asked per type (0 = all)")
		rmDir    = flag.String("realmem", realmem.DefaultDir, "the RealMem persona files")
		rmQ      = flag.Int("realmem-queries", 0, "RealMem queries asked per persona (0 = all)")
		rhDir    = flag.String("rhelm", rhelm.DefaultDir, "the RHELM data set")
		rhQ      = flag.Int("rhelm-questions", 0, "RHELM questions asked per person (0 = all)")
		seed     = flag.Uint64("seed", 1, "generator seed")
		types    = flag.String("types", "", "comma-separated question types (short,long,update,noid); empty = all")
		k        = flag.Int("k", 8, "hits asked of recall")
		budget   = flag.Int("budget", 0, "recall token budget; 0 = Ireneo's default")
		tune     = flag.String("tune", "", "ad-hoc configurations NAME:Field=value,… (fields of recall.Tuning), space-separated")
		ablation = flag.String("ablation", "", "comma-separated configurations besides the shipped one, or all (see README)")
		misses   = flag.Bool("misses", false, "print every miss at k=3: query, expected conversation, what outranked it")
		baseline = flag.Bool("baseline", true, "also measure the bare FTS5 BM25 baseline")
		ingest   = flag.String("ingest", recallbench.IngestImport, "import: through the importers; direct: memory.Ingest the ideal sessions")
		keep     = flag.String("keep", "", "keep exports, memory and baseline under this folder instead of a temporary one")
		reuse    = flag.Bool("reuse", false, "with -keep: reuse a memory imported there from the same history")
		jsonOut  = flag.String("json", "", "also write the reports as JSON to this file")
		outsOut  = flag.String("outcomes", "", "also write every question's outcome, per set and system, as JSON lines to this file")
		from     = flag.String("from", "", "run nothing: summarize the -outcomes files given, comma-separated (runs split by set or configuration)")
		facts    = flag.Int("facts", 0, "facts asked as short and long questions (0 = default 600, -1 = all)")
		noid     = flag.Int("noid", 0, "identifier-free questions (0 = default 400, -1 = all)")
		updates  = flag.Int("updates", 0, "knowledge-update questions (0 = default 400, -1 = all)")
		quiet    = flag.Bool("q", false, "no progress lines on stderr")
		latency  = flag.Int("baseline-timed", 40, "questions of each type the baseline's SQL query is timed on (-1 = all)")
	)
	flag.Parse()
	if *from != "" {
		outs, err := readOutcomes(strings.Split(*from, ","))
		if err != nil {
			fail(err)
		}
		recallbench.WriteSummary(os.Stdout, recallbench.Summarize(outs, recallbench.FloorName))
		return
	}

	var now time.Time
	if *nowFlag != "" {
		var err error
		if now, err = time.Parse(time.RFC3339, *nowFlag); err != nil {
			if now, err = time.Parse("2006-01-02", *nowFlag); err != nil {
				fail(fmt.Errorf("-now %q: want 2006-01-02 or RFC 3339", *nowFlag))
			}
		}
	}
	configs, err := recallbench.SelectConfigs(*ablation)
	if err != nil {
		fail(err)
	}
	if configs[0].Name != recallbench.DefaultName {
		configs = append([]recallbench.Config{recallbench.Default()}, configs...)
	}
	extra, err := recallbench.ParseTuning(*tune)
	if err != nil {
		fail(err)
	}
	configs = append(configs, extra...)
	var sizes []int
	for _, s := range strings.Split(*ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fail(fmt.Errorf("-n: %q is not a positive number", s))
		}
		sizes = append(sizes, n)
	}
	var typeList []string
	if *types != "" {
		typeList = strings.Split(*types, ",")
	}

	want := map[string]bool{}
	for _, s := range strings.Split(*sets, ",") {
		want[strings.TrimSpace(s)] = true
	}
	var logw io.Writer
	if !*quiet {
		logw = os.Stderr
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var reports []*recallbench.Report
	var rows []recallbench.Row
	var outs []recallbench.Outcome
	if !want[recallbench.SetRecallData] {
		sizes = nil
	}
	for _, n := range sizes {
		opts := recallbench.Options{
			N: n, Seed: *seed, Types: typeList, K: *k, Budget: *budget, Ingest: *ingest,
			Configs: configs, Baseline: *baseline, Dir: *keep, Reuse: *reuse, LatencySample: *latency,
			FactQuestions: *facts, NoIDQuestions: *noid, UpdateQuestions: *updates, Now: now,
		}
		if !*quiet {
			opts.Log = os.Stderr
		}
		if *misses {
			opts.Misses = os.Stdout
		}
		rep, err := recallbench.Run(ctx, opts)
		if err != nil {
			fail(err)
		}
		for _, f := range rep.ImportCheck.Failures {
			fmt.Fprintln(os.Stderr, "import check:", f)
		}
		reports = append(reports, rep)
		rows = append(rows, rep.Rows...)
		if n == sizes[len(sizes)-1] {
			outs = append(outs, rep.Outcomes...)
		}
	}
	if want[recallbench.SetRealMem] {
		o, err := recallbench.RunRealMem(ctx, recallbench.RealMemOptions{DataDir: *rmDir, Configs: configs, Queries: *rmQ, Log: logw})
		switch {
		case errors.Is(err, realmem.ErrNoData):
			fmt.Fprintln(os.Stderr, "bench-recall: skipping RealMem:", err)
		case err != nil:
			fail(err)
		}
		outs = append(outs, o...)
	}
	if want[recallbench.SetRHELM] {
		o, err := recallbench.RunRHELM(ctx, recallbench.RHELMOptions{DataDir: *rhDir, Configs: configs, Questions: *rhQ, Log: logw})
		switch {
		case errors.Is(err, rhelm.ErrNoData):
			fmt.Fprintln(os.Stderr, "bench-recall: skipping RHELM:", err)
		case err != nil:
			fail(err)
		}
		outs = append(outs, o...)
	}
	if want[recallbench.SetLifelike] {
		o, err := recallbench.RunLifelike(ctx, recallbench.LifelikeOptions{N: *llN, Seed: *llSeed, Cache: *cache, Configs: configs, Questions: *llQ, Log: logw, Now: now})
		if err != nil {
			fail(err)
		}
		outs = append(outs, o...)
	}
	if want[recallbench.SetAgentwork] {
		o, err := recallbench.RunAgentwork(ctx, recallbench.AgentworkOptions{N: *awN, Seed: *awSeed, Cache: *cache, Configs: configs, Questions: *awQ, Log: logw, Now: now})
		if err != nil {
			fail(err)
		}
		outs = append(outs, o...)
	}
	fmt.Println()
	fmt.Println(buildLine())
	if len(rows) > 0 {
		fmt.Println()
		recallbench.WriteTable(os.Stdout, rows)
	}
	if len(outs) > 0 {
		recallbench.WriteSummary(os.Stdout, recallbench.Summarize(outs, recallbench.FloorName))
	}
	if *outsOut != "" {
		if err := writeOutcomes(*outsOut, outs); err != nil {
			fail(err)
		}
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(reports, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			fail(err)
		}
	}
}

// buildLine names the commit the benchmark was built from, as the Go
// toolchain stamped it.
func buildLine() string {
	rev, dirty := "unknown", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				rev = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = " (with uncommitted changes)"
			}
		}
	}
	if rev == "unknown" { // go run and some builds leave no stamp: ask git
		if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			rev = strings.TrimSpace(string(out))
		}
		if out, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(out) > 0 {
			dirty = " (with uncommitted changes)"
		}
	}
	return fmt.Sprintf("commit %s%s, %s, GOMAXPROCS=%d", rev, dirty, runtime.Version(), runtime.GOMAXPROCS(0))
}

// writeOutcomes writes one JSON line per question and system, for pairing
// configurations after the run.
func writeOutcomes(path string, outs []recallbench.Outcome) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, o := range outs {
		if err := enc.Encode(o); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// readOutcomes reads -outcomes files; a question asked of the same system in
// more than one file (the floor and the shipped pipeline run in every
// process) counts once, from the first file.
func readOutcomes(paths []string) ([]recallbench.Outcome, error) {
	type key struct {
		set, sys string
		q        int
	}
	seen := map[key]bool{}
	var out []recallbench.Outcome
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(f)
		for {
			var o recallbench.Outcome
			if err := dec.Decode(&o); err == io.EOF {
				break
			} else if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			k := key{o.Set, o.System, o.Q}
			if !seen[k] {
				seen[k] = true
				out = append(out, o)
			}
		}
		f.Close()
	}
	return out, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench-recall:", err)
	os.Exit(1)
}
