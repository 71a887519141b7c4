package recall

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/bench/lifelike"
	"github.com/ireneo-app/ireneo/memory"
)

// BenchmarkPresent times what recall does after the engine — rank, hydrate,
// budget, context block — on the questions bench-speed asks of its heavy
// memory, each question's candidates gathered once beforehand. Point
// IRENEO_HEAVY_MEMORY at bench-speed's memory (its -cache folder's
// lifelike-n10000-s1/memory). It reports the wall p50/p95 per question and
// the process's CPU time per question, which a busy machine moves less.
func BenchmarkPresent(b *testing.B) {
	dir := os.Getenv("IRENEO_HEAVY_MEMORY")
	if dir == "" {
		b.Skip("IRENEO_HEAVY_MEMORY names no memory")
	}
	ctx := context.Background()
	m, err := memory.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	d := lifelike.Generate(lifelike.Config{N: 10000, Seed: 1})
	const asked = 300 // bench-speed's -q default, spread over the types as it does
	var gs []*gathered
	for i := 0; i < len(d.Questions) && len(gs) < asked; i += max(1, len(d.Questions)/asked) {
		g, err := gather(ctx, m, Options{Query: d.Questions[i].Text})
		if err == ErrEmptyQuery {
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		gs = append(gs, g)
	}
	var ds []time.Duration
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		for _, g := range gs {
			gc := *g
			gc.cands = slices.Clone(g.cands) // rank reorders them
			c0, t0 := cpuTime(), time.Now()
			if _, err := present(ctx, m, &gc); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
			cpu += cpuTime() - c0
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(ds, .5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(ds, .95).Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(ds))/1000, "cpu-ms/q")
}
