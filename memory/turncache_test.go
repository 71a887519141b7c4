package memory

import (
	"context"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
)

// TestTurnCacheFollowsWrites: the role and time recall keeps of candidate
// turns are those of the memory as it is now, after a re-import changed
// them and after a forget.
func TestTurnCacheFollowsWrites(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	mustIngest(t, m, conv("a", "claude-code", "notes", "", day0, "walrus ledger", "ledger walrus again"))
	terms := queryTerms("walrus ledger")
	ask := func() []Candidate {
		return readCandidates(t, m, RecallQuery{Query: engine.Query{Terms: terms, K: 5}, Params: engine.DefaultParams()})
	}
	first := ask()
	if len(first) != 2 || len(m.turnCache.m) != 2 {
		t.Fatalf("first recall: %d candidates, %d kept", len(first), len(m.turnCache.m))
	}
	if again := ask(); again[0].TS != first[0].TS || again[0].Role != first[0].Role {
		t.Fatalf("from the cache: %+v, read: %+v", again[0], first[0])
	}
	// The same conversation again, a day later and with its roles swapped.
	later := conv("a", "claude-code", "notes", "", day0.Add(24*time.Hour), "walrus ledger", "ledger walrus again", "more")
	later.Turns[0].Role, later.Turns[1].Role = funes.RoleAssistant, funes.RoleUser
	mustIngest(t, m, later)
	byseq := map[int]Candidate{}
	for _, c := range ask() {
		byseq[c.Seq] = c
	}
	if c := byseq[0]; c.TS != day0.Add(24*time.Hour).Unix() || c.Role != funes.RoleAssistant {
		t.Fatalf("after a re-import: turn 0 is %+v, want the new time and role", c)
	}
	if _, err := m.Forget(ctx, []string{"a"}, nil); err != nil {
		t.Fatal(err)
	}
	if cs := ask(); len(cs) != 0 {
		t.Fatalf("after a forget: %+v", cs)
	}
}
