package memory

import (
	"context"
	"errors"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// TestForgetWhileStoredAgain: another process's import or scrub --apply
// that stores the conversation again while a forget runs gives it a new
// row: the forget must erase it by what it is (harness and id), not fail
// on the row it found first. Measured with a 2,000-conversation scrub in
// one process and forgets in others: three forgets failed with "sql: no
// rows in result set" (the journal finished them at the next open).
func TestForgetWhileStoredAgain(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	const marker = "StoredAgainMarker6610"
	mustIngest(t, m,
		conv("gone-1", funes.HarnessClaude, "Plans", "", day0, "the plan is "+marker, "noted"),
		conv("keep-1", funes.HarnessCodex, "Tea", "", day0, "which tea is best", "green tea"),
	)
	before, err := findSession(ctx, m.db, "gone-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	afterQuoteSweep = func() {
		afterQuoteSweep = nil
		mustIngest(t, m, conv("gone-1", funes.HarnessClaude, "Plans", "", day0, "the plan is "+marker, "noted", "one more "+marker, "ok"))
		if again, err := findSession(ctx, m.db, "gone-1", nil); err != nil || again.id == before.id {
			t.Errorf("the update should store it in a new row: %v (row %d, was %d)", err, again.id, before.id)
		}
	}
	defer func() { afterQuoteSweep = nil }()
	rep, err := m.Forget(ctx, []string{"gone-1"}, nil)
	if err != nil {
		t.Fatalf("forget of a conversation stored again meanwhile: %v", err)
	}
	if len(rep.Sessions) != 1 || rep.Sessions[0].Turns != 4 || rep.Files != 1 {
		t.Errorf("report %+v: want the conversation as stored last (4 turns), its file removed", rep)
	}
	if _, err := findSession(ctx, m.db, "gone-1", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("still stored: %v", err)
	}
	m.checkpoint(ctx)
	if found := grepDir(t, m.Dir(), marker); len(found) > 0 {
		t.Errorf("%s is still in %v", marker, found)
	}
	if _, err := findSession(ctx, m.db, "keep-1", nil); err != nil {
		t.Errorf("the kept conversation: %v", err)
	}
}
