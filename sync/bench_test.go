package sync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/bench/cputime"
	"github.com/ireneo-app/ireneo/bench/lifelike"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/scrub"
)

// BenchmarkArrival10k: a heavy user's 10,000 conversations (bench/lifelike,
// the four export formats) imported on machine A — the floor — then
// exported to A's subfolder, then arriving on machine B: from the folder
// as a sync engine leaves it (B's engine alone), and through two real
// Syncthing daemons on loopback into machine C (transfer and import
// together, timed from A's export to the last conversation searchable on
// C). Then C idles for a minute with its engine running: the CPU time it
// takes, and each Syncthing's.
//
//	IRENEO_BENCH_LARGE=1 scripts/test-session.sh go test -run '^$' -bench Arrival10k -benchtime 1x -timeout 60m ./sync
//
// IRENEO_LIFELIKE_DIR reuses an export folder; IRENEO_BENCH_NOSCRUB=1
// imports without scrub (on by default on both sides, as the app does);
// IRENEO_BENCH_IDLE sets the idle seconds (60).
func BenchmarkArrival10k(b *testing.B) {
	if os.Getenv("IRENEO_BENCH_LARGE") != "1" {
		b.Skip("set IRENEO_BENCH_LARGE=1 to run the 10,000-conversation arrival")
	}
	ctx := context.Background()
	exports := os.Getenv("IRENEO_LIFELIKE_DIR")
	if exports == "" {
		exports = filepath.Join(b.TempDir(), "exports")
	}
	if _, err := os.Stat(exports); err != nil {
		if err := lifelike.Generate(lifelike.Config{N: 10_000, Seed: 1}).WriteExports(exports); err != nil {
			b.Fatal(err)
		}
	}
	var redactor func(*funes.Session) map[string]int
	if os.Getenv("IRENEO_BENCH_NOSCRUB") != "1" {
		sc, err := scrub.New(nil)
		if err != nil {
			b.Fatal(err)
		}
		redactor = redact.Redactor(sc)
	}
	idle := 60 * time.Second
	if s, err := strconv.Atoi(os.Getenv("IRENEO_BENCH_IDLE")); err == nil {
		idle = time.Duration(s) * time.Second
	}
	open := func(name string) *memory.Memory {
		m, err := memory.Open(filepath.Join(b.TempDir(), name))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { m.Close() })
		return m
	}
	count := func(m *memory.Memory) int {
		snap, err := readStored(ctx, m)
		if err != nil {
			b.Fatal(err)
		}
		return len(snap.Conversations)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// The floor: a local import of the same conversations.
		a := open("a-" + strconv.Itoa(i))
		w, c := time.Now(), cputime.Seconds()
		sum, err := importers.Run(ctx, a, []string{exports}, importers.Options{Redact: redactor})
		localWall, localCPU := time.Since(w).Seconds(), cputime.Seconds()-c
		if err != nil || sum.New < 10_000 {
			b.Fatalf("local import: %v %+v", err, sum)
		}
		n := count(a)

		folder := filepath.Join(b.TempDir(), "folder-a")
		if _, err := SetUp(a.Dir(), folder, "a"); err != nil {
			b.Fatal(err)
		}
		ea, err := Open(a, Options{Redact: redactor})
		if err != nil {
			b.Fatal(err)
		}
		w, c = time.Now(), cputime.Seconds()
		rep, err := ea.Pass(ctx)
		exportWall, exportCPU := time.Since(w).Seconds(), cputime.Seconds()-c
		ea.Close()
		if err != nil || rep.Exported != n {
			b.Fatalf("export: %v %+v", err, rep)
		}

		// B's engine, on the files as a sync engine leaves them.
		bm := open("b-" + strconv.Itoa(i))
		if _, err := SetUp(bm.Dir(), folder, "b"); err != nil {
			b.Fatal(err)
		}
		eb, err := Open(bm, Options{Redact: redactor})
		if err != nil {
			b.Fatal(err)
		}
		w, c = time.Now(), cputime.Seconds()
		rep, err = eb.Pass(ctx)
		arriveWall, arriveCPU := time.Since(w).Seconds(), cputime.Seconds()-c
		if err != nil || rep.Imported != n || count(bm) != n {
			b.Fatalf("arrival: %v %+v (%d of %d)", err, rep, count(bm), n)
		}
		w = time.Now()
		if rep, err := eb.Pass(ctx); err != nil || rep != (Report{}) {
			b.Fatalf("a pass with nothing new: %v %+v", err, rep)
		}
		unchangedWall := time.Since(w).Seconds()
		eb.Close()
		b.ReportMetric(localWall, "local-import-s")
		b.ReportMetric(localCPU, "local-import-cpu-s")
		b.ReportMetric(exportWall, "export-s")
		b.ReportMetric(exportCPU, "export-cpu-s")
		b.ReportMetric(arriveWall, "arrival-s")
		b.ReportMetric(arriveCPU, "arrival-cpu-s")
		b.ReportMetric(arriveWall/localWall, "arrival/local")
		b.ReportMetric(unchangedWall*1000, "unchanged-pass-ms")
		b.ReportMetric(float64(n), "conversations")

		// Through Syncthing: A's folder to C's, C's engine running.
		sa, sc := newDaemon(b, "a"), newDaemon(b, "c")
		pair(sa, sc)
		cm := open("c-" + strconv.Itoa(i))
		cfolder := filepath.Join(b.TempDir(), "folder-c")
		if _, err := SetUp(cm.Dir(), cfolder, "c"); err != nil {
			b.Fatal(err)
		}
		runCtx, stop := context.WithCancel(ctx)
		passes := make(chan struct{}, 1000)
		done := make(chan error, 1)
		w, c = time.Now(), cputime.Seconds()
		go func() {
			done <- Run(runCtx, cm, Options{Redact: redactor, OnPass: func(Report, error) { passes <- struct{}{} }})
		}()
		for _, d := range []*daemon{sa, sc} {
			f := folder
			if d == sc {
				f = cfolder
			}
			if _, err := d.api.ShareFolder(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
		deadline := time.Now().Add(30 * time.Minute)
		for count(cm) < n {
			if time.Now().After(deadline) {
				b.Fatalf("after 30 minutes c holds %d of %d", count(cm), n)
			}
			time.Sleep(time.Second)
		}
		b.ReportMetric(time.Since(w).Seconds(), "syncthing-arrival-s")
		b.ReportMetric(cputime.Seconds()-c, "syncthing-arrival-engine-cpu-s")
		b.ReportMetric(sa.cpuSeconds(), "syncthing-a-cpu-s")
		b.ReportMetric(sc.cpuSeconds(), "syncthing-c-cpu-s")
		b.ReportMetric(float64(len(passes)), "syncthing-arrival-passes")
		// Idle: once a pass has found nothing more to do.
		time.Sleep(5 * time.Second)
		for len(passes) > 0 {
			<-passes
		}
		c0, sa0, sc0 := cputime.Seconds(), sa.cpuSeconds(), sc.cpuSeconds()
		time.Sleep(idle)
		b.ReportMetric(100*(cputime.Seconds()-c0)/idle.Seconds(), "idle-cpu-%")
		b.ReportMetric(100*(sa.cpuSeconds()-sa0)/idle.Seconds(), "idle-syncthing-a-cpu-%")
		b.ReportMetric(100*(sc.cpuSeconds()-sc0)/idle.Seconds(), "idle-syncthing-c-cpu-%")
		b.ReportMetric(float64(len(passes)), "idle-passes")
		stop()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
}

// cpuSeconds is the daemon's CPU time, user and system, from /proc.
func (d *daemon) cpuSeconds() float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(d.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command's closing parenthesis: utime is the 12th, stime the 13th.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // clock ticks; 100 a second on Linux
}

// BenchmarkUnchangedPass: a pass over a folder of n conversations (small
// ones) that holds nothing new: what the watcher's pass costs when a
// change elsewhere (a journal line) wakes it, and the idle pass every few
// minutes. IRENEO_BENCH_N sets n (10,000).
func BenchmarkUnchangedPass(b *testing.B) {
	n := 10_000
	if v, err := strconv.Atoi(os.Getenv("IRENEO_BENCH_N")); err == nil {
		n = v
	}
	ctx := context.Background()
	a, err := memory.Open(filepath.Join(b.TempDir(), "a"))
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	var ss []*funes.Session
	for i := 0; i < n; i++ {
		ss = append(ss, conv(fmt.Sprintf("c%05d", i), funes.HarnessChatGPT, "t", "p"+strconv.Itoa(i%20), "a question "+strconv.Itoa(i), "an answer"))
	}
	if _, err := a.Ingest(ctx, ss, memory.IngestOptions{}); err != nil {
		b.Fatal(err)
	}
	folder := filepath.Join(b.TempDir(), "folder")
	if _, err := SetUp(a.Dir(), folder, "a"); err != nil {
		b.Fatal(err)
	}
	e, err := Open(a, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Pass(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	c := cputime.Seconds()
	for i := 0; i < b.N; i++ {
		if rep, err := e.Pass(ctx); err != nil || rep != (Report{}) {
			b.Fatalf("%v %+v", err, rep)
		}
	}
	b.ReportMetric((cputime.Seconds()-c)/float64(b.N)*1000, "cpu-ms/pass")
}
