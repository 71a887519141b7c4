package recall

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/querywords"
	_ "modernc.org/sqlite" // the floor reads the memory's FTS5 table directly
)

// The recall speed benchmark beside its floor, on the same generated
// memory memory's own benchmarks use (a copy of its generator).

// benchWords is a small vocabulary: common words recur across conversations,
// as in real chats, so BM25 has frequent and rare terms to weigh.
var benchWords = strings.Fields(`the pump seal leak line reject rate owner ticket decision vibration alarm
compressor bearing motor fan lubrication south north east west site plant shift week report measured raised
order work team agreed deploy service gateway migration schema database index query budget quarter release
customer invoice shipping warehouse forklift sensor calibration firmware update rollback incident outage
pager latency cache memory disk network router switch firewall certificate renewal contract vendor meeting
lunch coffee weather weekend holiday train delay office printer badge laptop screen keyboard mouse`)

// benchVocab is benchWords followed by a long tail of made-up words, drawn
// with a Zipf law as real text is: a few words everywhere, most words rare.
var benchVocab = func() []string {
	common := strings.Fields(`the to and a of in is it you that for on we this with be was are have not at
	can but so if as do from just will what about would should there they then one all out up time need
	like get use make know think see also new now way more some only good well first last next`)
	syl := strings.Fields("ka lo mi ren tas vor pel dun gri sho bal tek mur zan fi po le quo ast ini")
	r := rand.New(rand.NewSource(99))
	v := append(append([]string{}, common...), benchWords...)
	seen := map[string]bool{}
	for len(v) < 8000 {
		w := syl[r.Intn(len(syl))] + syl[r.Intn(len(syl))] + syl[r.Intn(len(syl))]
		if !seen[w] {
			seen[w] = true
			v = append(v, w)
		}
	}
	return v
}()

// genSessions makes n conversations of six turns, each hiding one fact
// with an identifier among small talk. Deterministic for a seed.
func genSessions(n int, seed int64) []*funes.Session {
	r := rand.New(rand.NewSource(seed))
	z := rand.NewZipf(r, 1.07, 2, uint64(len(benchVocab)-1))
	pick := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = benchVocab[z.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	out := make([]*funes.Session, n)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range out {
		id := fmt.Sprintf("bench-%05d", i)
		start := base.Add(time.Duration(r.Intn(365*24)) * time.Hour)
		texts := []string{
			"Morning. " + pick(25) + "?",
			"Sure. " + pick(40) + ".",
			fmt.Sprintf("The %s on %s-%03d: ticket MT-%d was raised, reject rate %d.%d%%. %s.", pick(2), string(rune('A'+r.Intn(26))), r.Intn(1000), 1000+r.Intn(9000), r.Intn(10), r.Intn(10), pick(20)),
			"Noted. " + pick(45) + ".",
			"Thanks. " + pick(15) + ".",
			"Anytime. " + pick(10) + ".",
		}
		out[i] = conv(id, []string{funes.HarnessChatGPT, funes.HarnessClaude, funes.HarnessCodex, funes.HarnessClaudeCode}[i%4], pick(4), "", start, texts...)
	}
	return out
}

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
