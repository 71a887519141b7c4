package gui

import (
	"context"
	"fmt"
	"image/color"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/insights"
	"github.com/ireneo-app/ireneo/mcpserver"
)

// The insights screen: headline numbers, conversations (or turns) per week
// by source and by project, and agents' calls per day, over a range. The
// numbers are insights.Insights, the same as `ireneo insights --json`.

var insightsRangeNames = map[string]string{
	insights.Range3Months: "Last 3 months",
	insights.RangeYear:    "Last year",
	insights.RangeAll:     "All time",
}

const (
	measureConversations = "Conversations"
	measureTurns         = "Turns"
)

// Series colours: readable on the light and the dark theme alike.
var (
	sourceColours = map[string]color.Color{
		funes.HarnessChatGPT:    color.NRGBA{0x10, 0xa3, 0x7f, 0xff},
		funes.HarnessClaude:     color.NRGBA{0xd9, 0x77, 0x57, 0xff},
		funes.HarnessCodex:      color.NRGBA{0x3b, 0x82, 0xf6, 0xff},
		funes.HarnessClaudeCode: color.NRGBA{0xa8, 0x55, 0xf7, 0xff},
	}
	// palette is Tableau 10, for projects and clients.
	palette = []color.Color{
		color.NRGBA{0x4e, 0x79, 0xa7, 0xff}, color.NRGBA{0xf2, 0x8e, 0x2b, 0xff}, color.NRGBA{0xe1, 0x57, 0x59, 0xff},
		color.NRGBA{0x76, 0xb7, 0xb2, 0xff}, color.NRGBA{0x59, 0xa1, 0x4f, 0xff}, color.NRGBA{0xed, 0xc9, 0x48, 0xff},
		color.NRGBA{0xb0, 0x7a, 0xa1, 0xff}, color.NRGBA{0xff, 0x9d, 0xa7, 0xff}, color.NRGBA{0x9c, 0x75, 0x5f, 0xff},
		color.NRGBA{0xba, 0xb0, 0xac, 0xff},
	}
	noMatchColour = color.NRGBA{0x8a, 0x8f, 0x98, 0xff}
	refusedColour = color.NRGBA{0xd6, 0x27, 0x28, 0xff}
	failedColour  = color.NRGBA{0xff, 0xb0, 0x00, 0xff}
)

// headlineCard is one headline number and its caption.
type headlineCard struct {
	caption string
	value   *widget.Label
}

type insightsScreen struct {
	u       *ui
	rng     *widget.Select
	measure *widget.RadioGroup
	status  *widget.Label
	cards   []headlineCard

	sources, projects, agents                *chart
	sourceLegend, projectLegend, agentLegend *fyne.Container
	agentHead                                *widget.Label
	agentNone                                *widget.Label // stands in for an empty agent chart
	// charts holds the headline and the charts; empty says what to do
	// first in their place while the memory is empty.
	charts fyne.CanvasObject
	empty  *widget.Label

	data   insights.Insights
	loaded bool
	seq    int
}

var headlineCaptions = []string{"Conversations", "Turns", "Tokens", "Oldest", "Newest", "Size on disk", "Secrets redacted", "Forgotten"}

