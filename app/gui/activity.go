package gui

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
)

// The activity screen: the MCP audit log, newest first, filterable by
// client, refused HTTP requests (401, 403) included. It refreshes itself
// shortly after each call or refusal the server reports.

const anyClient = "All clients"

// activityLimit is how many calls the table shows.
const activityLimit = 2000

var activityColumns = []struct {
	name  string
	width float32
}{
	{"Time", 150}, {"Client", 120}, {"Tool", 110}, {"Query", 320}, {"Hits", 50}, {"Duration", 80}, {"Outcome", 100},
}

type activityScreen struct {
	u       *ui
	client  *widget.Select
	summary *widget.Label
	table   *widget.Table

	rows    []memory.AuditEntry
	clients map[string]bool
	// pending is set while a refresh after a call is scheduled, so a burst
	// of calls makes one refresh.
	pending bool
}

func newActivityScreen(u *ui) *activityScreen {
	a := &activityScreen{u: u, clients: map[string]bool{}}
	a.client = newSelect([]string{anyClient}, anyClient, func(string) { a.refresh() })
	a.summary = widget.NewLabel("")
	a.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(a.rows), len(activityColumns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		a.updateCell,
	)
	a.table.ShowHeaderColumn = false
	a.table.CreateHeader = func() fyne.CanvasObject {
		return widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	a.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 && id.Col < len(activityColumns) {
			o.(*widget.Label).SetText(activityColumns[id.Col].name)
		}
	}
	for i, c := range activityColumns {
		a.table.SetColumnWidth(i, c.width)
	}
	return a
}

func (a *activityScreen) content() fyne.CanvasObject {
	intro := widget.NewLabel("Every call your agents made to this memory over MCP, newest first, and requests the server refused (client " + mcpserver.RefusedClient + ").")
	refresh := widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), a.refresh)
	top := container.NewVBox(intro, container.NewHBox(a.client, refresh, layout.NewSpacer(), a.summary))
	return container.NewBorder(top, nil, nil, nil, a.table)
}

func (a *activityScreen) updateCell(id widget.TableCellID, o fyne.CanvasObject) {
	l := o.(*widget.Label)
	if id.Row < 0 || id.Row >= len(a.rows) {
		l.SetText("")
		return
	}
	l.SetText(activityCell(a.rows[id.Row], id.Col))
}

// activityCell is one cell of the audit table.
func activityCell(e memory.AuditEntry, col int) string {
	switch col {
	case 0:
		return e.TS.Local().Format("2006-01-02 15:04:05")
	case 1:
		return e.Client
	case 2:
		return e.Tool
	case 3:
		return auditQuery(e.Args)
	case 4:
		return fmt.Sprint(e.Hits)
	case 5:
		return e.Duration.Round(100 * time.Microsecond).String()
	case 6:
		return e.Outcome
	}
	return ""
}

// auditQuery shows a call's query, or its other arguments when it has none.
func auditQuery(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return oneLine(args)
	}
	// A refused request: why, and from where.
	if reason, ok := m["reason"].(string); ok {
		s := reason
		if v, ok := m["value"].(string); ok && v != "" {
			s += fmt.Sprintf(" (%q)", v)
		}
		if from, ok := m["from"].(string); ok && from != "" {
			s += " · from " + from
		}
		if n, ok := m["repeats_before"].(float64); ok && n > 0 {
			s += fmt.Sprintf(" · %d more like it before", int(n))
		}
		return s
	}
	if q, ok := m["query"].(string); ok && q != "" {
		delete(m, "query")
		if len(m) == 0 {
			return q
		}
		rest, _ := json.Marshal(m)
		return q + "  " + string(rest)
	}
	if len(m) == 0 {
		return ""
	}
	return oneLine(args)
}

// refresh reloads the log off the UI goroutine.
func (a *activityScreen) refresh() {
	q := memory.AuditQuery{Limit: activityLimit}
	if a.client.Selected != anyClient {
		q.Client = a.client.Selected
	}
	srv := a.u.deps.Server
	load(a.u, "read the activity log", func(ctx context.Context) ([]memory.AuditEntry, error) {
		if srv != nil {
			srv.FlushAudit()
		}
		return a.u.mem.Audit(ctx, q)
	}, func(rows []memory.AuditEntry) {
		a.rows = rows
		for _, r := range rows {
			a.clients[r.Client] = true
		}
		a.updateClients()
		a.table.Refresh()
		refused := 0
		for _, r := range rows {
			if r.Client == mcpserver.RefusedClient {
				refused++
			}
		}
		switch {
		case len(rows) == 0 && q.Client == "":
			a.summary.SetText("No calls yet")
		case refused > 0 && refused < len(rows):
			a.summary.SetText(plural(len(rows)-refused, "call", "calls") + ", " + plural(refused, "refused request", "refused requests"))
		case refused > 0:
			a.summary.SetText(plural(refused, "refused request", "refused requests"))
		default:
			a.summary.SetText(plural(len(rows), "call", "calls"))
		}
	})
}

func (a *activityScreen) updateClients() {
	var names []string
	for c := range a.clients {
		names = append(names, c)
	}
	sort.Strings(names)
	a.client.Options = append([]string{anyClient}, names...)
	a.client.Refresh()
}

// onMCPCall is the server's OnCall hook; it runs on the server's goroutine
// and must not block, so it only schedules a refresh.
func (u *ui) onMCPCall(memory.AuditEntry) {
	fyneDo(func() {
		a := u.activity
		if a.pending {
			return
		}
		a.pending = true
		u.goBackground(func(ctx context.Context) {
			select {
			case <-time.After(300 * time.Millisecond):
			case <-ctx.Done():
			}
			fyneDo(func() {
				a.pending = false
				a.refresh()
			})
		})
	})
}
