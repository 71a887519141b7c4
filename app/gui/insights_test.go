package gui

import (
	"bytes"
	"context"
	"encoding/json"
	"image/color"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/cli"
	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/insights"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
)

// insightsMemory is the fixture memory with recent agent calls and a scrub
// record, so every chart and headline number has something to show.
func insightsMemory(t *testing.T) *memory.Memory {
	t.Helper()
	m := newTestMemory(t)
	ctx := context.Background()
	now := time.Now()
	var calls []auditlog.Entry
	for d := 0; d < 20; d++ {
		for i := 0; i < d%5+1; i++ {
			calls = append(calls, auditlog.Entry{TS: now.AddDate(0, 0, -d), Client: "claude-code", Tool: "recall", Outcome: auditlog.OK, Hits: 3})
		}
		calls = append(calls, auditlog.Entry{TS: now.AddDate(0, 0, -d), Client: "codex", Tool: "get", Outcome: auditlog.OK})
		if d%4 == 0 {
			calls = append(calls, auditlog.Entry{TS: now.AddDate(0, 0, -d), Client: "codex", Tool: "recall", Outcome: auditlog.NoMatch})
		}
		if d%7 == 0 {
			calls = append(calls, auditlog.Entry{TS: now.AddDate(0, 0, -d), Client: "cursor", Tool: "recall", Outcome: auditlog.Busy})
		}
		if d == 2 { // a request with no valid token, audited under (refused)
			calls = append(calls, auditlog.Entry{TS: now.AddDate(0, 0, -d), Client: mcpserver.RefusedClient, Tool: "POST /mcp", Outcome: auditlog.Unauthorized})
		}
	}
	if err := auditlog.Add(ctx, m, calls...); err != nil {
		t.Fatal(err)
	}
	if err := memscrub.RecordHistory(ctx, m, map[string]int{"aws-access-key": 2, "password": 1}); err != nil {
		t.Fatal(err)
	}
	// Recent conversations, so the year's weekly charts have bars.
	var recent []*funes.Session
	for i := 0; i < 30; i++ {
		ts := now.AddDate(0, 0, -i*9).UTC()
		recent = append(recent, &funes.Session{ID: "recent-" + strings.Repeat("x", i%3) + string(rune('a'+i)), Harness: []string{funes.HarnessChatGPT, funes.HarnessClaude, funes.HarnessCodex, funes.HarnessClaudeCode}[i%4],
			Title: "Recent talk", Project: []string{"falcon", "heron", "", "kestrel"}[i%4], Turns: []funes.Turn{
				{TurnUUID: "q", Seq: 0, TS: ts, Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: "How is the falcon launch going?"}}},
				{TurnUUID: "a", Seq: 1, TS: ts.Add(time.Minute), Role: funes.RoleAssistant, Blocks: []funes.Block{{Type: funes.BlockText, Text: "On track for June."}}},
			}})
	}
	if _, err := m.Ingest(ctx, recent, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return m
}

// cliInsights runs `ireneo insights --json` on the memory folder.
func cliInsights(t *testing.T, dir, rng string) insights.Insights {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"--memory", dir, "insights", "--json", "--range", rng}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("ireneo insights: exit %d: %s", code, errb.String())
	}
	var in insights.Insights
	if err := json.Unmarshal(out.Bytes(), &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// legendTexts are the labels of a legend.
func legendTexts(c *fyne.Container) []string {
	var out []string
	walk(c, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok {
			out = append(out, l.Text)
		}
	})
	return out
}

