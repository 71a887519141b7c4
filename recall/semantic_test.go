package recall

import (
	"context"
	"strings"
	"testing"
)

// A paraphrase finds its passage: both conversations name the pump, only
// one says what the question means, in other words, and it is the older.
func TestSemanticStageFindsParaphrase(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("hot", "funes", "", "", day0, "Pump P-003: the bearing is overheating again, the temperature alarm went off at noon.", "Check the lubrication and the cooling fan."),
		conv("paid", "funes", "", "", day0.AddDate(0, 1, 0), "Pump P-003: the invoice for the spare parts was paid on Monday.", "Good, file the receipt with accounting."),
	)
	tn := DefaultTuning
	tn.VectorWeight = 0
	off, err := Recall(ctx, m, Options{Query: "is P-003 still running too hot?", Tuning: &tn})
	if err != nil {
		t.Fatal(err)
	}
	tn.VectorWeight = 1
	on, err := Recall(ctx, m, Options{Query: "is P-003 still running too hot?", Tuning: &tn})
	if err != nil {
		t.Fatal(err)
	}
	if len(off.Hits) > 0 {
		t.Logf("without vectors the first hit is %q", off.Hits[0].SessionID)
	}
	if len(on.Hits) == 0 || on.Hits[0].SessionID != "hot" {
		t.Fatalf("with vectors: want the overheating conversation first, got %+v", on.Hits)
	}
	// Deterministic: the same question gives the same order and scores.
	again, err := Recall(ctx, m, Options{Query: "is P-003 still running too hot?", Tuning: &tn})
	if err != nil {
		t.Fatal(err)
	}
	for i := range on.Hits {
		if on.Hits[i].TurnUUID != again.Hits[i].TurnUUID || on.Hits[i].Score != again.Hits[i].Score {
			t.Fatalf("hit %d differs between runs", i)
		}
	}
}

// A question with no word the vectors know, or few candidates, leaves BM25's
// order alone and errs nowhere.
func TestSemanticStageSafe(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("a", "funes", "", "", day0, "Ticket MT-4471 covers the seal.", "ok"),
		conv("b", "funes", "", "", day0, "Ticket MT-9999 is another one.", "ok"),
	)
	tn := DefaultTuning
	tn.VectorWeight = 1
	for _, q := range []string{"MT-4471", "zzqxjv MT-4471", "ticket", `"unbalanced`, "ü"} {
		res, err := Recall(ctx, m, Options{Query: q, Tuning: &tn})
		if err != nil {
			if q == "ü" || q == `"unbalanced` {
				continue
			}
			t.Fatalf("%q: %v", q, err)
		}
		if q == "MT-4471" && (len(res.Hits) == 0 || res.Hits[0].SessionID != "a") {
			t.Fatalf("%q: want a first, got %+v", q, res.Hits)
		}
	}
	if err := semantic(ctx, m, "anything", nil, tn); err != nil {
		t.Fatal(err)
	}
}

// The window is the turns either side of a candidate's, in its own conversation.
func TestTurnsAround(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("a", "funes", "", "", day0, "first question", "the answer in between", "a follow-up"),
		conv("b", "funes", "", "", day0, "another conversation", "elsewhere"),
	)
	res, err := Recall(ctx, m, Options{Query: "answer between"})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("recall: %v %+v", err, res)
	}
	h := res.Hits[0]
	around, err := turnsAround(ctx, m, []candidate{{sess: h.sess, seq: h.Seq}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := around[[2]int64{h.sess, int64(h.Seq)}]
	if !strings.Contains(got[0], "first question") || !strings.Contains(got[1], "a follow-up") || strings.Contains(got[0]+got[1], "elsewhere") {
		t.Fatalf("window of %q: %q", h.Text, got)
	}
}

func TestAsksWhen(t *testing.T) {
	for q, want := range map[string]bool{
		"what did we decide in March":         true,
		"the budget from two weeks ago":       true,
		"what changed in 2025?":               true,
		"is P-003 still running too hot?":     false,
		"may I ask about the pump":            false,
		"what port did we use, 8080 or 20000": false,
	} {
		if got := asksWhen(q); got != want {
			t.Errorf("asksWhen(%q) = %v, want %v", q, got, want)
		}
	}
}
