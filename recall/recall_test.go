package recall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/querywords"
)

func TestIdentifiersFoundAsTyped(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("a", "funes", "", "", day0, "Ticket MT-4471 covers the seal.", "ok"),
		conv("b", "funes", "", "", day0, "Decision N-11: ship on Friday.", "ok"),
		conv("c", "funes", "", "", day0, "Pump P-003 again, see DR-512.", "ok"),
		conv("d", "funes", "", "", day0, "Reject rate was 3.4% this week.", "ok"),
		conv("e", "funes", "", "", day0, "Ticket MT 4471 is unrelated noise? no: MT-9999.", "ok"),
	)
	for q, want := range map[string]string{"MT-4471": "a", "N-11": "b", "P-003": "c", "DR-512": "c", "3.4%": "d", "mt4471": "a"} {
		res, err := Recall(ctx, m, Options{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].SessionID != want {
			t.Errorf("%s: want %s first, got %+v", q, want, res.Hits)
		}
	}
}

func TestRecallBudgetAndFlagsQuery(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	var ss []*funes.Session
	for i := 0; i < 30; i++ {
		ss = append(ss, conv(fmt.Sprintf("c%d", i), "funes", "budget talk", "", day0.Add(time.Duration(i)*time.Hour),
			strings.Repeat("budget planning words for the quarter ", 20), "we agreed on the budget", "fine"))
	}
	mustIngest(t, m, ss...)
	for _, b := range []int{50, 120, 300, 1000} {
		res, err := Recall(ctx, m, Options{Query: "budget", Budget: b, K: 20})
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, h := range res.Hits {
			sum += h.Tokens
		}
		if sum > b || res.TotalTokens != sum {
			t.Fatalf("budget %d: hits sum %d total %d", b, sum, res.TotalTokens)
		}
		if len(res.Hits)+res.Cut != 20 {
			t.Fatalf("budget %d: %d hits + %d cut", b, len(res.Hits), res.Cut)
		}
	}
	res, err := Recall(ctx, m, Options{Query: "-k 100 budget"})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("flag-like query: %v", err)
	}
	long := strings.Repeat("budget ", 400)
	if res, err = Recall(ctx, m, Options{Query: long}); err != nil || len([]rune(res.Query)) > querywords.MaxQueryRunes {
		t.Fatalf("long query: %v %d", err, len(res.Query))
	}
	for _, q := range []string{`"unbalanced`, `NEAR(a b)`, `a OR AND NOT`, `*`, `title:x`} {
		if _, err := Recall(ctx, m, Options{Query: q}); err != nil && !errors.Is(err, ErrEmptyQuery) {
			t.Fatalf("query %q: %v", q, err)
		}
	}
}

func TestRecencyNeverBeatsClearlyBetter(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	old := conv("old", "funes", "Compressor K-039", "", day0.AddDate(-2, 0, 0),
		"The vibration alarm on compressor K-039 keeps coming back; vibration alarm again on K-039.", "Replace the bearing on K-039.")
	weak := conv("new", "funes", "Lunch", "", day0,
		"Lunch was fine. Someone mentioned a compressor in passing.", "ok")
	mustIngest(t, m, old, weak)
	res, err := Recall(ctx, m, Options{Query: "compressor K-039 vibration alarm"})
	if err != nil || len(res.Hits) < 2 {
		t.Fatalf("%v %+v", err, res)
	}
	if res.Hits[0].SessionID != "old" {
		t.Fatalf("recency pushed a weak new match first: %+v", res.Hits[0])
	}
	// Between equal matches, the newer wins.
	a := conv("w1", "funes", "", "", day0.AddDate(0, 0, -14), "Line 4 reject rate this week: 2.9%", "noted")
	b := conv("w2", "funes", "", "", day0.AddDate(0, 0, -7), "Line 4 reject rate this week: 3.1%", "noted")
	mustIngest(t, m, a, b)
	res, _ = Recall(ctx, m, Options{Query: "line 4 reject rate"})
	if res.Hits[0].SessionID != "w2" {
		t.Fatalf("newer equal match should win: %+v", res.Hits[0].SessionID)
	}
}

func TestProjectFilterAndScope(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("p1", funes.HarnessCodex, "", "alpha", day0, "deploy the gateway service", "done"),
		conv("p2", funes.HarnessCodex, "", "beta", day0, "deploy the gateway service too", "done"),
		conv("u1", funes.HarnessChatGPT, "", "", day0, "how do I deploy a gateway", "like this"),
	)
	res, err := Recall(ctx, m, Options{Query: "deploy gateway", Project: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, h := range res.Hits {
		got[h.SessionID] = true
	}
	if !got["p1"] || !got["u1"] || got["p2"] {
		t.Fatalf("project alpha + untagged: %v", got)
	}
	res, _ = Recall(ctx, m, Options{Query: "deploy gateway", Scope: []string{"beta"}})
	if len(res.Hits) != 1 || res.Hits[0].SessionID != "p2" {
		t.Fatalf("scope beta: %+v", res.Hits)
	}
	if _, err := conversations.Get(ctx, m, conversations.GetOptions{SessionID: "p1", Scope: []string{"beta"}}); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("get out of scope: %v", err)
	}
	// Tags: untag the derived project, tag another, rename.
	if err := m.Untag(ctx, "p1", "alpha"); err != nil {
		t.Fatal(err)
	}
	if err := m.Tag(ctx, "p1", "gamma"); err != nil {
		t.Fatal(err)
	}
	if err := m.RenameProject(ctx, "gamma", "delta"); err != nil {
		t.Fatal(err)
	}
	ps, untagged, _ := conversations.Projects(ctx, m, nil)
	if fmt.Sprint(ps) != "[{beta 1} {delta 1}]" || untagged != 1 {
		t.Fatalf("projects: %v untagged %d", ps, untagged)
	}
	// A re-import does not bring back the untagged derived project.
	mustIngest(t, m, conv("p1", funes.HarnessCodex, "", "alpha", day0, "deploy the gateway service", "done", "more"))
	ps, _, _ = conversations.Projects(ctx, m, nil)
	if fmt.Sprint(ps) != "[{beta 1} {delta 1}]" {
		t.Fatalf("projects after re-import: %v", ps)
	}
}
