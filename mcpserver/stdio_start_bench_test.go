package mcpserver

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/bench/mcpprocess"
)

// BenchmarkStdioInitialize starts the real `ireneo mcp` with mcp-go's stdio
// client, as a client such as Claude Desktop does, and times it to the
// initialize answer (issue 19: ≤ 100 ms), beside the floor of the same
// binary's `ireneo --version`, alternating, in the same run; then the first
// recall and the child's RSS. IRENEO_BENCH_MEMORY names a memory to start
// over (the heavy one: bench-speed prints the same on its cache); else the
// test fixture.
func BenchmarkStdioInitialize(b *testing.B) {
	bin := buildIreneo(b)
	dir := os.Getenv("IRENEO_BENCH_MEMORY")
	if dir == "" {
		dir = newFixtureMemory(b).Dir()
	}
	const starts = 20
	var rs []mcpprocess.Round
	b.ResetTimer()
	for range b.N {
		r, err := mcpprocess.Measure(context.Background(), bin, dir, "MT-4471 seal", mcpprocess.Env(b.TempDir()), starts)
		if err != nil {
			b.Fatal(err)
		}
		rs = append(rs, r...)
	}
	b.StopTimer()
	floor := func(r mcpprocess.Round) time.Duration { return r.Floor }
	init := func(r mcpprocess.Round) time.Duration { return r.Initialize }
	b.ReportMetric(ms(mcpprocess.Pct(rs, .5, floor)), "floor-p50-ms")
	b.ReportMetric(ms(mcpprocess.Pct(rs, .5, init)), "init-p50-ms")
	b.ReportMetric(ms(mcpprocess.Pct(rs, .95, init)), "init-p95-ms")
	b.ReportMetric(float64(mcpprocess.Pct(rs, .5, init))/float64(mcpprocess.Pct(rs, .5, floor)), "init/floor")
	b.ReportMetric(ms(mcpprocess.Pct(rs, .5, func(r mcpprocess.Round) time.Duration { return r.FirstRecall })), "first-recall-p50-ms")
	b.ReportMetric(float64(rs[len(rs)-1].RSSKB)/1024, "mcp-rss-MB")
	b.ReportMetric(loadAverage(), "loadavg")
}
