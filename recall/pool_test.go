package recall

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// A page past the tuning's candidate pool still finds its hits: the pool
// grows with K and Offset.
func TestPagesReachPastThePool(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	var ss []*funes.Session
	for i := range 30 {
		ss = append(ss, conv(fmt.Sprintf("c%02d", i), funes.HarnessChatGPT, "Kestrel", "", day0.Add(time.Duration(i)*time.Hour),
			fmt.Sprintf("the kestrel plan, part %d", i)))
	}
	mustIngest(t, m, ss...)
	tn := DefaultTuning
	tn.Candidates = 2
	seen := map[string]bool{}
	for off := 0; off < 30; off += 10 {
		res, err := Recall(ctx, m, Options{Query: "kestrel plan", K: 10, Offset: off, Budget: 1 << 20, Tuning: &tn})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 10 {
			t.Fatalf("page at %d: %d hits, want 10 (candidates %d)", off, len(res.Hits), tn.Candidates)
		}
		for _, h := range res.Hits {
			seen[h.TurnUUID] = true
		}
	}
	if len(seen) != 30 {
		t.Fatalf("three pages of 10 showed %d distinct turns, want 30", len(seen))
	}
}
