package recall

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/bench/cputime"
	"github.com/ireneo-app/ireneo/bench/lifelike"
	"github.com/ireneo-app/ireneo/memory"
)

// BenchmarkPresent times what recall does after the engine — rank, hydrate,
// budget, context block — on the questions bench-speed asks of its heavy
// memory, each question's candidates gathered beforehand, untimed. Point
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
	var qs []string
	for i := 0; i < len(d.Questions) && len(qs) < asked; i += max(1, len(d.Questions)/asked) {
		qs = append(qs, d.Questions[i].Text)
	}
	var ds []time.Duration
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		for _, q := range qs {
			// Each question's candidates gathered in its snapshot, untimed.
			r := newRun(Options{Query: q})
			if !r.et.searched() {
				continue
			}
			snap, err := openSnapshot(ctx, m, r.readQuery())
			if err != nil {
				b.Fatal(err)
			}
			r.gather(snap)
			c0, t0 := cputime.Self(), time.Now()
			ranked, tn := r.rankHits()
			_, err = r.present(ctx, snap, ranked, tn)
			ds = append(ds, time.Since(t0))
			cpu += cputime.Self() - c0
			snap.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(ds, .5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(ds, .95).Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(ds))/1000, "cpu-ms/q")
}
