package insights

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memory/memorytest"
)

// insightsBenchMemory is a memory of 10,000 conversations over a year, most
// with a project, and 20,000 audited calls: the counts' cost depends on the
// rows, not on what was said.
func insightsBenchMemory(b *testing.B) *memory.Memory {
	m := memorytest.Open(b)
	ctx := context.Background()
	r := rand.New(rand.NewSource(7))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	harnesses := []string{funes.HarnessChatGPT, funes.HarnessClaude, funes.HarnessCodex, funes.HarnessClaudeCode}
	var ss []*funes.Session
	for i := range 10000 {
		project := ""
		if r.Intn(5) != 0 {
			project = fmt.Sprintf("project-%02d", int(r.ExpFloat64()*6)%30)
		}
		start := base.Add(time.Duration(r.Intn(365*24)) * time.Hour)
		ss = append(ss, conv(fmt.Sprintf("bench-%05d", i), harnesses[i%4], "t", project, start, "q", "a", "q", "a", "q", "a"))
	}
	for len(ss) > 0 {
		n := min(len(ss), 1000)
		memorytest.Ingest(b, m, ss[:n]...)
		ss = ss[n:]
	}
	var entries []auditlog.Entry
	outcomes := []string{auditlog.OK, auditlog.OK, auditlog.OK, auditlog.NoMatch, auditlog.Busy, auditlog.Timeout}
	for range 20000 {
		entries = append(entries, auditlog.Entry{
			TS:     base.Add(time.Duration(r.Int63n(int64(365 * 24 * time.Hour)))),
			Client: []string{"claude-code", "codex", "cursor", "vscode"}[r.Intn(4)],
			Tool:   []string{"recall", "recall", "get", "sessions"}[r.Intn(4)],
			Args:   `{"query":"x"}`, Outcome: outcomes[r.Intn(len(outcomes))],
		})
	}
	if err := auditlog.Add(ctx, m, entries...); err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkInsights times each of the count reads on the 10k-conversation
// memory against a floor in the same run, SELECT count(*) FROM sessions,
// and reports the median of each in ms and as a ratio to the floor. The
// scan floor, a plain sum over the sessions table, is what any query that
// reads every conversation costs at least. "all" is the four reads of one
// Insights screen in a row. The target is ≤ 50 ms each.
func BenchmarkInsights(b *testing.B) {
	m := insightsBenchMemory(b)
	ctx := context.Background()
	rt, err := m.BeginRead(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const rounds = 20
	fromYear := now.AddDate(-1, 0, 0).Unix()
	queries := []struct {
		name string
		run  func() error
	}{
		{"floor", func() error {
			var n int
			return rt.QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n)
		}},
		{"scan-floor", func() error {
			var n int
			return rt.QueryRowContext(ctx, `SELECT COALESCE(sum(turns),0) FROM sessions NOT INDEXED`).Scan(&n)
		}},
		{"headline", func() error { _, err := readTotals(ctx, rt, m.DatabaseBytes()); return err }},
		{"source", func() error { _, err := startCounts(ctx, rt, bySource, 0, mondayOffset, weekSecs); return err }},
		{"project", func() error { _, err := startCounts(ctx, rt, byProject, 0, mondayOffset, weekSecs); return err }},
		{"project-year", func() error {
			_, err := startCounts(ctx, rt, byProject, fromYear, mondayOffset, weekSecs)
			return err
		}},
		{"agents", func() error { _, err := agentCalls(ctx, rt, time.Time{}); return err }},
		{"all", func() error {
			if _, err := readTotals(ctx, rt, m.DatabaseBytes()); err != nil {
				return err
			}
			for _, by := range []countBy{bySource, byProject} {
				if _, err := startCounts(ctx, rt, by, 0, mondayOffset, weekSecs); err != nil {
					return err
				}
			}
			_, err := agentCalls(ctx, rt, time.Time{})
			return err
		}},
	}
	times := make([][]time.Duration, len(queries))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for r := 0; r < rounds; r++ {
			for k, q := range queries {
				t0 := time.Now()
				if err := q.run(); err != nil {
					b.Fatal(err)
				}
				times[k] = append(times[k], time.Since(t0))
			}
		}
	}
	b.StopTimer()
	median := func(ds []time.Duration) time.Duration {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	floor := median(times[0])
	b.ReportMetric(float64(floor.Microseconds())/1000, "floor-ms")
	for k, q := range queries[1:] {
		p50 := median(times[k+1])
		b.ReportMetric(float64(p50.Microseconds())/1000, q.name+"-ms")
		b.ReportMetric(float64(p50)/float64(floor), q.name+"-ratio")
	}
}
