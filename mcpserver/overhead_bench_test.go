package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/bench/cputime"
	"github.com/ireneo-app/ireneo/recall"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// fixedBackend answers every recall with one result recalled beforehand,
// so a benchmark times what MCP adds and nothing of the engine.
type fixedBackend struct {
	fakeBackend
	res *recall.Result
}

func (f fixedBackend) Recall(context.Context, recall.Options) (*recall.Result, error) {
	return f.res, nil
}

// BenchmarkMCPOverhead is what an MCP HTTP recall adds to the recall that
// feeds it (issue 19: ≤ 2 ms at p50): the same answer, recalled once from
// a memory of long turns at the default budget, served again and again to
// one mcp-go client over loopback: token check, argument decoding, the
// audit record (redaction included), shaping to the budget with its token
// counts, JSON both ways and HTTP. shape-ms is the shaping alone, and
// cpu-ms/call is the CPU of client and server together.
func BenchmarkMCPOverhead(b *testing.B) {
	m := budgetMemory(b)
	ctx := context.Background()
	res, err := recall.Recall(ctx, m, recall.Options{Query: "GASKET seal EPDM"})
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Hits) < 5 {
		b.Fatalf("recall found %d hits, want a full answer", len(res.Hits))
	}
	s := New(m, tokenstore.NewMemoryTokenStore(), Options{Logger: quietLogger()})
	s.mem = fixedBackend{fakeBackend{func(context.Context) error { return nil }}, res}
	tok, _, err := s.Tokens().Create(ctx, "overhead", nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := benchClient(b, s.URL(), tok)
	const calls = 300
	var rt, shape []time.Duration
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		for i := range calls {
			t := time.Now()
			buildRecall("GASKET seal EPDM", res, nil, recall.DefaultBudget)
			shape = append(shape, time.Since(t))
			c0 := cputime.Self()
			t = time.Now()
			r, err := c.CallTool(ctx, toolRequest(ToolRecall, map[string]any{"query": "GASKET seal EPDM"}))
			rt = append(rt, time.Since(t))
			cpu += cputime.Self() - c0
			if err != nil || r.IsError {
				b.Fatalf("call %d: %v %v", i, err, r)
			}
		}
	}
	b.StopTimer()
	s.FlushAudit()
	n := float64(len(rt))
	b.ReportMetric(ms(pct(rt, .5)), "p50-ms")
	b.ReportMetric(ms(pct(rt, .95)), "p95-ms")
	b.ReportMetric(ms(pct(shape, .5)), "shape-ms")
	b.ReportMetric(ms(cpu)/n, "cpu-ms/call")
	b.ReportMetric(loadAverage(), "loadavg")
}