func TestInsightsScreenMatchesCLI(t *testing.T) {
	m := insightsMemory(t)
	u := newTestUI(t, m)
	u.app.Settings().SetTheme(fixedVariant{theme.DefaultTheme(), theme.VariantLight})
	s := u.insights
	// The first CLI run folds the write-ahead log into the database as it
	// closes, which changes the size on disk; measure after that.
	cliInsights(t, m.Dir(), insights.RangeYear)
	u.showScreen(screenInsights)
	waitIdle(t, u)
	want := cliInsights(t, m.Dir(), insights.RangeYear)
	if !s.loaded {
		t.Fatalf("the insights did not load: %s", u.lastError)
	}
	for i, v := range headlineValues(want.Headline) {
		if got := s.cards[i].value.Text; got != v {
			t.Errorf("%s shows %q; ireneo insights --json says %q", s.cards[i].caption, got, v)
		}
	}
	if want.Headline.Conversations != 35 || want.Headline.Redacted != 3 {
		t.Errorf("headline %+v", want.Headline)
	}
	for _, check := range []struct {
		legend *fyne.Container
		names  []string
		totals []int
	}{
		{s.sourceLegend, names(want.BySource, sourceName), totals(want.BySource)},
		{s.projectLegend, names(want.ByProject, func(n string) string { return n }), totals(want.ByProject)},
	} {
		got := legendTexts(check.legend)
		if len(got) != len(check.names) || len(got) == 0 {
			t.Fatalf("legend %q, want %d entries", got, len(check.names))
		}
		for i := range got {
			if wantText := check.names[i] + "  " + groupDigits(check.totals[i]); got[i] != wantText {
				t.Errorf("legend entry %q, want %q", got[i], wantText)
			}
		}
	}
	agents := strings.Join(legendTexts(s.agentLegend), " | ")
	if strings.Contains(agents, mcpserver.RefusedClient) || strings.Count(agents, "Refused") != 1 {
		t.Errorf("refused requests are one legend entry, not a client beside it: %q", agents)
	}
	for _, a := range want.Agents {
		if a.Client == mcpserver.RefusedClient {
			continue
		}
		if !strings.Contains(agents, a.Client+"  "+groupDigits(a.Total)+" calls") {
			t.Errorf("agent legend %q lacks %s with %d calls", agents, a.Client, a.Total)
		}
	}
	if !strings.Contains(agents, "No match  5") || !strings.Contains(agents, "Refused  4") {
		t.Errorf("agent legend %q", agents)
	}
	// The agent chart starts at the first day with a call, 19 days ago,
	// rather than a year of empty days with slivers of bars at the end.
	// The weekly charts start at the first week with a conversation (the
	// fixture's first is in March, weeks into the year).
	first := firstWeek(want)
	for _, ser := range want.BySource {
		for w, v := range ser.Conversations[:first] {
			if v > 0 {
				t.Errorf("%s has %d conversations in week %d, before the charts' first week %d", ser.Name, v, w, first)
			}
		}
	}
	if first == 0 || firstWeek(insights.Insights{Weeks: make([]time.Time, 20),
		BySource: []insights.WeekSeries{{Conversations: append(make([]int, 18), 1, 0)}}}) != 12 {
		t.Errorf("firstWeek: %d for the fixture; a series starting two weeks before the end should still show eight weeks", first)
	}
	if len(s.sources.spec.stacks) != 4 || s.sources.spec.n != len(want.Weeks)-first || s.agents.spec.n != 20 || s.agentHead.Text != "Agent access per day" {
		t.Errorf("charts: %d source stacks over %d weeks, agents over %d days (%q)", len(s.sources.spec.stacks), s.sources.spec.n, s.agents.spec.n, s.agentHead.Text)
	}
	if s.sources.img.Image.Bounds().Dx() < 300 {
		t.Errorf("the source chart was not drawn: %v", s.sources.img.Image.Bounds())
	}
	capture(t, u, "insights")
	walk(u.tabs.Selected().Content, func(o fyne.CanvasObject) {
		if sc, ok := o.(*container.Scroll); ok {
			sc.ScrollToBottom()
		}
	})
	waitIdle(t, u)
	capture(t, u, "insights-agents")

	// Turns instead of conversations, then all time.
	s.measure.SetSelected(measureTurns)
	waitIdle(t, u)
	if !strings.HasSuffix(legendTexts(s.sourceLegend)[0], groupDigits(want.BySource[0].TotalTurns)) {
		t.Errorf("turns legend %q", legendTexts(s.sourceLegend))
	}
	s.rng.SetSelected(insightsRangeNames[insights.RangeAll])
	waitIdle(t, u)
	if all := cliInsights(t, m.Dir(), insights.RangeAll); s.sources.spec.n != len(all.Weeks)-firstWeek(all) {
		t.Errorf("all time: %d weeks on screen, %d in --json from the first with a conversation", s.sources.spec.n, len(all.Weeks)-firstWeek(all))
	}

	// A forget refreshes the screen without a restart.
	if _, err := m.Forget(context.Background(), []string{"conv-budget"}, nil); err != nil {
		t.Fatal(err)
	}
	u.memoryChanged()
	waitIdle(t, u)
	if got := s.cards[0].value.Text; got != groupDigits(want.Headline.Conversations-1) {
		t.Errorf("after a forget the screen shows %s conversations", got)
	}
	if got := s.cards[7].value.Text; got != groupDigits(want.Headline.Forgotten+1) {
		t.Errorf("after a forget the screen shows %s forgotten", got)
	}

	// The dark theme draws the charts again in its colours.
	s.rng.SetSelected(insightsRangeNames[insights.RangeYear])
	waitIdle(t, u)
	u.app.Settings().SetTheme(fixedVariant{theme.DefaultTheme(), theme.VariantDark})
	waitIdle(t, u)
	capture(t, u, "insights-dark")
}

// fixedVariant is the default theme in one variant, whatever the
// system prefers.
type fixedVariant struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (f fixedVariant) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return f.Theme.Color(n, f.v)
}

func names(ss []insights.WeekSeries, named func(string) string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, clip(named(s.Name), 18))
	}
	return out
}

func totals(ss []insights.WeekSeries) []int {
	var out []int
	for _, s := range ss {
		out = append(out, s.TotalConvs)
	}
	return out
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q", n, got)
		}
	}
}

// TestChartLabelsStayInside: the x axis's first label sits half a spacing
// in when bars are many (its text would run past the chart's left edge),
// and every bar is labelled when they are few.
func TestChartLabelsStayInside(t *testing.T) {
	label := func(i int) string { return strconv.Itoa(i) }
	many := labelTicks{n: 52, label: label}.Ticks(0, 52)
	if len(many) == 0 || len(many) > 7 || many[0].Value < 1 {
		t.Errorf("52 bars: ticks %+v, want at most seven, the first past bar 0", many)
	}
	few := labelTicks{n: 5, label: label}.Ticks(0, 5)
	if len(few) != 5 || few[0].Value != 0 {
		t.Errorf("5 bars: ticks %+v, want each bar labelled", few)
	}
}
