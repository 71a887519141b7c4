package memory

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

func pageCount(t *testing.T, m *Memory) int64 {
	t.Helper()
	var n int64
	if err := m.db.QueryRow(`PRAGMA page_count`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// ingestMany stores n conversations of varied words, one batch each, as
// hooks and small imports do: each commit splits pages in the middle of
// the index's trees.
func ingestMany(t *testing.T, m *Memory, from, n int) {
	t.Helper()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := from; i < from+n; i++ {
		var b strings.Builder
		for w := 0; w < 120; w++ {
			fmt.Fprintf(&b, "word%d ", (i*7919+w*104729)%5003)
		}
		mustIngest(t, m, conv(fmt.Sprintf("s%d", i), funes.HarnessCodex, "p", "", at.Add(time.Duration(i)*time.Minute), b.String(), "ok "+strconv.Itoa(i)))
	}
}

// An import grows the index by splitting pages, which leaves them partly
// empty; once it has grown by packGrowth since it was last packed, Grown
// says so, Pack rewrites it smaller with every conversation still found,
// and Grown stays quiet until it grows that much again.
func TestPackAfterGrowth(t *testing.T) {
	defer func(p int64, g float64) { packMinPages, packGrowth = p, g }(packMinPages, packGrowth)
	// A pack's full pages split at the next writes: in a memory this small
	// one conversation grows it by a tenth, so the test's step is a half.
	packMinPages, packGrowth = 1, 1.5
	ctx := context.Background()
	m := openTest(t)
	ingestMany(t, m, 0, 150)
	if !m.Grown(ctx) {
		t.Fatal("a memory never packed: Grown says no")
	}
	before := pageCount(t, m)
	if err := m.Pack(ctx); err != nil {
		t.Fatal(err)
	}
	after := pageCount(t, m)
	if after >= before {
		t.Fatalf("pack left %d pages of %d", after, before)
	}
	t.Logf("%d pages as imported, %d packed (%.3f×)", before, after, float64(before)/float64(after))
	if got := m.metaGet(ctx, metaPackedPages); got != strconv.FormatInt(after, 10) {
		t.Fatalf("packed_pages = %q, want %d", got, after)
	}
	if m.Grown(ctx) {
		t.Fatal("just packed: Grown says yes")
	}
	if hits := searchTurns(t, m, "word17"); len(hits) == 0 {
		t.Fatal("after the pack a stored word is not found")
	}
	ingestMany(t, m, 150, 1)
	if m.Grown(ctx) {
		t.Fatalf("grown %d → %d pages: below packGrowth, Grown says yes", after, pageCount(t, m))
	}
	for i := 151; float64(pageCount(t, m)) < packGrowth*float64(after); i += 5 {
		ingestMany(t, m, i, 5)
	}
	if !m.Grown(ctx) {
		t.Fatalf("grown %d → %d pages: Grown says no", after, pageCount(t, m))
	}
}

// A memory below packMinPages is never worth a pack.
func TestPackNotForASmallMemory(t *testing.T) {
	m := openTest(t)
	ingestMany(t, m, 0, 10)
	if m.Grown(context.Background()) {
		t.Fatalf("%d pages: Grown says yes", pageCount(t, m))
	}
}
