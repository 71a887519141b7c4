package recall

import (
	"context"
	"slices"
	"testing"

	"github.com/ireneo-app/ireneo/memory"
)

// receipts are the top hits of a recall as session_id/turn_uuid.
func receipts(t *testing.T, m *memory.Memory, query, project string, tn *Tuning) []string {
	t.Helper()
	res, err := Recall(context.Background(), m, Options{Query: query, Project: project, K: 3, Budget: 2000, Tuning: tn})
	if err != nil {
		t.Fatalf("recall %q: %v", query, err)
	}
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.SessionID+"/"+h.TurnUUID)
	}
	return out
}

// v0Recalls are queries and the top hits the first release gave for them;
// the upgraded memory must give the same.
var v0Recalls = []struct {
	query, project string
	top            string // the first release's best hit
	all            []string
}{
	{query: "flaky test", top: "0195a000-0000-7000-8000-000000000001/0195a000-0000-7000-8000-000000000001-0"},
	{query: "database for the catalog", top: "c-2/p1", all: []string{"c-2/p1", "c-2/p3", "c-2/p4"}},
	{query: "database", project: "ireneo", top: "c-2/p1", all: []string{"c-2/p1", "c-2/p3", "c-2/p4"}},
	{query: "llama build", top: "7d0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b/a-4"},
	{query: "Lisbon", top: "conv-nocurrent/q", all: []string{"conv-nocurrent/q", "conv-nocurrent/aB"}},
	{query: "WAL checkpoint", top: "0195a000-0000-7000-8000-000000000001/0195a000-0000-7000-8000-000000000001-8",
		all: []string{"0195a000-0000-7000-8000-000000000001/0195a000-0000-7000-8000-000000000001-8"}},
	{query: "Custom GPT", top: "conv-gpt/h", all: []string{"conv-gpt/h", "conv-gpt/g"}},
	{query: "Old export", all: []string{}}, // c-3, forgotten
}

// TestFirstReleaseMemoryRecallsAsBefore: a memory written by the first
// release opens with no manual step (its index rebuilt in this layout) and
// recall gives the receipts that release gave.
func TestFirstReleaseMemoryRecallsAsBefore(t *testing.T) {
	t.Parallel()
	m, err := memory.Open(copyMemory(t, v0Memory))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, r := range v0Recalls {
		got := receipts(t, m, r.query, r.project, nil)
		if r.all != nil && !slices.Equal(got, r.all) {
			t.Errorf("recall %q (project %q) = %v, want %v", r.query, r.project, got, r.all)
		}
		if r.top != "" && (len(got) == 0 || got[0] != r.top) {
			t.Errorf("recall %q (project %q) = %v, want %s first", r.query, r.project, got, r.top)
		}
	}
}
