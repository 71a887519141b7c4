package memory

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	gre "github.com/zricethezav/gitleaks/v8/regexp"

	"github.com/ireneo-app/ireneo/bench/cputime"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/scrub"
	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// The import-with-scrub benchmark. (Scan's own throughput is
// BenchmarkScrubScan in package scrub.)
//
// IRENEO_SCRUB_BENCH_CONVS sets the number of imported conversations
// (default 10000, about 97 MB of funes jsonl). It reports CPU slowdown
// beside wall time: on a shared machine wall time measures the neighbours as
// much as the code.

// benchSession returns one conversation of four to ten turns, about 8 KB.
func benchSession(g *scrubtest.Gen, i int) *funes.Session {
	s := &funes.Session{ID: fmt.Sprintf("scrub-bench-%05d", i), Harness: []string{funes.HarnessChatGPT, funes.HarnessClaude, funes.HarnessCodex, funes.HarnessClaudeCode}[i%4], Title: g.Words(5)}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
	for j := range 4 + g.R.IntN(7) {
		role := funes.RoleUser
		if j%2 == 1 {
			role = funes.RoleAssistant
		}
		t := funes.Turn{TurnUUID: fmt.Sprintf("%s-%d", s.ID, j), Seq: j, TS: t0.Add(time.Duration(j) * time.Minute), Role: role,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: g.Block()}}}
		s.Turns = append(s.Turns, t)
	}
	return s
}

// BenchmarkScrubImport imports 10k generated conversations with scrub off
// and on, the way `ireneo import` does (stage each, commit the batch), and
// reports the slowdown scrub adds. Target: at most 30%.
func BenchmarkScrubImport(b *testing.B) {
	sc, err := scrub.New([]scrub.Pattern{{Name: scrubtest.HostRule, Regex: scrubtest.HostRegex}})
	if err != nil {
		b.Fatal(err)
	}
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("IRENEO_SCRUB_BENCH_CONVS")); err == nil && v > 0 {
		n = v
	}
	g := scrubtest.NewGen(7)
	var files [][]byte // funes jsonl, as an import reads it
	var size int64
	for i := range n {
		data, err := funes.MarshalSession(benchSession(g, i))
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
		size += int64(len(data))
	}
	b.Run("backend="+scrubBackend(), func(b *testing.B) {
		var off, on, cpuOff, cpuOn time.Duration
		for b.Loop() {
			w, c := importOnce(b, files, nil)
			off, cpuOff = off+w, cpuOff+c
			w, c = importOnce(b, files, redact.Redactor(sc))
			on, cpuOn = on+w, cpuOn+c
		}
		runs := float64(b.N)
		b.ReportMetric(off.Seconds()/runs, "s-off")
		b.ReportMetric(on.Seconds()/runs, "s-on")
		b.ReportMetric(100*(on.Seconds()/off.Seconds()-1), "slowdown-%")
		if cpuOff > 0 {
			b.ReportMetric(cpuOff.Seconds()/runs, "cpu-s-off")
			b.ReportMetric(cpuOn.Seconds()/runs, "cpu-s-on")
			b.ReportMetric(100*(cpuOn.Seconds()/cpuOff.Seconds()-1), "cpu-slowdown-%")
		}
		b.ReportMetric(float64(size)/(1<<20), "MB-imported")
	})
}

// importOnce imports files into a new memory and returns the wall and CPU
// time it took.
func importOnce(b *testing.B, files [][]byte, redact func(*funes.Session) map[string]int) (time.Duration, time.Duration) {
	b.StopTimer()
	m, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	b.StartTimer()
	t0, c0 := time.Now(), cputime.Self()
	ctx := context.Background()
	batch, err := m.NewBatch(IngestOptions{Redact: redact})
	if err != nil {
		b.Fatal(err)
	}
	for _, data := range files {
		ss, _, err := funes.ReadSessions(strings.NewReader(string(data)))
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range ss {
			if err := batch.Add(ctx, s); err != nil {
				b.Fatal(err)
			}
		}
	}
	rep, err := batch.Commit(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	if redact != nil && len(rep.Redacted) == 0 {
		b.Fatal("scrub on, yet nothing redacted")
	}
	return time.Since(t0), cputime.Self() - c0
}

// scrubBackend names gitleaks' regexp backend, as BenchmarkScrubScan does.
func scrubBackend() string {
	if gre.Version == "stdlib" {
		return "stdlib"
	}
	return "re2"
}
