package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestAuditLog(t *testing.T) {
	ctx := context.Background()
	m, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	t0 := time.UnixMilli(1_800_000_000_123).UTC()
	err = m.AddAudit(ctx,
		AuditEntry{TS: t0, Client: "claude", Tool: "recall", Args: `{"query":"MT-4471"}`, Hits: 3, Duration: 1500 * time.Microsecond, Outcome: AuditOK},
		AuditEntry{TS: t0.Add(time.Millisecond), Client: "stdio", Tool: "get", Args: `{}`, Outcome: AuditNotFound},
		AuditEntry{TS: t0.Add(2 * time.Millisecond), Client: "claude", Tool: "sessions", Args: `{}`, Hits: 10, Outcome: AuditOK},
	)
	if err != nil {
		t.Fatal(err)
	}
	all, err := m.Audit(ctx, AuditQuery{})
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
	cl, _ := m.Audit(ctx, AuditQuery{Client: "claude", Limit: 1})
	if len(cl) != 1 || cl[0].Tool != "sessions" {
		t.Fatalf("client filter: %+v", cl)
	}
	since, _ := m.Audit(ctx, AuditQuery{Since: t0.Add(time.Millisecond)})
	if len(since) != 2 {
		t.Fatalf("since filter: %d", len(since))
	}
	tool, _ := m.Audit(ctx, AuditQuery{Tool: "get"})
	if len(tool) != 1 || tool[0].Client != "stdio" {
		t.Fatalf("tool filter: %+v", tool)
	}
}
