package scrub

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	gre "github.com/zricethezav/gitleaks/v8/regexp"

	"github.com/ireneo-app/ireneo/bench/cputime"
	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// Scan benchmarks. The regexp backend is gitleaks' build tag: plain
// `go test -bench Scan` runs Go's regexp, `-tags gore2regex` runs RE2
// compiled to WebAssembly. Each benchmark names its backend in its output.
//
// IRENEO_SCRUB_BENCH_MB sets the size of the scanned text (default 100).
// Throughput is reported in MB per CPU-second beside wall time: on a shared
// machine wall time measures the neighbours as much as the code.

var (
	benchTextOnce sync.Once
	benchText     []string
	benchTextSize int64
)

// benchBlocks is ~100 MB of generated block texts, made once.
func benchBlocks() ([]string, int64) {
	benchTextOnce.Do(func() {
		mb := 100
		if v, err := strconv.Atoi(os.Getenv("IRENEO_SCRUB_BENCH_MB")); err == nil && v > 0 {
			mb = v
		}
		g := scrubtest.NewGen(42)
		for benchTextSize < int64(mb)<<20 {
			t := g.Block()
			benchText = append(benchText, t)
			benchTextSize += int64(len(t))
		}
	})
	return benchText, benchTextSize
}

// BenchmarkScrubScan measures Scan's throughput over ~100 MB of
// conversation text, one block at a time as import and scrub do, on one
// goroutine and on every CPU. The floor, in the same run, is one
// lowercasing pass over the same blocks (what any keyword search costs);
// "rule=password" is the password-in-words rule alone, to show its share,
// "rule=command-password" the passwords given to commands,
// and likewise the secret-in-words rule, the pair and shaped rules, and the
// copy gitleaks reads with punctuation after long words spaced.
func BenchmarkScrubScan(b *testing.B) {
	sc, err := New(testPatterns)
	if err != nil {
		b.Fatal(err)
	}
	blocks, size := benchBlocks()
	run := func(name string, workers int, scan func(string) int) {
		b.Run(fmt.Sprintf("backend=%s/%s/workers=%d", backendName(), name, workers), func(b *testing.B) {
			b.SetBytes(size)
			var found int64
			c0 := cputime.Self()
			for b.Loop() {
				found = scanAll(blocks, workers, scan)
			}
			if cpu := cputime.Self() - c0; cpu > 0 {
				b.ReportMetric(float64(size)*float64(b.N)/(1<<20)/cpu.Seconds(), "MB/cpu-s")
			}
			b.ReportMetric(float64(found), "findings")
		})
	}
	run("floor=lowercase", 1, func(t string) int { floorSink = asciiLower(t); return 0 })
	run("rule=password", 1, func(t string) int { return len(appendPasswords(nil, t)) })
	run("rule=command-password", 1, func(t string) int { return len(appendCommandPasswords(nil, t)) })
	run("rule=secret-in-words", 1, func(t string) int { return len(appendSecretsInWords(nil, t)) })
	run("rule=pairs+shaped", 1, func(t string) int { return len(appendShapedSecrets(appendPairs(nil, t), t)) })
	run("punct-copy", 1, func(t string) int { floorSink = spaceTrailingPunct(t); return 0 })
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		run("scan", workers, func(t string) int { return len(sc.Scan(t)) })
	}
}

// floorSink keeps the floor's work from being optimised away.
var floorSink string

func scanAll(blocks []string, workers int, scan func(string) int) int64 {
	var mu sync.Mutex
	var total int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n int64
			for i := w; i < len(blocks); i += workers {
				n += int64(scan(blocks[i]))
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}

func backendName() string {
	if gre.Version == "stdlib" {
		return "stdlib"
	}
	return "re2"
}
