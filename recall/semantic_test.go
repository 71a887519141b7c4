package recall

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/wordvec"
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
	// The stopwords' share ("is" in the overheating turn) would lead the
	// control on its own; this test is about the vectors.
	tn.VectorWeight, tn.StopAdd = 0, 0
	off, err := Recall(ctx, m, Options{Query: "is P-003 still running too hot?", Tuning: &tn})
	if err != nil {
		t.Fatal(err)
	}
	tn.VectorWeight = 1
	on, err := Recall(ctx, m, Options{Query: "is P-003 still running too hot?", Tuning: &tn})
	if err != nil {
		t.Fatal(err)
	}
	// The control: without vectors only the identifier matches both, and the
	// newer conversation leads; otherwise this test proves nothing about them.
	if len(off.Hits) == 0 || off.Hits[0].SessionID != "paid" {
		t.Fatalf("without vectors: want the newer invoice conversation first (the control), got %+v", off.Hits)
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

// A question with no word the vectors know leaves the order without vectors
// alone, a single candidate stays, and nothing errs.
func TestSemanticStageSafe(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("a", "funes", "", "", day0, "Ticket MT-4471 covers the seal.", "ok"),
		conv("b", "funes", "", "", day0, "Ticket MT-9999 is another one.", "ok"),
		conv("c", "funes", "", "", day0.AddDate(0, 0, 1), "zzqxjv qqvvzz MT-4471 again.", "ok"),
		conv("d", "funes", "", "", day0, "zzqxjv qqvvzz zzqxjv, twice.", "ok"),
	)
	on, off := DefaultTuning, DefaultTuning
	on.VectorWeight, off.VectorWeight = 1, 0
	order := func(res *Result) []string {
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.TurnUUID)
		}
		return out
	}
	for _, q := range []string{"zzqxjv qqvvzz", "MT-4471", "zzqxjv MT-4471", "ticket", `"unbalanced`, "ü"} {
		with, err := Recall(ctx, m, Options{Query: q, Tuning: &on})
		if err != nil {
			if q == "ü" || q == `"unbalanced` {
				continue
			}
			t.Fatalf("%q: %v", q, err)
		}
		without, err := Recall(ctx, m, Options{Query: q, Tuning: &off})
		if err != nil {
			t.Fatalf("%q without vectors: %v", q, err)
		}
		if q == "MT-4471" && (len(with.Hits) == 0 || with.Hits[0].SessionID != "c") {
			t.Fatalf("%q: want c (newest) first, got %+v", q, with.Hits)
		}
		known := wordvec.Sentence(q) != nil
		if q == "zzqxjv qqvvzz" && (known || len(without.Hits) < 2) {
			t.Fatalf("%q: want a question the vectors know no word of, with two candidates: known %v, %d hits", q, known, len(without.Hits))
		}
		if !known && !slices.Equal(order(with), order(without)) {
			t.Errorf("%q (no word the vectors know): order %v with vectors, %v without", q, order(with), order(without))
		}
		if known && len(without.Hits) >= 2 {
			t.Logf("%q: order %v with vectors, %v without", q, order(with), order(without))
		}
	}
	// One candidate: nothing to reorder.
	one, err := Recall(ctx, m, Options{Query: "seal", Tuning: &on})
	if err != nil || len(one.Hits) != 1 || one.Hits[0].SessionID != "a" {
		t.Fatalf("one candidate with vectors: %v %+v", err, one)
	}
	semantic("anything", nil, nil, on)
}

// The window is the turns either side of a candidate's, in its own
// conversation, as the snapshot reads them.
func TestTurnsAround(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("a", "funes", "", "", day0, "first question", "the answer in between", "a follow-up"),
		conv("b", "funes", "", "", day0, "another conversation", "elsewhere"),
	)
	tn := DefaultTuning
	tn.VectorWeight = 0.5
	r := newRun(Options{Query: "answer between", Tuning: &tn})
	snap, err := openSnapshot(ctx, m, r.readQuery())
	if err != nil || len(snap.Candidates) == 0 {
		t.Fatalf("candidates: %v %+v", err, snap)
	}
	defer snap.Close()
	c := snap.Candidates[0]
	before, after := turnsAround(snap.Around, candidate{sess: c.Sess, seq: c.Seq}, 1)
	if !strings.Contains(before, "first question") || !strings.Contains(after, "a follow-up") || strings.Contains(before+after, "elsewhere") {
		t.Fatalf("window of %q: %q, %q", c.Text, before, after)
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
