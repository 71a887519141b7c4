package engine

import (
	"database/sql"
	"os"
	"testing"
)

// BenchmarkDecodeBlocks decodes blocks of a real index: IRENEO_BENCH_DB
// names its ireneo.db (the heavy memory of bench-speed), read only.
func BenchmarkDecodeBlocks(b *testing.B) {
	path := os.Getenv("IRENEO_BENCH_DB")
	if path == "" {
		b.Skip("IRENEO_BENCH_DB not set")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT data FROM eng_blocks WHERE (last * 2654435761) % 61 = 0 LIMIT 4000`)
	if err != nil {
		b.Fatal(err)
	}
	var blobs [][]byte
	postings := 0
	for rows.Next() {
		var d []byte
		if err := rows.Scan(&d); err != nil {
			b.Fatal(err)
		}
		ps, err := decodeS(nil, d)
		if err != nil {
			b.Fatal(err)
		}
		postings += len(ps)
		blobs = append(blobs, d)
	}
	rows.Close()
	var buf []spost
	b.ResetTimer()
	for b.Loop() {
		for _, d := range blobs {
			if buf, err = decodeS(buf[:0], d); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(postings), "ns/posting")
}
