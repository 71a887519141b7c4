package memory

import (
	"context"
	"fmt"
	"os"
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
	list := listed(t, m)
	if total := len(list); total != 1 || !list[0].Starred || fmt.Sprint(list[0].Projects) != "[alpha beta]" {
		t.Fatalf("after reindex: %+v", list)
	}
	if r := mustIngest(t, m, conv("r1", funes.HarnessCodex, "", "alpha", day0, "reindex me please", "sure")); r.Unchanged != 1 {
		t.Fatalf("reindexed hash differs: %+v", r)
	}
}

// A rebuilt index is packed: the database holds no free page and is no
// larger than a packed copy of itself (VACUUM INTO). Before, the rebuild's
// tables were filled while the old index's pages were free, and the file
// kept both the gaps and the half-full pages.
func TestReindexPacksTheDatabase(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	var ss []*funes.Session
	for i := range 300 {
		ss = append(ss, conv(fmt.Sprintf("p%03d", i), funes.HarnessChatGPT, "Pumps", "", day0,
			fmt.Sprintf("pump P-%03d seal leak, ticket MT-%d, the vendor ships a new seal next week", i, 4000+i), "Noted: order the seal."))
	}
	mustIngest(t, m, ss...)
	if _, err := m.Reindex(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var pages, free, size int64
	m.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages)
	m.db.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free)
	m.db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size)
	if free != 0 {
		t.Fatalf("after reindex %d of %d pages are free", free, pages)
	}
	packed := t.TempDir() + "/packed.db"
	if _, err := m.db.ExecContext(ctx, `VACUUM INTO ?`, packed); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(packed)
	if err != nil {
		t.Fatal(err)
	}
	if pages*size > st.Size() {
		t.Fatalf("after reindex the database is %d bytes, a packed copy %d", pages*size, st.Size())
	}
}
