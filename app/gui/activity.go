package gui

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/mcpserver"
)

// The activity screen: the MCP audit log, newest first, filterable by
// client, refused HTTP requests (401, 403) included. It refreshes itself
// shortly after each call or refusal the server reports.

const anyClient = "All clients"

// activityLimit is how many calls the table shows.
const activityLimit = 2000

// activityColumns are the table's columns. Every one but Query is as wide
// as its widest text (up to most), so nothing is cut short; Query takes
// what is left of the window, at least its least.
var activityColumns = []struct {
	name        string
	least, most float32
}{
	{"Time", 0, 170}, {"Client", 0, 160}, {"Tool", 0, 130}, {"Query", 140, 0}, {"Hits", 0, 60}, {"Duration", 0, 90}, {"Outcome", 0, 130},
}

const activityQueryCol = 3

const activityNoDetail = "Select a call to see it in full."

type activityScreen struct {
	u       *ui
	client  *widget.Select
	summary *widget.Label
	table   *widget.Table
	empty   *widget.Label // stands in for the table while it has no rows
	detail  *widget.Label // the selected call, in full
	copy    *widget.Button
	chosen  int // the selected row; -1 for none
	// detailBox holds the detail and its Copy button.
	detailBox *fyne.Container

	rows    []auditlog.Entry
	queries []string // each row's arguments as text, secrets masked
	clients map[string]bool
	// pending is set while a refresh after a call is scheduled, so a burst
	// of calls makes one refresh.
	pending bool
	// widths are the columns' text widths, measured at refresh; shown
	// the widths the table was last given.
	widths, shown []float32
}

func newActivityScreen(u *ui) *activityScreen {
	a := &activityScreen{u: u, clients: map[string]bool{}}
	a.client = newSelect([]string{anyClient}, anyClient, func(string) { a.refresh() })
	a.summary = widget.NewLabel("")
	a.empty = widget.NewLabel("")
	a.empty.Wrapping = fyne.TextWrapWord
	a.empty.Hide()
	a.detail = widget.NewLabel(activityNoDetail)
	a.detail.Wrapping = fyne.TextWrapWord
	a.detail.Selectable = true
	a.chosen = -1
	a.copy = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		if a.chosen >= 0 && a.chosen < len(a.rows) {
			a.u.copyText("the call", a.detail.Text)
		}
	})
	a.copy.Disable()
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
	a.table.OnSelected = func(id widget.TableCellID) {
		if id.Row >= 0 && id.Row < len(a.rows) {
			a.chosen = id.Row
			a.detail.SetText(activityDetail(a.rows[id.Row], a.queries[id.Row]))
			a.copy.Enable()
		}
	}
	a.measure()
	return a
}

func (a *activityScreen) content() fyne.CanvasObject {
	intro := widget.NewLabel("Every call your agents made to this memory over MCP, newest first, and requests the server refused (client " + mcpserver.RefusedClient + ").")
	intro.Wrapping = fyne.TextWrapWord
	refresh := widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), a.refresh)
	top := container.NewVBox(intro, container.NewHBox(a.client, refresh, layout.NewSpacer(), a.summary))
	body := container.New(&fitColumns{fit: a.fit, least: activityColumns[activityQueryCol].least}, a.table)
	a.detailBox = container.NewVBox(widget.NewSeparator(), container.NewBorder(nil, nil, nil, container.NewVBox(a.copy), a.detail))
	return container.NewBorder(top, a.detailBox, nil, nil, container.NewStack(body, container.NewPadded(a.empty)))
}

// fitColumns lays a table out over all of its room, calling fit with
// the new width first so it can share the width out among the columns.
type fitColumns struct {
	fit   func(width float32)
	least float32 // the narrowest the table may be
	last  float32
}

func (l *fitColumns) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if size.Width != l.last {
		l.last = size.Width
		l.fit(size.Width)
	}
	for _, o := range objs {
		o.Resize(size)
		o.Move(fyne.NewPos(0, 0))
	}
}

func (l *fitColumns) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(l.least, objs[0].MinSize().Height)
}

// measure finds each column's widest text, header included.
func (a *activityScreen) measure() {
	pad := 2*theme.Padding() + 2*theme.InnerPadding()
	a.widths = make([]float32, len(activityColumns))
	for c, col := range activityColumns {
		w := fyne.MeasureText(col.name, theme.TextSize(), fyne.TextStyle{Bold: true}).Width
		for r := range a.rows {
			if c == activityQueryCol {
				break
			}
			w = max(w, fyne.MeasureText(activityCell(a.rows[r], c), theme.TextSize(), fyne.TextStyle{}).Width)
		}
		if col.most > 0 {
			w = min(w+pad, col.most)
		}
		a.widths[c] = w + 1
	}
}

// fit sets the column widths for a table width: the fixed columns as
// measured, the query the rest.
func (a *activityScreen) fit(width float32) {
	a.shown = append([]float32(nil), a.widths...)
	// The table puts a padding's width between columns.
	rest := width - theme.Padding()*float32(len(a.widths))
	for c, w := range a.widths {
		if c != activityQueryCol {
			rest -= w
		}
	}
	a.shown[activityQueryCol] = max(rest, activityColumns[activityQueryCol].least)
	for c, w := range a.shown {
		a.table.SetColumnWidth(c, w)
	}
}

func (a *activityScreen) updateCell(id widget.TableCellID, o fyne.CanvasObject) {
	l := o.(*widget.Label)
	if id.Row < 0 || id.Row >= len(a.rows) {
		l.SetText("")
		return
	}
	if id.Col == activityQueryCol {
		l.SetText(a.queries[id.Row])
		return
	}
	l.SetText(activityCell(a.rows[id.Row], id.Col))
}