func newInsightsScreen(u *ui) *insightsScreen {
	s := &insightsScreen{u: u}
	var names []string
	for _, r := range insights.Ranges {
		names = append(names, insightsRangeNames[r])
	}
	s.rng = newSelect(names, insightsRangeNames[insights.RangeYear], func(string) { s.refresh() })
	s.measure = widget.NewRadioGroup([]string{measureConversations, measureTurns}, func(string) { s.draw() })
	s.measure.Horizontal = true
	s.measure.Required = true
	s.measure.SetSelected(measureConversations)
	s.status = widget.NewLabel("")
	for _, c := range headlineCaptions {
		v := widget.NewLabelWithStyle("–", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		v.SizeName = theme.SizeNameSubHeadingText
		s.cards = append(s.cards, headlineCard{caption: c, value: v})
	}
	s.sources, s.projects, s.agents = newChart(u), newChart(u), newChart(u)
	legendCell := fyne.NewSize(190, 26)
	s.sourceLegend = container.NewGridWrap(legendCell)
	s.projectLegend = container.NewGridWrap(legendCell)
	s.agentLegend = container.NewGridWrap(fyne.NewSize(250, 26))
	s.agentHead = widget.NewLabelWithStyle("Agent access per day", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.empty = widget.NewLabel("")
	s.empty.Wrapping = fyne.TextWrapWord
	s.empty.Hide()
	s.agentNone = widget.NewLabel("No agent has called this memory in this range. Connect one on the Connect screen; " +
		"its recall and get calls show here.")
	s.agentNone.Wrapping = fyne.TextWrapWord
	s.agentNone.Hide()
	u.app.Settings().AddListener(func(fyne.Settings) { fyneDo(s.draw) })
	return s
}

func (s *insightsScreen) content() fyne.CanvasObject {
	refresh := widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), s.refresh)
	top := container.NewHBox(widget.NewLabel("Range"), s.rng, s.measure, refresh, layout.NewSpacer(), s.status)
	grid := container.NewGridWithColumns(4)
	for _, c := range s.cards {
		grid.Add(container.New(layout.NewCustomPaddedVBoxLayout(-12), c.value, newMuted(c.caption)))
	}
	section := func(head *widget.Label, note string, legend *fyne.Container, c *chart) fyne.CanvasObject {
		return container.NewVBox(container.NewHBox(head, newMuted(note)), c, legend)
	}
	bold := func(title string) *widget.Label {
		return widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	s.charts = container.NewVBox(
		widget.NewSeparator(),
		section(bold("Per week, by source"), "a conversation counts in the week it started", s.sourceLegend, s.sources),
		section(bold("Per week, by project"), "the ten biggest projects", s.projectLegend, s.projects),
		section(s.agentHead, "recall and get calls, by client; no-match, refused and failed calls apart", s.agentLegend, s.agents),
		s.agentNone,
	)
	body := container.NewVBox(grid, s.empty, s.charts)
	return container.NewBorder(top, nil, nil, nil, container.NewVScroll(container.NewPadded(body)))
}

// rangeID is the memory range the selector names.
func (s *insightsScreen) rangeID() string {
	for id, name := range insightsRangeNames {
		if name == s.rng.Selected {
			return id
		}
	}
	return insights.RangeAll
}

// refresh reloads the numbers off the UI goroutine and draws them.
func (s *insightsScreen) refresh() {
	s.seq++
	seq, rng := s.seq, s.rangeID()
	s.status.SetText("Loading…")
	load(s.u, "read the insights", func(ctx context.Context) (insights.Insights, error) {
		if srv := s.u.deps.Server; srv != nil {
			srv.FlushAudit()
		}
		return insights.Read(ctx, s.u.mem, insights.Query{Range: rng})
	}, func(in insights.Insights) {
		if seq != s.seq {
			return
		}
		s.data, s.loaded = in, true
		s.status.SetText("Updated " + time.Now().Format("15:04:05"))
		s.showHeadline()
		s.draw()
	})
}

// headlineValues formats the headline numbers in the order of
// headlineCaptions.
func headlineValues(h insights.Headline) []string {
	date := func(t *time.Time) string {
		if t == nil {
			return "–"
		}
		return day(*t)
	}
	return []string{
		groupDigits(h.Conversations), groupDigits(h.Turns), groupDigits(h.Tokens), date(h.Oldest), date(h.Newest),
		bytesize(h.SizeBytes), groupDigits(h.Redacted), groupDigits(h.Forgotten),
	}
}

func (s *insightsScreen) showHeadline() {
	for i, v := range headlineValues(s.data.Headline) {
		s.cards[i].value.SetText(v)
	}
}

// groupDigits writes n with thousands separators: 12,345.
func groupDigits(n int) string {
	str := strconv.Itoa(n)
	neg := n < 0
	if neg {
		str = str[1:]
	}
	for i := len(str) - 3; i > 0; i -= 3 {
		str = str[:i] + "," + str[i:]
	}
	if neg {
		return "-" + str
	}
	return str
}

// draw hands the loaded numbers to the charts and legends.
func (s *insightsScreen) draw() {
	if !s.loaded {
		return
	}
	in := s.data
	if in.Headline.Conversations == 0 && len(in.Agents) == 0 {
		s.empty.SetText("Nothing to chart yet: your memory is empty. " + firstStep)
		s.empty.Show()
		s.charts.Hide()
		return
	}
	s.empty.Hide()
	s.charts.Show()
	turns := s.measure.Selected == measureTurns
	// Both weekly charts start at the first week with a conversation (but
	// show at least eight), so a young memory's bars are not slivers at
	// the end of a year of empty weeks.
	first := firstWeek(in)
	weeks := in.Weeks[first:]
	weekLabel := func(i int) string {
		if i >= len(weeks) {
			return ""
		}
		if len(weeks) > 60 {
			return weeks[i].Format("2006-01") // the window's date format, to the month
		}
		return weeks[i].Format(dayFormat)
	}
	weekly := func(series []insights.WeekSeries, named func(string) string, colour func(i int, name string) color.Color, legend *fyne.Container, none string) {
		spec := barSpec{n: len(weeks), label: weekLabel}
		legend.RemoveAll()
		for i, ser := range series {
			vals, total := ser.Conversations, ser.TotalConvs
			if turns {
				vals, total = ser.Turns, ser.TotalTurns
			}
			col := colour(i, ser.Name)
			spec.stacks = append(spec.stacks, stack{name: ser.Name, colour: col, values: floats(vals[min(first, len(vals)):])})
			legend.Add(legendEntry(col, fmt.Sprintf("%s  %s", clip(named(ser.Name), 18), groupDigits(total))))
		}
		c := s.chartFor(legend)
		if len(series) == 0 {
			legend.Add(newMuted(none))
			c.Hide()
		} else {
			c.Show()
		}
		legend.Refresh()
		c.show(spec)
	}
	asIs := func(n string) string { return n }
	weekly(in.BySource, sourceName, func(i int, name string) color.Color {
		if c, ok := sourceColours[name]; ok {
			return c
		}
		return palette[i%len(palette)]
	}, s.sourceLegend, "None in this range")
	weekly(in.ByProject, asIs, func(i int, _ string) color.Color { return palette[i%len(palette)] }, s.projectLegend, "None tagged in this range")

	// Agent access: each client's answered calls, then no-match, refused
	// and failed calls of all clients, over the days (or weeks) that had
	// calls: a year of days would make every bar a pixel wide.
	buckets := agentBuckets(in.Days, in.Agents)
	s.agentHead.SetText("Agent access per " + buckets.unit)
	spec := barSpec{n: len(buckets.starts), label: func(i int) string {
		if i >= len(buckets.starts) {
			return ""
		}
		return buckets.starts[i].Format(dayFormat)
	}}
	s.agentLegend.RemoveAll()
	n := len(buckets.starts)
	noMatch, refused, failed := make([]int, n), make([]int, n), make([]int, n)
	for i, a := range in.Agents {
		// Refused requests are audited under a client of their own, which
		// the Refused entry below counts: not a client beside it.
		if a.Client != mcpserver.RefusedClient {
			col := palette[i%len(palette)]
			spec.stacks = append(spec.stacks, stack{name: a.Client, colour: col, values: floats(buckets.sum(a.Answered))})
			s.agentLegend.Add(legendEntry(col, fmt.Sprintf("%s  %s calls", clip(a.Client, 16), groupDigits(a.Total))))
		}
		for b, v := range buckets.sum(a.NoMatch) {
			noMatch[b] += v
		}
		for b, v := range buckets.sum(a.Refused) {
			refused[b] += v
		}
		for b, v := range buckets.sum(a.Failed) {
			failed[b] += v
		}
	}
	if len(in.Agents) == 0 {
		s.agentNone.Show()
		s.agents.Hide()
	} else {
		s.agentNone.Hide()
		s.agents.Show()
		for _, extra := range []struct {
			name   string
			colour color.Color
			values []int
		}{{"No match", noMatchColour, noMatch}, {"Refused", refusedColour, refused}, {"Failed", failedColour, failed}} {
			spec.stacks = append(spec.stacks, stack{name: extra.name, colour: extra.colour, values: floats(extra.values)})
			s.agentLegend.Add(legendEntry(extra.colour, fmt.Sprintf("%s  %s", extra.name, groupDigits(sumInts(extra.values)))))
		}
	}
	s.agentLegend.Refresh()
	s.agents.show(spec)
}

func (s *insightsScreen) chartFor(legend *fyne.Container) *chart {
	if legend == s.sourceLegend {
		return s.sources
	}
	return s.projects
}

// legendEntry is a colour swatch and its label.
func legendEntry(c color.Color, text string) fyne.CanvasObject {
	sw := canvas.NewRectangle(c)
	sw.SetMinSize(fyne.NewSize(12, 12))
	sw.CornerRadius = 2
	l := widget.NewLabel(text)
	l.Truncation = fyne.TextTruncateEllipsis
	return container.NewBorder(nil, nil, container.NewCenter(sw), nil, l)
}

func floats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// dayBuckets groups the agent chart's days into the bars it draws.
type dayBuckets struct {
	unit   string      // "day" or "week"
	starts []time.Time // each bar's first day
	first  int         // the first day shown
	per    int         // days a bar
}

// agentBuckets starts the agent chart at the first day with a call (but
// shows at least two weeks), and draws a bar a week when that is more
// than 60 days.
func agentBuckets(days []time.Time, agents []insights.AgentSeries) dayBuckets {
	first := len(days)
	for _, a := range agents {
		for _, vs := range [][]int{a.Answered, a.NoMatch, a.Refused, a.Failed} {
			for d, v := range vs {
				if v > 0 && d < first {
					first = d
				}
			}
		}
	}
	first = min(first, max(len(days)-14, 0))
	b := dayBuckets{unit: "day", first: first, per: 1}
	if len(days)-first > 60 {
		b.unit, b.per = "week", 7
	}
	for d := first; d < len(days); d += b.per {
		b.starts = append(b.starts, days[d])
	}
	return b
}

// sum adds one series' days up into the buckets.
func (b dayBuckets) sum(perDay []int) []int {
	out := make([]int, len(b.starts))
	for d := b.first; d < len(perDay); d++ {
		if i := (d - b.first) / b.per; i < len(out) {
			out[i] += perDay[d]
		}
	}
	return out
}

// firstWeek is the first week a weekly chart shows: the first with a
// conversation, but at least eight weeks before the last.
func firstWeek(in insights.Insights) int {
	first := len(in.Weeks)
	for _, ser := range in.BySource {
		for w, v := range ser.Conversations {
			if v > 0 && w < first {
				first = w
			}
		}
	}
	return max(min(first, len(in.Weeks)-8), 0)
}
