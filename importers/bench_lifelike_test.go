package importers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ireneo-app/ireneo/bench/cputime"
	"github.com/ireneo-app/ireneo/bench/lifelike"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/scrub"
)

// lifelikeExports writes (once per process) a heavy user's history: the
// lifelike generator's N conversations in the four export formats. Set
// IRENEO_LIFELIKE_DIR to reuse a folder across runs.
func lifelikeExports(b *testing.B, n int) (string, int64) {
	b.Helper()
	dir := os.Getenv("IRENEO_LIFELIKE_DIR")
	if dir == "" {
		dir = filepath.Join(b.TempDir(), "exports")
	}
	if _, err := os.Stat(dir); err != nil {
		if err := lifelike.Generate(lifelike.Config{N: n, Seed: 1}).WriteExports(dir); err != nil {
			b.Fatal(err)
		}
	}
	var size int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
		return nil
	})
	return dir, size
}

// BenchmarkParseLifelike10k is the floor for BenchmarkImportLifelike10k:
// the same files detected and parsed, nothing stored.
func BenchmarkParseLifelike10k(b *testing.B) {
	if os.Getenv("IRENEO_BENCH_LARGE") != "1" {
		b.Skip("set IRENEO_BENCH_LARGE=1 to run the 280 MB lifelike import")
	}
	dir, size := lifelikeExports(b, 10_000)
	b.SetBytes(size)
	b.ResetTimer()
	var cpu float64
	for i := 0; i < b.N; i++ {
		cpu0 := cputime.Seconds()
		ins, err := Detect(context.Background(), dir)
		if err != nil {
			b.Fatal(err)
		}
		convs := 0
		for _, in := range ins {
			rc, err := in.Open()
			if err != nil {
				b.Fatal(err)
			}
			err = parsers[in.Format](context.Background(), rc, in.Path, Handler{Session: func(*funes.Session) error { convs++; return nil }})
			rc.Close()
			// As importGroup does: an empty transcript adds nothing and
			// fails nothing.
			if err != nil && !errors.Is(err, errNoConversation) && !isAllSkipped(err) {
				b.Fatalf("%s: %v", in.Path, err)
			}
		}
		cpu += cputime.Seconds() - cpu0
		if convs < 10_000 {
			b.Fatalf("%d conversations", convs)
		}
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(size)/(1<<20), "export-MiB")
}

// BenchmarkImportLifelike10k imports a heavy user's history (10,000
// conversations, about 280 MB in the four formats) into an empty memory
// with scrub on import, as `ireneo import` does by default.
func BenchmarkImportLifelike10k(b *testing.B) {
	if os.Getenv("IRENEO_BENCH_LARGE") != "1" {
		b.Skip("set IRENEO_BENCH_LARGE=1 to run the 280 MB lifelike import")
	}
	dir, size := lifelikeExports(b, 10_000)
	sc, err := scrub.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Redact: redact.Redactor(sc)}
	if os.Getenv("IRENEO_BENCH_NOSCRUB") == "1" {
		opts.Redact = nil
	}
	b.SetBytes(size)
	b.ResetTimer()
	var cpu, peak float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m, err := memory.Open(filepath.Join(b.TempDir(), "memory-"+strconv.Itoa(i)))
		if err != nil {
			b.Fatal(err)
		}
		resetPeakRSS()
		cpu0 := cputime.Seconds()
		b.StartTimer()
		sum, err := Run(context.Background(), m, []string{dir}, opts)
		b.StopTimer()
		cpu += cputime.Seconds() - cpu0
		if err != nil || sum.New < 10_000 || sum.Failed > 0 {
			b.Fatalf("%v: %+v", err, sum)
		}
		peak = max(peak, peakRSSMiB())
		m.Close()
		b.StartTimer()
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	b.ReportMetric(peak, "peak-RSS-MiB")
	b.ReportMetric(float64(size)/(1<<20), "export-MiB")
}
