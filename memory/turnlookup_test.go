package memory

import (
	"context"
	"slices"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// StoredTurns names every conversation of the harness holding a turn but
// the one excepted; StoredSession loads one conversation of one harness.
func TestTurnLookup(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	a := conv("a", funes.HarnessClaudeCode, "A", "", day0, "q", "r")
	b := conv("b", funes.HarnessClaudeCode, "B", "", day0, "q", "r", "q2")
	b.Turns[0].TurnUUID, b.Turns[1].TurnUUID = "a-t0", "a-t1" // copied by a resume
	c := conv("c", funes.HarnessCodex, "C", "", day0, "q")
	c.Turns[0].TurnUUID = "a-t0" // another harness: not asked about
	mustIngest(t, m, a, b, c)

	got, err := m.StoredTurns(ctx, funes.HarnessClaudeCode, "x", []string{"a-t0", "a-t1", "b-t2", "none"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range got {
		slices.Sort(h)
	}
	if len(got) != 3 || !slices.Equal(got["a-t0"], []string{"a", "b"}) || !slices.Equal(got["a-t1"], []string{"a", "b"}) || !slices.Equal(got["b-t2"], []string{"b"}) {
		t.Errorf("holders %v", got)
	}
	if got, err := m.StoredTurns(ctx, funes.HarnessClaudeCode, "a", []string{"a-t0"}); err != nil || !slices.Equal(got["a-t0"], []string{"b"}) {
		t.Errorf("except a: %v %v", got, err)
	}

	s, ok, err := m.StoredSession(ctx, funes.HarnessClaudeCode, "b")
	if err != nil || !ok || s.Title != "B" || len(s.Turns) != 3 || s.Turns[0].TurnUUID != "a-t0" {
		t.Errorf("b: %v %v %+v", ok, err, s)
	}
	if _, ok, err := m.StoredSession(ctx, funes.HarnessCodex, "b"); ok || err != nil {
		t.Errorf("b as codex: %v %v", ok, err)
	}
}
