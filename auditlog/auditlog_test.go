package auditlog_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/memory"
)

func TestAuditLog(t *testing.T) {
	ctx := context.Background()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	t0 := time.UnixMilli(1_800_000_000_123).UTC()
	err = auditlog.Add(ctx, m, auditlog.Entry{TS: t0, Client: "claude", Tool: "recall", Args: `{"query":"MT-4471"}`, Hits: 3, Duration: 1500 * time.Microsecond, Outcome: auditlog.OK},
		auditlog.Entry{TS: t0.Add(time.Millisecond), Client: "stdio", Tool: "get", Args: `{}`, Outcome: auditlog.NotFound},
		auditlog.Entry{TS: t0.Add(2 * time.Millisecond), Client: "claude", Tool: "sessions", Args: `{}`, Hits: 10, Outcome: auditlog.OK},
	)
	if err != nil {
		t.Fatal(err)
	}
	all, err := auditlog.List(ctx, m, auditlog.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[0].Tool != "sessions" || all[2].Tool != "recall" {
		t.Fatalf("order: %+v", all)
	}
	r := all[2]
	if !r.TS.Equal(t0) || r.Hits != 3 || r.Duration != 1500*time.Microsecond || r.Args != `{"query":"MT-4471"}` {
		t.Fatalf("entry: %+v", r)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"duration_ms":1.5`) {
		t.Fatalf("json: %s", b)
	}
	cl, _ := auditlog.List(ctx, m, auditlog.Query{Client: "claude", Limit: 1})
	if len(cl) != 1 || cl[0].Tool != "sessions" {
		t.Fatalf("client filter: %+v", cl)
	}
	since, _ := auditlog.List(ctx, m, auditlog.Query{Since: t0.Add(time.Millisecond)})
	if len(since) != 2 {
		t.Fatalf("since filter: %d", len(since))
	}
	tool, _ := auditlog.List(ctx, m, auditlog.Query{Tool: "get"})
	if len(tool) != 1 || tool[0].Client != "stdio" {
		t.Fatalf("tool filter: %+v", tool)
	}
}
