package mcpserver

import (
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkSessionFlood: 30,000 initializes over loopback HTTP with one
// token, none ended, as the reliability review sent them; it reports the
// sessions mcp-go still holds, the live heap after a GC, and the process's
// RSS before and after (run it alone in its process: RSS only grows). The
// "unbounded" case lets mcp-go keep what the session table drops, as
// before the bounds, for the floor in the same run. It takes a minute
// and loads both cores, so it runs only when asked (IRENEO_BENCH_BOUNDS):
//
//	IRENEO_BENCH_BOUNDS=1 go test ./mcpserver -run '^$' -bench 'SessionFlood/bounded' -benchtime 1x
//	IRENEO_BENCH_BOUNDS=1 go test ./mcpserver -run '^$' -bench 'SessionFlood/unbounded' -benchtime 1x
func BenchmarkSessionFlood(b *testing.B) {
	if os.Getenv("IRENEO_BENCH_BOUNDS") == "" {
		b.Skip("set IRENEO_BENCH_BOUNDS=1 to flood a server with initializes")
	}
	for _, bounded := range []bool{true, false} {
		name := "bounded"
		if !bounded {
			name = "unbounded"
		}
		b.Run(name, func(b *testing.B) {
			ts := startTestServer(b, Options{})
			if !bounded {
				ts.httpSessions.drop = nil
			}
			c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			defer c.CloseIdleConnections()
			initialize(b, c, ts.url, ts.full) // warm: rules, tokenizer
			runtime.GC()
			rss0 := rssMB()
			b.ResetTimer()
			for range b.N {
				for range 30000 {
					initialize(b, c, ts.url, ts.full)
				}
			}
			b.StopTimer()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ts.liveSessions.Load()), "sessions")
			b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
			b.ReportMetric(rss0, "rss0-MB")
			b.ReportMetric(rssMB(), "rss-MB")
		})
	}
}

// rssMB is the process's resident set, from /proc (0 elsewhere).
func rssMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
