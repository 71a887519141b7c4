package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"
)

// genSessions is the generated memory memory's and recall's benchmarks share.
var genSessions = funestest.Generated

// BenchmarkImportFunes10k imports 10k funes jsonl files into an empty memory,
// the way `ireneo import` does: read each file, stage it, commit the batch.
func BenchmarkImportFunes10k(b *testing.B) {
	src := b.TempDir()
	for _, s := range genSessions(benchImportN, 2) {
		data, _ := funes.MarshalSession(s)
		os.WriteFile(filepath.Join(src, s.ID+".funes.jsonl"), data, 0o600)
	}
	files, _ := filepath.Glob(filepath.Join(src, "*.funes.jsonl"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		batch, _ := m.NewBatch(IngestOptions{})
		for _, f := range files {
			fh, err := os.Open(f)
			if err != nil {
				b.Fatal(err)
			}
			ss, _, err := funes.ReadSessions(fh)
			fh.Close()
			if err != nil {
				b.Fatal(err)
			}
			for _, s := range ss {
				if err := batch.Add(context.Background(), s); err != nil {
					b.Fatal(err)
				}
			}
		}
		rep, err := batch.Commit(context.Background(), nil)
		if err != nil || rep.New != benchImportN {
			b.Fatalf("%v %+v", err, rep.New)
		}
		b.ReportMetric(time.Since(t0).Seconds(), "s/10k")
		m.Close()
	}
}

// benchImportN is the import benchmark's size; IRENEO_BENCH_N overrides it.
var benchImportN = func() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("IRENEO_BENCH_N"), &n); err == nil && n > 0 {
		return n
	}
	return 10000
}()

// BenchmarkCommitShredsStaging is the share of an import that zeroing its
// staging file costs (Discard overwrites it before removing it, committed
// or not): an import of 2,000 conversations, and the zeroing of a file as
// big as its staging file, timed apart in the same iteration. 0.22% (4.7 MB
// staged, 4.4 ms of 1.95 s; ext4, load 2.2).
func BenchmarkCommitShredsStaging(b *testing.B) {
	ss := genSessions(2000, 3)
	var imp, zero time.Duration
	var bytes int64
	for b.Loop() {
		m, err := Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		batch, err := m.NewBatch(IngestOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range ss {
			if err := batch.Add(context.Background(), s); err != nil {
				b.Fatal(err)
			}
		}
		size := batch.size
		if _, err := batch.Commit(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		imp += time.Since(t0)
		f := filepath.Join(m.Dir(), "shred-bench")
		if err := os.WriteFile(f, make([]byte, size), 0o600); err != nil {
			b.Fatal(err)
		}
		syncEach([]string{f})
		t1 := time.Now()
		if err := shred(f); err != nil {
			b.Fatal(err)
		}
		zero += time.Since(t1)
		bytes = size
		m.Close()
	}
	b.ReportMetric(float64(bytes)/1e6, "MB-staged")
	b.ReportMetric(100*zero.Seconds()/imp.Seconds(), "%-zeroing")
}
