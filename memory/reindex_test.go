package memory

import (
	"context"
	"fmt"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

func TestReindexKeepsCatalog(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m, conv("r1", funes.HarnessCodex, "", "alpha", day0, "reindex me please", "sure"))
	m.Star(ctx, "r1", true)
	m.Tag(ctx, "r1", "beta")
	rep, err := m.Reindex(ctx, nil)
	if err != nil || rep.Sessions != 1 {
		t.Fatalf("reindex: %v %+v", err, rep)
	}
	list, total, err := m.Sessions(ctx, SessionQuery{})
	if err != nil || total != 1 || !list[0].Starred || fmt.Sprint(list[0].Projects) != "[alpha beta]" {
		t.Fatalf("after reindex: %v %+v", err, list)
	}
	if r := mustIngest(t, m, conv("r1", funes.HarnessCodex, "", "alpha", day0, "reindex me please", "sure")); r.Unchanged != 1 {
		t.Fatalf("reindexed hash differs: %+v", r)
	}
}
