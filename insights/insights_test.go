package insights

import (
	"context"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"
	"github.com/ireneo-app/ireneo/memory/memorytest"
	"github.com/ireneo-app/ireneo/memscrub"
)

var (
	conv = funestest.Conv
	day0 = funestest.Day0
)

func TestInsights(t *testing.T) {
	m := memorytest.Open(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) // a Monday
	mon := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC) // last week's Monday
	memorytest.Ingest(t, m,
		conv("a", funes.HarnessChatGPT, "A", "falcon", mon, "q", "a", "q", "a"),           // 4 turns, last week
		conv("b", funes.HarnessChatGPT, "B", "", mon.Add(48*time.Hour), "q", "a"),         // 2 turns, last week
		conv("c", funes.HarnessCodex, "C", "falcon", now.Add(-time.Hour), "q", "a", "q"),  // 3 turns, this week
		conv("d", funes.HarnessClaude, "D", "heron", now.AddDate(0, -6, 0), "q", "a"),     // half a year ago
		conv("e", funes.HarnessClaudeCode, "E", "heron", now.AddDate(-2, 0, 0), "q", "a"), // two years ago
		conv("gone", funes.HarnessClaude, "Gone", "", mon, "forget me", "ok"),             // forgotten below
	)
	if _, err := m.Forget(ctx, []string{"gone"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := memscrub.RecordHistory(ctx, m, map[string]int{"aws-key": 2, "password": 1}); err != nil {
		t.Fatal(err)
	}
	day := func(d int) time.Time { return now.AddDate(0, 0, -d) }
	err := auditlog.Add(ctx, m, auditlog.Entry{TS: day(1), Client: "claude-code", Tool: "recall", Outcome: auditlog.OK, Hits: 3},
		auditlog.Entry{TS: day(1), Client: "claude-code", Tool: "recall", Outcome: auditlog.NoMatch},
		auditlog.Entry{TS: day(1), Client: "claude-code", Tool: "get", Outcome: auditlog.OK},
		auditlog.Entry{TS: day(0), Client: "codex", Tool: "recall", Outcome: auditlog.Busy},
		auditlog.Entry{TS: day(0), Client: "codex", Tool: "recall", Outcome: auditlog.Timeout},
		auditlog.Entry{TS: day(0), Client: "codex", Tool: "sessions", Outcome: auditlog.OK}, // not recall or get
		auditlog.Entry{TS: day(200), Client: "codex", Tool: "recall", Outcome: auditlog.OK}, // outside 3 months
	)
	if err != nil {
		t.Fatal(err)
	}

	in, err := Read(ctx, m, Query{Range: Range3Months, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	h := in.Headline
	if h.Conversations != 5 || h.Turns != 13 || h.Forgotten != 1 || h.Redacted != 3 || h.SizeBytes <= 0 || h.Tokens <= 0 {
		t.Errorf("headline %+v", h)
	}
	if h.Oldest == nil || !h.Oldest.Equal(now.AddDate(-2, 0, 0)) || h.Newest == nil || !h.Newest.Equal(now.Add(-time.Hour+2*time.Minute)) {
		t.Errorf("oldest %v newest %v", h.Oldest, h.Newest)
	}
	if n := len(in.Weeks); n < 13 || n > 15 {
		t.Fatalf("3 months should be 13-15 weeks, got %d", n)
	}
	last := len(in.Weeks) - 1
	if !in.Weeks[last].Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) || in.Weeks[last].Weekday() != time.Monday {
		t.Errorf("last week starts %v", in.Weeks[last])
	}
	src := map[string]WeekSeries{}
	for _, s := range in.BySource {
		src[s.Name] = s
	}
	if len(src) != 2 {
		t.Errorf("3 months should hold chatgpt and codex only: %+v", in.BySource)
	}
	if g := src[funes.HarnessChatGPT]; g.Conversations[last-1] != 2 || g.Turns[last-1] != 6 || g.TotalConvs != 2 {
		t.Errorf("chatgpt series %+v", g)
	}
	if c := src[funes.HarnessCodex]; c.Conversations[last] != 1 || c.Turns[last] != 3 {
		t.Errorf("codex series %+v", c)
	}
	if len(in.ByProject) != 1 || in.ByProject[0].Name != "falcon" || in.ByProject[0].TotalConvs != 2 || in.ByProject[0].TotalTurns != 7 {
		t.Errorf("by project %+v", in.ByProject)
	}

	agents := map[string]AgentSeries{}
	for _, a := range in.Agents {
		agents[a.Client] = a
	}
	ld := len(in.Days) - 1
	if !in.Days[ld].Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("last day %v", in.Days[ld])
	}
	if a := agents["claude-code"]; a.Answered[ld-1] != 2 || a.NoMatch[ld-1] != 1 || a.Total != 3 {
		t.Errorf("claude-code access %+v", a)
	}
	if a := agents["codex"]; a.Refused[ld] != 1 || a.Failed[ld] != 1 || a.Total != 2 {
		t.Errorf("codex access %+v (sessions calls and calls before the range do not count)", a)
	}

	all, err := Read(ctx, m, Query{Range: RangeAll, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.BySource) != 4 || len(all.Weeks) < 104 || !all.Weeks[0].Equal(weekStart(weekOf(now.AddDate(-2, 0, 0).Unix()))) {
		t.Errorf("all: %d sources, %d weeks from %v", len(all.BySource), len(all.Weeks), all.Weeks[0])
	}
	if len(all.ByProject) != 2 || all.ByProject[0].TotalConvs != 2 || all.ByProject[1].TotalConvs != 2 || all.ByProject[0].Name != "falcon" {
		t.Errorf("all by project %+v", all.ByProject)
	}
	if len(all.Agents) != 2 || all.Agents[0].Client != "claude-code" || all.Agents[1].Total != 3 || all.Agents[1].Answered[0] != 1 {
		t.Errorf("all agents %+v", all.Agents)
	}
	if _, err := Read(ctx, m, Query{Range: "fortnight"}); err == nil {
		t.Error("an unknown range should be an error")
	}
}

func TestInsightsEmptyMemory(t *testing.T) {
	m := memorytest.Open(t)
	in, err := Read(context.Background(), m, Query{})
	if err != nil {
		t.Fatal(err)
	}
	if in.Range != RangeAll || in.Headline.Conversations != 0 || in.Headline.Oldest != nil || len(in.Weeks) != 1 || len(in.Days) != 1 ||
		in.BySource == nil || in.ByProject == nil || in.Agents == nil {
		t.Errorf("empty insights %+v", in)
	}
}

func TestInsightsTopTenProjects(t *testing.T) {
	m := memorytest.Open(t)
	var ss []*funes.Session
	for i := 0; i < 12; i++ {
		for j := 0; j <= i; j++ {
			ss = append(ss, conv(string(rune('a'+i))+"-"+string(rune('a'+j)), funes.HarnessCodex, "t", "p"+string(rune('a'+i)), day0, "q", "a"))
		}
	}
	memorytest.Ingest(t, m, ss...)
	in, err := Read(context.Background(), m, Query{Now: day0.AddDate(0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.ByProject) != 10 || in.ByProject[0].Name != "pl" || in.ByProject[0].TotalConvs != 12 || in.ByProject[9].Name != "pc" {
		t.Errorf("top 10: %+v", in.ByProject)
	}
}

// The screen's chart and the agents' tool sort an outcome into one class.
func TestClass(t *testing.T) {
	for outcome, want := range map[string]int{
		auditlog.OK: Answered, auditlog.NoMatch: NoMatch, auditlog.NotFound: NoMatch,
		auditlog.Busy: Refused, auditlog.Unauthorized: Refused, auditlog.Forbidden: Refused,
		auditlog.Invalid: Refused, "too_large": Refused, "refused_scope": Refused,
		auditlog.Timeout: Failed, auditlog.Unavailable: Failed, auditlog.Cancelled: Failed, "": Failed,
	} {
		if got := Class(outcome); got != want {
			t.Errorf("Class(%q) = %d, want %d", outcome, got, want)
		}
	}
}
