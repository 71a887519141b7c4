package memory

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// TestAmbiguousSessionID: a bare id two sources share is a typed error that
// names both; source:id picks one.
func TestAmbiguousSessionID(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	mustIngest(t, m,
		conv("same-id", funes.HarnessChatGPT, "one", "", day0, "from chatgpt"),
		conv("same-id", funes.HarnessClaude, "two", "", day0, "from claude"))
	ctx := context.Background()
	_, err := m.Get(ctx, GetOptions{SessionID: "same-id"})
	var amb *AmbiguousSessionError
	if !errors.Is(err, ErrAmbiguousSession) || !errors.As(err, &amb) || amb.ID != "same-id" {
		t.Fatalf("get same-id: %v, want an AmbiguousSessionError", err)
	}
	got := slices.Sorted(slices.Values(amb.Sources))
	if !slices.Equal(got, []string{funes.HarnessChatGPT, funes.HarnessClaude}) || !strings.Contains(err.Error(), "write it as") {
		t.Errorf("error %q names %v", err, amb.Sources)
	}
	if tr, err := m.Get(ctx, GetOptions{SessionID: funes.HarnessClaude + ":same-id"}); err != nil || tr.Session.Title != "two" {
		t.Errorf("get claude:same-id: %+v, %v", tr, err)
	}
}

func TestDay(t *testing.T) {
	t.Parallel()
	if got := Day(time.Time{}); got != Undated {
		t.Errorf("Day(zero) = %q", got)
	}
	// 23:30 in UTC-5 is the next day in UTC: one date everywhere, UTC's.
	ny := time.FixedZone("UTC-5", -5*3600)
	if got := Day(time.Date(2026, 3, 1, 23, 30, 0, 0, ny)); got != "2026-03-02" {
		t.Errorf("Day = %q, want the UTC date 2026-03-02", got)
	}
}

// A list filtered by an identifier holds the conversations that hold it, not
// every one holding one of its parts ("N-11" is not "11"); with a word beside
// it, the conversations holding both.
func TestSessionsQueryKeepsIdentifiersWhole(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	mustIngest(t, m,
		conv("has-id", funes.HarnessClaude, "rollout", "", day0, "The N-11 rollout goes out Thursday."),
		conv("has-part", funes.HarnessClaude, "numbers", "", day0, "We counted 11 boxes and an n."),
		conv("has-word", funes.HarnessClaude, "weather", "", day0, "Thursday looks rainy."))
	ctx := context.Background()
	list := func(q string) []string {
		infos, _, err := m.Sessions(ctx, SessionQuery{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range infos {
			ids = append(ids, s.SessionID)
		}
		slices.Sort(ids)
		return ids
	}
	if got := list("N-11"); !slices.Equal(got, []string{"has-id"}) {
		t.Errorf("N-11: %v, want only the conversation holding it", got)
	}
	if got := list("N-11 thursday"); !slices.Equal(got, []string{"has-id"}) {
		t.Errorf("N-11 thursday: %v, want the one conversation holding both", got)
	}
	if got := list("thursday"); !slices.Equal(got, []string{"has-id", "has-word"}) {
		t.Errorf("thursday: %v", got)
	}
	if got := list("rainy thursday"); !slices.Equal(got, []string{"has-word"}) {
		t.Errorf("rainy thursday: %v, want the conversation holding both words, not either", got)
	}
	if got := list("11"); !slices.Contains(got, "has-part") {
		t.Errorf("11 alone: %v, want the conversation holding 11", got)
	}
}
