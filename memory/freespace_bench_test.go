package memory

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkEraseFreeSpace: what zeroing every B-tree page's free space
// costs on a real memory, beside a VACUUM of the same (the other way to
// leave no deleted byte in a live page). IRENEO_BENCH_MEMORY names a memory
// folder, copied first; without it the benchmark is skipped:
//
//	IRENEO_BENCH_MEMORY=~/.cache/ireneo-bench/agentwork-n2000-s1/memory \
//	  go test ./memory -run '^$' -bench EraseFreeSpace -benchtime 1x
func BenchmarkEraseFreeSpace(b *testing.B) {
	src := os.Getenv("IRENEO_BENCH_MEMORY")
	if src == "" {
		b.Skip("IRENEO_BENCH_MEMORY names no memory")
	}
	for _, how := range []string{"zero-free-space", "zero-free-space-again", "vacuum"} {
		b.Run(how, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				dir := filepath.Join(b.TempDir(), "memory")
				if out, err := exec.Command("cp", "-r", src, dir).CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				m, err := Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				var pages int64
				m.db.QueryRow(`PRAGMA page_count`).Scan(&pages)
				ctx := context.Background()
				if how == "zero-free-space-again" {
					// The steady state: a second forget finds only what
					// page rebuilds left since the first.
					if _, err := m.zeroFreeSpace(ctx); err != nil {
						b.Fatal(err)
					}
					m.checkpoint(ctx)
					m.db.ExecContext(ctx, `DELETE FROM chunks WHERE sess IN (SELECT id FROM sessions ORDER BY random() LIMIT 1)`)
					m.checkpoint(ctx)
				}
				b.StartTimer()
				start := time.Now()
				n := 0
				if how == "vacuum" {
					_, err = m.db.ExecContext(ctx, `VACUUM`)
				} else {
					n, err = m.zeroFreeSpace(ctx)
				}
				if err == nil {
					err = m.checkpoint(ctx)
				}
				el := time.Since(start)
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(pages), "pages")
				b.ReportMetric(float64(n), "pages-zeroed")
				b.ReportMetric(el.Seconds(), "s")
				m.Close()
				b.StartTimer()
			}
		})
	}
}
