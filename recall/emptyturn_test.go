package recall

import (
	"context"
	"testing"
)

// TestHitBesideAnEmptyTurn: a hit whose neighbour is a message with no text
// (no preview stored, no searched chunk) is shown, with the empty turn
// beside it, where the recall failed on its NULL preview.
func TestHitBesideAnEmptyTurn(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	mustIngest(t, m, conv("a", "funes", "", "", day0, "The pump seal leaks again.", "", "Replace the seal on the pump."))
	for _, k := range []int{1, 3} {
		res, err := Recall(context.Background(), m, Options{Query: "pump seal", K: k})
		if err != nil {
			t.Fatalf("k %d: %v", k, err)
		}
		if len(res.Hits) == 0 || res.Hits[0].SessionID != "a" {
			t.Fatalf("k %d: %+v, want a hit from a", k, res.Hits)
		}
	}
}