// activityCell is one cell of the audit table.
func activityCell(e auditlog.Entry, col int) string {
	switch col {
	case 0:
		return e.TS.Local().Format(secondFormat)
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
		return outcomeText(e.Outcome)
	}
	return ""
}

// outcomeText is an audit outcome code in plain words.
func outcomeText(code string) string {
	return strings.ReplaceAll(code, "_", " ")
}

// outcomeMeanings say in a sentence what each outcome was.
var outcomeMeanings = map[string]string{
	auditlog.OK:             "The call was answered.",
	auditlog.NoMatch:        "The call was answered, but nothing in the memory matched.",
	auditlog.NotFound:       "No such conversation in what the client may see (it may have been forgotten, or be outside the token's projects).",
	auditlog.Invalid:        "The client sent arguments the tool does not take.",
	auditlog.Busy:           "Refused: the client made too many calls at once.",
	auditlog.Timeout:        "The call ran out of time.",
	auditlog.Unavailable:    "The memory could not answer (see the app's log).",
	auditlog.Cancelled:      "The client cancelled the call, or went away, before the answer.",
	auditlog.Unauthorized:   "Refused (HTTP 401): no token, or one that is unknown or revoked.",
	auditlog.Forbidden:      "Refused (HTTP 403): the request came with a Host or Origin that is not this computer.",
	mcpserver.AuditTooLarge: "Refused: the request was larger than the server accepts.",
}

// activityDetail is one call in full, for the pane under the table.
func activityDetail(e auditlog.Entry, query string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s · %s · %s", e.TS.Local().Format(secondFormat), e.Client, e.Tool)
	fmt.Fprintf(&b, "\nOutcome: %s", outcomeText(e.Outcome))
	if m, ok := outcomeMeanings[e.Outcome]; ok {
		b.WriteString(" — " + m)
	}
	fmt.Fprintf(&b, "\n%s in %s", plural(e.Hits, "hit", "hits"), e.Duration.Round(100*time.Microsecond))
	if query != "" {
		b.WriteString("\n" + query)
	}
	return b.String()
}

// auditQuery shows a call's arguments as words: the query first, then
// each other argument as "name value", joined by " · ". A refused
// request says why and from where.
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
	var parts []string
	if q, ok := m["query"].(string); ok && q != "" {
		parts = append(parts, oneLine(q))
	}
	delete(m, "query")
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if v := auditArgText(m[k]); v != "" {
			parts = append(parts, strings.ReplaceAll(k, "_", " ")+" "+v)
		}
	}
	return strings.Join(parts, " · ")
}

// auditArgText is one argument's value as text.
func auditArgText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return oneLine(x)
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		var out []string
		for _, e := range x {
			if s := auditArgText(e); s != "" {
				out = append(out, s)
			}
		}
		return strings.Join(out, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// activityLoad is what a refresh reads: the calls, their arguments as
// masked text, and whether the memory has any conversation.
type activityLoad struct {
	rows    []auditlog.Entry
	queries []string
	empty   bool
}

// refresh reloads the log off the UI goroutine.
func (a *activityScreen) refresh() {
	q := auditlog.Query{Limit: activityLimit}
	if a.client.Selected != anyClient {
		q.Client = a.client.Selected
	}
	srv := a.u.deps.Server
	patterns := a.u.set.UserPatterns
	load(a.u, "read the activity log", func(ctx context.Context) (activityLoad, error) {
		if srv != nil {
			srv.FlushAudit()
		}
		rows, err := auditlog.List(ctx, a.u.mem, q)
		if err != nil {
			return activityLoad{}, err
		}
		// The server redacts what it logs; this masks what an older
		// Ireneo logged before it did.
		sc := secretFinder(patterns)
		l := activityLoad{rows: rows, queries: make([]string, len(rows))}
		for i, r := range rows {
			l.queries[i] = maskSecrets(sc, auditQuery(r.Args))
		}
		if len(rows) == 0 {
			if st, err := a.u.mem.Status(ctx); err == nil {
				l.empty = st.Conversations == 0
			}
		}
		return l, nil
	}, func(l activityLoad) {
		rows := l.rows
		a.rows, a.queries = rows, l.queries
		for _, r := range rows {
			a.clients[r.Client] = true
		}
		a.updateClients()
		a.measure()
		a.fit(a.table.Size().Width)
		a.table.UnselectAll()
		a.table.Refresh()
		a.chosen = -1
		a.copy.Disable()
		a.detail.SetText(activityNoDetail)
		a.showEmpty(len(rows) == 0, q.Client != "", l.empty)
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

// showEmpty puts a note saying what to do in place of an empty table.
func (a *activityScreen) showEmpty(none, filtered, emptyMemory bool) {
	switch {
	case !none:
		a.empty.Hide()
		a.table.Show()
		a.detailBox.Show()
		return
	case filtered:
		a.empty.SetText("No calls from " + a.client.Selected + ". Pick All clients to see every call.")
	case emptyMemory:
		a.empty.SetText("No agent has called this memory yet, and it holds no conversations for them to find. " + firstStep +
			"\n\nThen connect an agent (Claude Code, Codex, Claude Desktop, VS Code…) on the Connect screen; each call it makes shows here.")
	default:
		a.empty.SetText("No agent has called this memory yet. Connect one (Claude Code, Codex, Claude Desktop, VS Code…) on the Connect screen; " +
			"each call it makes, and any request the server refuses, shows here.")
	}
	a.table.Hide()
	a.detailBox.Hide()
	a.empty.Show()
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
func (u *ui) onMCPCall(auditlog.Entry) {
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
