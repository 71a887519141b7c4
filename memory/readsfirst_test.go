package memory

import (
	"context"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// An import gives way to the process's reads, never waits on them for
// good, and a read's end (closed once or twice) is counted once.
func TestImportGivesWayToReads(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	if d := m.giveWay(ctx); d != 0 {
		t.Fatalf("no read under way, yet gave way for %v", d)
	}
	rt, err := m.BeginRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := m.giveWay(ctx); d < giveWayMax {
		t.Fatalf("a read under way: gave way for %v, want at least %v", d, giveWayMax)
	}
	var spent = giveWayTxMax
	m.giveWayIn(ctx, &spent)
	if spent != giveWayTxMax {
		t.Fatalf("a transaction past its bound gave way again: %v", spent)
	}
	// The read stays open for the whole import: the import still ends.
	ss := []*funes.Session{
		conv("g1", funes.HarnessClaudeCode, "One", "", day0, "the heron migration uses port 6412", "noted"),
		conv("g2", funes.HarnessClaudeCode, "Two", "", day0, "what port does the heron migration use?", "6412"),
	}
	if r := mustIngest(t, m, ss...); r.New != 2 {
		t.Fatalf("import beside an open read: %+v", r)
	}
	rt.Close()
	rt.Close()
	if n := m.reads.Load(); n != 0 {
		t.Fatalf("reads under way after the read closed twice: %d", n)
	}
	if d := m.giveWay(ctx); d != 0 {
		t.Fatalf("no read under way, yet gave way for %v", d)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	rt2, err := m.BeginRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rt2.Close()
	if d := m.giveWay(cancelled); d >= giveWayMax {
		t.Fatalf("a cancelled import gave way for %v", d)
	}
	if hits := searchTurns(t, m, "heron"); len(hits) != 2 {
		t.Fatalf("after the import: %d hits for heron, want 2", len(hits))
	}
}
