package recall

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the floor reads the memory's FTS5 table directly

	"github.com/ireneo-app/ireneo/funes/funestest"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/querywords"
)

// The recall speed benchmark beside its floor, on the same generated
// memory memory's own benchmarks use (funestest.Generated).

// genSessions is the generated memory memory's and recall's benchmarks share.
var genSessions = funestest.Generated

var (
	benchMemOnce sync.Once
	benchMem     *memory.Memory
	benchMemErr  error
)

// benchMemory is a 10k-conversation memory shared by the recall benchmarks.
func benchMemory(b *testing.B) *memory.Memory {
	benchMemOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ireneo-bench-")
		if err != nil {
			benchMemErr = err
			return
		}
		benchMem, benchMemErr = memory.Open(dir)
		if benchMemErr == nil {
			_, benchMemErr = benchMem.Ingest(context.Background(), genSessions(10000, 1), memory.IngestOptions{})
		}
	})
	if benchMemErr != nil {
		b.Fatal(benchMemErr)
	}
	return benchMem
}

// benchQueries mixes short identifier queries and long questions.
var benchQueries = []string{
	"MT-4471", "P-003 seal leak ticket", "reject rate line", "K-039 vibration alarm",
	"which work order was raised for the leaking seal on the pump at the south site?",
	"what did we decide about the gateway migration and the schema rollback last quarter?",
	"who owns the lubrication of the fan at the north plant", "firmware update calibration sensor",
	"vendor contract renewal", "outage latency cache incident report",
}

func percentile(ds []time.Duration, p float64) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[min(len(ds)-1, int(p*float64(len(ds))))]
}

// benchFloor is the floor's statement: a bare FTS5 MATCH … ORDER BY bm25
// LIMIT 8 over the same chunks, in a database of its own (the memory holds
// no FTS5 table since index layout 3).
func benchFloor(b *testing.B, m *memory.Memory) *sql.Stmt {
	src, err := sql.Open("sqlite", "file:"+filepath.Join(m.Dir(), memory.DBName)+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	db, err := sql.Open("sqlite", filepath.Join(b.TempDir(), "floor.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE f USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')`); err != nil {
		b.Fatal(err)
	}
	rows, err := src.Query(`SELECT id, body FROM chunks WHERE searched`)
	if err != nil {
		b.Fatal(err)
	}
	tx, _ := db.Begin()
	for rows.Next() {
		var id int64
		var body string
		if err := rows.Scan(&id, &body); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO f(rowid, body) VALUES(?,?)`, id, body); err != nil {
			b.Fatal(err)
		}
	}
	rows.Close()
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	stmt, err := db.Prepare(`SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT 8`)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stmt.Close() })
	return stmt
}

// BenchmarkRecall measures Recall against the floor, a bare FTS5
// MATCH … ORDER BY bm25 LIMIT k over the same chunks, and reports the ratio.
func BenchmarkRecall(b *testing.B) {
	m := benchMemory(b)
	ctx := context.Background()
	const rounds = 30
	var ours, floor []time.Duration
	stmt := benchFloor(b, m)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for r := 0; r < rounds; r++ {
			for _, q := range benchQueries {
				t0 := time.Now()
				if _, err := Recall(ctx, m, Options{Query: q}); err != nil {
					b.Fatal(err)
				}
				ours = append(ours, time.Since(t0))
				expr := bareExpr(q)
				t0 = time.Now()
				rows, err := stmt.Query(expr)
				if err != nil {
					b.Fatal(err)
				}
				drain(rows)
				floor = append(floor, time.Since(t0))
			}
		}
	}
	b.StopTimer()
	p50, p95 := percentile(ours, .5), percentile(ours, .95)
	f50, f95 := percentile(floor, .5), percentile(floor, .95)
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p95.Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(f50.Microseconds())/1000, "floor-p50-ms")
	b.ReportMetric(float64(f95.Microseconds())/1000, "floor-p95-ms")
	b.ReportMetric(float64(p50)/float64(f50), "p50-ratio")
	b.ReportMetric(float64(p95)/float64(f95), "p95-ratio")
}

// bareExpr is the floor's query: the words, ORed, quoted.
func bareExpr(q string) string {
	ws := querywords.Words(q)
	for i, w := range ws {
		ws[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(ws, " OR ")
}

func drain(rows *sql.Rows) {
	for rows.Next() {
	}
	rows.Close()
}
