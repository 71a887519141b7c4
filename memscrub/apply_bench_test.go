package memscrub

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// BenchmarkScrubApplyMany: one scrub --apply that rewrites 2,000
// conversations (each with a token among six turns of filler), which the
// commit now does in one transaction so a kill leaves all or none; it
// reports the peak heap seen during the apply (sampled) and the live heap
// after. It imports 2,000 conversations first, so it runs only when asked:
//
//	IRENEO_BENCH_SCRUB_MANY=1 go test ./memscrub -run '^$' -bench ScrubApplyMany -benchtime 1x
func BenchmarkScrubApplyMany(b *testing.B) {
	if os.Getenv("IRENEO_BENCH_SCRUB_MANY") == "" {
		b.Skip("set IRENEO_BENCH_SCRUB_MANY=1 to scrub 2,000 conversations")
	}
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		m, err := memory.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		var ss []*funes.Session
		for i := range 2000 {
			var turns []string
			for j := range 6 {
				text := fmt.Sprintf("turn %d of talk %d about the pump seals, work order MT-%d. %s", j, i, 5000+i, strings.Repeat("more filler words for the page ", 30))
				if j == 2 {
					text += " the token is " + scrubtest.GitHubToken(uint64(1000+i))
				}
				turns = append(turns, text)
			}
			ss = append(ss, conv(fmt.Sprintf("many-%04d", i), funes.HarnessCodex, "talk", "", day0, turns...))
		}
		if _, err := m.Ingest(ctx, ss, memory.IngestOptions{}); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		stop := make(chan struct{})
		peak := make(chan uint64)
		go func() {
			var ms runtime.MemStats
			var max uint64
			for {
				select {
				case <-stop:
					peak <- max
					return
				default:
				}
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > max {
					max = ms.HeapInuse
				}
				runtime.Gosched()
			}
		}()
		b.StartTimer()
		rep, err := Apply(ctx, m, Options{Finder: newTestScrubber(b)})
		b.StopTimer()
		close(stop)
		p := <-peak
		if err != nil || rep.Changed != 2000 {
			b.Fatalf("apply: %v, changed %d", err, rep.Changed)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(p)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-after-MB")
		m.Close()
	}
}
