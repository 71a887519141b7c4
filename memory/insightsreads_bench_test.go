package memory

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"
)

var insightsBenchOnce sync.Once

// insightsBenchMemory is the 10k-conversation bench memory with projects
// on most conversations and 20k audited calls over its year. Neither
// changes what an unfiltered recall returns, so the memory stays shared.
func insightsBenchMemory(b *testing.B) *Memory {
	m := benchMemory(b)
	insightsBenchOnce.Do(func() {
		ctx := context.Background()
		r := rand.New(rand.NewSource(7))
		err := m.withTx(ctx, func(tx *sql.Tx) error {
			rows, err := tx.QueryContext(ctx, `SELECT harness, session_id FROM sessions`)
			if err != nil {
				return err
			}
			var keys [][2]string
			for rows.Next() {
				var k [2]string
				rows.Scan(&k[0], &k[1])
				keys = append(keys, k)
			}
			rows.Close()
			for _, k := range keys {
				if r.Intn(5) == 0 {
					continue // untagged
				}
				p := fmt.Sprintf("project-%02d", int(r.ExpFloat64()*6)%30)
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_projects VALUES(?,?,?)`, k[0], k[1], p); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		var entries []AuditEntry
		outcomes := []string{AuditOK, AuditOK, AuditOK, AuditNoMatch, AuditBusy, AuditTimeout}
		for i := 0; i < 20000; i++ {
			entries = append(entries, AuditEntry{
				TS:     base.Add(time.Duration(r.Int63n(int64(365 * 24 * time.Hour)))),
				Client: []string{"claude-code", "codex", "cursor", "vscode"}[r.Intn(4)],
				Tool:   []string{"recall", "recall", "get", "sessions"}[r.Intn(4)],
				Args:   `{"query":"x"}`, Outcome: outcomes[r.Intn(len(outcomes))],
			})
		}
		if err := m.AddAudit(ctx, entries...); err != nil {
			b.Fatal(err)
		}
	})
	return m
}

// BenchmarkInsights times each of package insights' reads on the
// 10k-conversation memory against a floor in the same run, SELECT count(*)
// FROM sessions, and reports the median of each in ms and as a ratio to the
// floor. The scan floor, a plain sum over the sessions table, is what any
// query that reads every conversation costs at least. "all" is the four
// reads of one Insights screen in a row. The target is ≤ 50 ms each.
func BenchmarkInsights(b *testing.B) {
	m := insightsBenchMemory(b)
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const rounds = 20
	const weekOffset, weekWidth = 3 * 86400, 7 * 86400 // package insights' Monday weeks
	var fromYear int64 = now.AddDate(-1, 0, 0).Unix()
	queries := []struct {
		name string
		run  func() error
	}{
		{"floor", func() error {
			var n int
			return m.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n)
		}},
		{"scan-floor", func() error {
			var n int
			return m.db.QueryRowContext(ctx, `SELECT COALESCE(sum(turns),0) FROM sessions NOT INDEXED`).Scan(&n)
		}},
		{"headline", func() error { _, err := m.Totals(ctx); return err }},
		{"source", func() error { _, err := m.StartCounts(ctx, CountBySource, 0, weekOffset, weekWidth); return err }},
		{"project", func() error { _, err := m.StartCounts(ctx, CountByProject, 0, weekOffset, weekWidth); return err }},
		{"project-year", func() error {
			_, err := m.StartCounts(ctx, CountByProject, fromYear, weekOffset, weekWidth)
			return err
		}},
		{"agents", func() error { _, err := m.AgentCalls(ctx, time.Time{}); return err }},
		{"all", func() error {
			if _, err := m.Totals(ctx); err != nil {
				return err
			}
			for _, by := range []CountBy{CountBySource, CountByProject} {
				if _, err := m.StartCounts(ctx, by, 0, weekOffset, weekWidth); err != nil {
					return err
				}
			}
			_, err := m.AgentCalls(ctx, time.Time{})
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
	floor := percentile(times[0], .5)
	b.ReportMetric(float64(floor.Microseconds())/1000, "floor-ms")
	for k, q := range queries[1:] {
		p50 := percentile(times[k+1], .5)
		b.ReportMetric(float64(p50.Microseconds())/1000, q.name+"-ms")
		b.ReportMetric(float64(p50)/float64(floor), q.name+"-ratio")
	}
}
