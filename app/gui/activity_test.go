package gui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
)

// TestActivityFitsAndExplains: at 900×600 every column is on screen and
// none cuts its text short but the query, codes read as words, arguments
// as text, and a selected call shows in full below.
func TestActivityFitsAndExplains(t *testing.T) {
	m := newTestMemory(t)
	now := time.Now()
	if err := auditlog.Add(context.Background(), m, auditlog.Entry{TS: now.Add(-3 * time.Minute), Client: "claude-code", Tool: "recall", Outcome: auditlog.OK, Hits: 4, Duration: 3 * time.Millisecond,
		Args: `{"query":"falcon budget","project":"falcon","k":5,"sources":["chatgpt","codex"]}`},
		auditlog.Entry{TS: now.Add(-2 * time.Minute), Client: "codex", Tool: "get", Outcome: auditlog.NotFound,
			Args: `{"session_id":"chatgpt:gone","window":2}`},
		auditlog.Entry{TS: now.Add(-time.Minute), Client: mcpserver.RefusedClient, Tool: "POST /mcp", Outcome: auditlog.Unauthorized,
			Args: `{"reason":"unknown or revoked token","from":"127.0.0.1:5555"}`},
	); err != nil {
		t.Fatal(err)
	}
	u := newTestUI(t, m)
	u.win.Resize(fyne.NewSize(900, 600))
	u.showScreen(screenActivity)
	waitIdle(t, u)
	a := u.activity
	if len(a.rows) != 3 {
		t.Fatalf("%d rows", len(a.rows))
	}
	relayout(u.win.Content())
	capture(t, u, "activity-900")

	// Every column fits in the table's width; each but the query is as
	// wide as its widest text.
	total := float32(0)
	for c := range activityColumns {
		w := a.shown[c]
		total += w + theme.Padding()
		if c == activityQueryCol {
			if w < activityColumns[c].least {
				t.Errorf("the query column is %v wide", w)
			}
			continue
		}
		for _, r := range a.rows {
			text := activityCell(r, c)
			if need := fyne.MeasureText(text, theme.TextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding(); need > w {
				t.Errorf("column %s is %v wide; %q needs %v", activityColumns[c].name, w, text, need)
			}
		}
	}
	if tw := a.table.Size().Width; total > tw+1 {
		t.Errorf("the columns take %v of a table %v wide: some are off screen", total, tw)
	}

	byTool := map[string]int{}
	for i, r := range a.rows {
		byTool[r.Tool] = i
	}
	get, recall := byTool["get"], byTool["recall"]
	if got := activityCell(a.rows[get], 6); got != "not found" {
		t.Errorf("outcome %q, want plain words", got)
	}
	if got := a.queries[recall]; got != "falcon budget · k 5 · project falcon · sources chatgpt, codex" {
		t.Errorf("recall's arguments read %q", got)
	}
	if got := a.queries[get]; strings.ContainsAny(got, `{}"`) || !strings.Contains(got, "session id chatgpt:gone") {
		t.Errorf("get's arguments read %q", got)
	}
	a.table.Select(widget.TableCellID{Row: get, Col: 0})
	if d := a.detail.Text; !strings.Contains(d, "not found — No such conversation") || !strings.Contains(d, "session id chatgpt:gone") {
		t.Errorf("the detail of the get call says %q", d)
	}
	capture(t, u, "activity-900-detail")
	test.Tap(a.copy)
	if got := u.app.Clipboard().Content(); got != a.detail.Text || u.lastInfo != "Copied the call to the clipboard" {
		t.Errorf("Copy put %q on the clipboard and said %q", got, u.lastInfo)
	}
}

// TestFirstRunSaysWhatToDo: on an empty memory Insights, Activity and
// Scrub say what to do first, how to get an export included, instead of
// empty tables and axes.
func TestFirstRunSaysWhatToDo(t *testing.T) {
	m, err := memory.Open(filepath.Join(t.TempDir(), "memory"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	u := newTestUI(t, m)
	for _, c := range []struct {
		screen int
		name   string
		text   func() string
	}{
		{screenInsights, "insights", func() string {
			if u.insights.charts.Visible() {
				return "charts shown"
			}
			return u.insights.empty.Text
		}},
		{screenActivity, "activity", func() string {
			if u.activity.table.Visible() {
				return "table shown"
			}
			return u.activity.empty.Text
		}},
		{screenScrub, "scrub", func() string { return u.scrub.status.Text }},
	} {
		u.showScreen(c.screen)
		waitIdle(t, u)
		got := c.text()
		for _, want := range []string{"Import screen", "ChatGPT › Settings › Data controls › Export data", "claude.ai › Settings › Privacy › Export data"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s on an empty memory says %q; want %q in it", c.name, got, want)
			}
		}
		for _, sz := range []fyne.Size{{Width: 1280, Height: 800}, {Width: 900, Height: 600}} {
			u.win.Resize(sz)
			capture(t, u, "first-run-"+c.name+"-"+sizeName(sz))
		}
		u.win.Resize(fyne.NewSize(1100, 720))
	}
}

// sizeName is a window size as 1280x800, for file names.
func sizeName(s fyne.Size) string {
	return fmt.Sprintf("%.0fx%.0f", s.Width, s.Height)
}
