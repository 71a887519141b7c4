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
	_, err := m.LoadSession(ctx, "same-id")
	var amb *AmbiguousSessionError
	if !errors.Is(err, ErrAmbiguousSession) || !errors.As(err, &amb) || amb.ID != "same-id" {
		t.Fatalf("load same-id: %v, want an AmbiguousSessionError", err)
	}
	got := slices.Sorted(slices.Values(amb.Sources))
	if !slices.Equal(got, []string{funes.HarnessChatGPT, funes.HarnessClaude}) || !strings.Contains(err.Error(), "write it as") {
		t.Errorf("error %q names %v", err, amb.Sources)
	}
	if s, err := m.LoadSession(ctx, funes.HarnessClaude+":same-id"); err != nil || s.Title != "two" {
		t.Errorf("load claude:same-id: %+v, %v", s, err)
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
