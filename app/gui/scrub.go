package gui

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
	"github.com/ireneo-app/ireneo/redact"
)

// The scrub screen: scan the memory for secrets, review the findings
// (conversation, rule, masked preview), redact the selected ones or all,
// or allow-list a false positive.

// scrubColumns are the findings table's columns: the conversation takes
// what the others, as wide as their widest text (up to most), leave.
var scrubColumns = []struct {
	name string
	most float32
}{
	{"", 40}, {"Conversation", 0}, {"Rule", 220}, {"Where", 150}, {"Preview", 110},
}

const scrubTitleCol = 1

type scrubScreen struct {
	u *ui

	scan           *widget.Button
	redactSelected *widget.Button
	redactAll      *widget.Button
	allow          *widget.Button
	job            *job
	table          *widget.Table
	status         *widget.Label
	report         *widget.Label

	findings []memscrub.Finding
	rep      memscrub.Report // the last scan, less the findings since marked not secret
	checked  map[string]bool // by finding ID
	// titles are the findings' conversation titles by source:session, with
	// every secret in them masked: a title is where a pasted key most
	// often shows.
	titles  map[string]string
	current int // the row the allow-list button acts on; -1 for none
	scanned bool
	// empty says the memory holds nothing to scan: Scan memory is off.
	empty bool
	width float32 // the table's, as last laid out

	selectAll, selectNone *widget.Button
}

func newScrubScreen(u *ui) *scrubScreen {
	s := &scrubScreen{u: u, checked: map[string]bool{}, titles: map[string]string{}, current: -1}
	s.scan = widget.NewButtonWithIcon("Scan memory", theme.SearchIcon(), s.runScan)
	s.scan.Importance = widget.HighImportance
	s.redactSelected = widget.NewButtonWithIcon("Redact selected…", theme.VisibilityOffIcon(), func() { s.confirmRedact(s.selected()) })
	s.redactAll = widget.NewButtonWithIcon("Redact all…", theme.VisibilityOffIcon(), func() { s.confirmRedact(s.findings) })
	s.redactAll.Importance = widget.DangerImportance
	s.allow = widget.NewButtonWithIcon("Not a secret", theme.ConfirmIcon(), s.allowSelected)
	s.job = newJob(u)
	s.selectAll = widget.NewButton("Select all", func() { s.setAll(true) })
	s.selectNone = widget.NewButton("Select none", func() { s.setAll(false) })
	s.status = widget.NewLabel("")
	s.status.Wrapping = fyne.TextWrapWord
	s.report = widget.NewLabel("")
	s.report.Wrapping = fyne.TextWrapWord
	s.report.Selectable = true

	s.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(s.findings), len(scrubColumns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return container.NewStack(widget.NewCheck("", nil), l)
		},
		s.updateCell,
	)
	s.table.ShowHeaderColumn = false
	s.table.CreateHeader = func() fyne.CanvasObject {
		return widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	s.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 && id.Col < len(scrubColumns) {
			o.(*widget.Label).SetText(scrubColumns[id.Col].name)
		}
	}
	s.table.OnSelected = func(id widget.TableCellID) {
		s.current = id.Row
		// Space on the first column ticks the row, so the keyboard can too.
		if id.Col == 0 && id.Row < len(s.findings) {
			f := s.findings[id.Row]
			s.toggle(f, !s.checked[f.ID])
		}
		s.updateButtons()
	}
	s.updateButtons()
	s.status.SetText(scrubIntro)
	return s
}

const scrubIntro = "Scan to find API keys, tokens, passwords and private keys in your stored conversations and in agents' queries, " +
	"plus your own patterns from Settings. Secrets are never shown: only their first and last two characters."

// refresh says what to do first on an empty memory, until a scan ran.
func (s *scrubScreen) refresh() {
	if s.job.running() {
		return
	}
	load(s.u, "read the memory's status", func(ctx context.Context) (memory.Status, error) {
		return s.u.mem.Status(ctx)
	}, func(st memory.Status) {
		s.empty = st.Conversations == 0 && st.Chunks == 0
		s.updateButtons()
		if s.scanned || s.job.running() {
			return
		}
		if st.Conversations == 0 {
			s.status.SetText("Your memory is empty, so there is nothing to scan yet. " + firstStep)
			return
		}
		s.status.SetText(scrubIntro)
	})
}

func (s *scrubScreen) content() fyne.CanvasObject {
	top := container.NewVBox(container.NewHBox(s.scan), s.status, s.job.box)
	bottom := container.NewVBox(
		container.NewHBox(s.selectAll, s.selectNone, layout.NewSpacer(), s.allow, s.redactSelected, s.redactAll),
		s.report,
	)
	return container.NewBorder(top, bottom, nil, nil, container.New(&fitColumns{fit: s.fit, least: 300}, s.table))
}

// fit shares a table width out: each column but the conversation as wide
// as its widest text, the conversation the rest.
func (s *scrubScreen) fit(width float32) {
	pad := 2*theme.InnerPadding() + 1
	widths := make([]float32, len(scrubColumns))
	rest := width - theme.Padding()*float32(len(scrubColumns))
	for c, col := range scrubColumns {
		if c == scrubTitleCol {
			continue
		}
		w := col.most
		if c > 0 {
			w = fyne.MeasureText(col.name, theme.TextSize(), fyne.TextStyle{Bold: true}).Width
			for _, f := range s.findings {
				w = max(w, fyne.MeasureText(scrubCell(f, c, s.titles), theme.TextSize(), fyne.TextStyle{}).Width)
			}
			w = min(w+pad, col.most)
		}
		widths[c] = w
		rest -= w
	}
	widths[scrubTitleCol] = max(rest, 160)
	for c, w := range widths {
		s.table.SetColumnWidth(c, w)
	}
	s.width = width
}

func (s *scrubScreen) updateCell(id widget.TableCellID, o fyne.CanvasObject) {
	st := o.(*fyne.Container)
	check, label := st.Objects[0].(*widget.Check), st.Objects[1].(*widget.Label)
	if id.Row >= len(s.findings) {
		return
	}
	f := s.findings[id.Row]
	if id.Col == 0 {
		label.Hide()
		check.Show()
		check.OnChanged = nil
		check.SetChecked(s.checked[f.ID])
		check.OnChanged = func(on bool) { s.toggle(f, on) }
		return
	}
	check.Hide()
	label.Show()
	label.SetText(scrubCell(f, id.Col, s.titles))
}

// scrubCell is one cell of the findings table.
func scrubCell(f memscrub.Finding, col int, titles map[string]string) string {
	audit := f.Field == memscrub.FieldAudit
	switch col {
	case 1:
		if audit {
			return "Audit log (an agent's query)"
		}
		if t := titles[f.Source+":"+f.SessionID]; t != "" {
			return t
		}
		return sourceName(f.Source) + " " + maskSecrets(nil, f.SessionID)
	case 2:
		return f.Rule
	case 3:
		switch {
		case audit:
			return fmt.Sprintf("call %d", f.AuditID)
		case f.Seq < 0:
			return f.Field // title, workdir, project
		case f.Field != redact.FieldText:
			return fmt.Sprintf("turn %d, %s", f.Seq+1, f.Field)
		}
		return fmt.Sprintf("turn %d", f.Seq+1)
	case 4:
		if f.Preview == "…" {
			return shownMask("") // a short secret: dots, as the other screens show it
		}
		return f.Preview
	}
	return ""
}

// toggle checks or unchecks a finding. The same secret twice in one
// conversation is one finding id, so its rows go together.
func (s *scrubScreen) toggle(f memscrub.Finding, on bool) {
	s.checked[f.ID] = on
	s.table.Refresh()
	s.updateButtons()
}

func (s *scrubScreen) setAll(on bool) {
	for _, f := range s.findings {
		s.checked[f.ID] = on
	}
	s.table.Refresh()
	s.updateButtons()
}

func (s *scrubScreen) selected() []memscrub.Finding {
	var out []memscrub.Finding
	for _, f := range s.findings {
		if s.checked[f.ID] {
			out = append(out, f)
		}
	}
	return out
}

func (s *scrubScreen) updateButtons() {
	busy := s.job.running()
	set := func(b *widget.Button, on bool) {
		if on && !busy {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	set(s.scan, !s.empty)
	set(s.selectAll, len(s.findings) > 0)
	set(s.selectNone, len(s.selected()) > 0)
	set(s.redactAll, len(s.findings) > 0)
	set(s.redactSelected, len(s.selected()) > 0)
	set(s.allow, len(s.selected()) > 0)
	// No findings, no table: an empty grid of headers says nothing.
	if len(s.findings) == 0 {
		s.table.Hide()
	} else {
		s.table.Show()
	}
}

// runScan scans the whole memory with progress.
func (s *scrubScreen) runScan() {
	s.report.SetText("")
	s.rescan()
}

// rescan scans again, keeping the report of what was just redacted.
func (s *scrubScreen) rescan() {
	patterns := s.u.set.UserPatterns
	var rep memscrub.Report
	titles := map[string]string{}
	s.job.start("Scanning for secrets", func(ctx context.Context, report progress) error {
		sc, err := scrubber.For(patterns)
		if err != nil {
			return err
		}
		rep, err = memscrub.Scan(ctx, s.u.mem, memscrub.Options{Finder: sc, Progress: func(done, total int) {
			report(done, total, fmt.Sprintf("Scanned %d of %d conversations", done, total))
		}})
		if err != nil {
			return err
		}
		findTitles(ctx, s.u.mem, sc, rep.Findings, titles)
		return nil
	}, func(err error) {
		s.updateButtons()
		if err != nil {
			s.u.showError("scan for secrets", err)
			return
		}
		s.showFindings(rep, titles)
	})
	s.updateButtons()
}

// findTitles looks up the titles of the conversations findings are in,
// with their secrets masked.
func findTitles(ctx context.Context, m *memory.Memory, sc redact.SecretFinder, fs []memscrub.Finding, titles map[string]string) {
	for _, f := range fs {
		k := f.Source + ":" + f.SessionID
		if _, ok := titles[k]; ok || f.Field == memscrub.FieldAudit {
			continue
		}
		titles[k] = ""
		if tr, err := conversations.Get(ctx, m, conversations.GetOptions{SessionID: k, Window: 1}); err == nil {
			titles[k] = maskSecrets(sc, titleOf(tr.Session))
		}
	}
}

func (s *scrubScreen) showFindings(rep memscrub.Report, titles map[string]string) {
	s.findings, s.titles, s.scanned = rep.Findings, titles, true
	s.rep = rep
	s.checked = map[string]bool{}
	s.current = -1
	s.table.UnselectAll()
	s.fit(s.width)
	s.table.Refresh()
	s.showSummary()
}

// showSummary sums the last scan up on the status line.
func (s *scrubScreen) showSummary() {
	rep := s.rep
	if rep.Scanned == 0 && rep.AuditScanned == 0 {
		s.status.SetText("Your memory is empty, so there was nothing to scan. " + firstStep)
		s.updateButtons()
		return
	}
	scanned := plural(rep.Scanned, "conversation", "conversations")
	if rep.AuditScanned > 0 {
		scanned += " and " + plural(rep.AuditScanned, "agent query", "agent queries")
	}
	msg := fmt.Sprintf("Scanned %s: %s", scanned, plural(len(s.findings), "finding", "findings"))
	if len(rep.ByRule) > 0 {
		msg += " (" + countsText(rep.ByRule) + ")"
	}
	msg += "."
	if rep.Allowed > 0 {
		msg += " " + plural(rep.Allowed, "finding was hidden as not a secret.", "findings were hidden as not secrets.")
	}
	if len(rep.Skipped) > 0 {
		msg += fmt.Sprintf(" %s could not be read: %s.", plural(len(rep.Skipped), "conversation", "conversations"), maskSecrets(nil, strings.Join(rep.Skipped, ", ")))
	}
	if len(s.findings) == 0 {
		msg += " Nothing to redact."
	} else {
		msg += " Tick the ones to redact, or press Redact all."
	}
	s.status.SetText(msg)
	s.updateButtons()
}

// countsText lists counts per rule, biggest first.
func countsText(counts map[string]int) string {
	type rc struct {
		rule string
		n    int
	}
	var rs []rc
	for r, n := range counts {
		rs = append(rs, rc{r, n})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].n > rs[j].n || rs[i].n == rs[j].n && rs[i].rule < rs[j].rule })
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s × %d", r.rule, r.n))
	}
	return strings.Join(parts, ", ")
}

// confirmRedact asks before redacting: it cannot be undone.
func (s *scrubScreen) confirmRedact(fs []memscrub.Finding) {
	if len(fs) == 0 {
		return
	}
	convs := map[string]bool{}
	for _, f := range fs {
		convs[f.Source+":"+f.SessionID] = true
	}
	msg := wrapped(fmt.Sprintf("Redact %s in %s?\n\nEach is replaced by [REDACTED:rule] in the stored conversation, "+
		"and the old text is erased from the memory folder and its database. Your original export files are not touched. "+
		"This cannot be undone.", plural(len(fs), "secret", "secrets"), plural(len(convs), "conversation", "conversations")))
	s.u.confirm("Redact secrets?", msg, "Redact", true, 480, func() { s.redact(fs) })
}

// redactOptions narrows a scrub to exactly these findings, and reads only
// the conversations they are in (and the audit log, if one is there).
func redactOptions(fs []memscrub.Finding) memscrub.Options {
	var o memscrub.Options
	seen := map[string]bool{}
	for _, f := range fs {
		if !seen[f.ID] {
			seen[f.ID] = true
			o.IDs = append(o.IDs, f.ID)
		}
		if f.Field == memscrub.FieldAudit {
			o.AuditLog = true
			continue
		}
		if k := f.Source + ":" + f.SessionID; !seen[k] {
			seen[k] = true
			o.Sessions = append(o.Sessions, k)
		}
	}
	return o
}

// redact redacts findings with progress, then rescans.
func (s *scrubScreen) redact(fs []memscrub.Finding) {
	patterns := s.u.set.UserPatterns
	o := redactOptions(fs)
	var total memscrub.Report
	s.job.start("Redacting secrets", func(ctx context.Context, report progress) error {
		sc, err := scrubber.For(patterns)
		if err != nil {
			return err
		}
		o.Finder = sc
		o.Progress = func(done, n int) {
			report(done, n, fmt.Sprintf("Redacting in %d of %d conversations", done, n))
		}
		total, err = memscrub.Apply(ctx, s.u.mem, o)
		return err
	}, func(err error) {
		s.showRedacted(total, err)
		s.u.memoryChanged()
		if err != nil {
			s.u.showError("redact every secret selected", err)
		}
		s.rescan()
	})
	s.updateButtons()
}

func (s *scrubScreen) showRedacted(rep memscrub.Report, err error) {
	n := 0
	for _, c := range rep.Redacted {
		n += c
	}
	where := plural(rep.Changed, "conversation", "conversations")
	if rep.AuditChanged > 0 {
		where += " and " + plural(rep.AuditChanged, "agent query", "agent queries")
	}
	msg := fmt.Sprintf("Redacted %s in %s", plural(n, "secret", "secrets"), where)
	if n > 0 {
		msg += ": " + countsText(rep.Redacted)
	}
	msg += ". The old text is erased from the memory folder."
	if err != nil {
		msg = "Stopped part way. " + msg
	}
	s.report.SetText(msg)
}

// allowSelected marks the ticked findings as not secrets. They are
// remembered (as hashes, not the text) and not reported again.
func (s *scrubScreen) allowSelected() {
	sel := s.selected()
	if len(sel) == 0 {
		return
	}
	o := redactOptions(sel)
	patterns := s.u.set.UserPatterns
	load(s.u, "mark the findings as not secrets", func(ctx context.Context) (memscrub.Report, error) {
		sc, err := scrubber.For(patterns)
		if err != nil {
			return memscrub.Report{}, err
		}
		return memscrub.Scan(ctx, s.u.mem, memscrub.Options{Finder: sc, Sessions: o.Sessions, AuditLog: o.AuditLog, Allow: o.IDs})
	}, func(memscrub.Report) {
		ids := map[string]bool{}
		for _, f := range sel {
			ids[f.ID] = true
		}
		before := len(s.findings)
		gone := map[string]int{}
		s.findings = slices.DeleteFunc(s.findings, func(g memscrub.Finding) bool {
			if ids[g.ID] {
				gone[g.Rule]++
			}
			return ids[g.ID]
		})
		// The summary counts what is listed, so it follows the dismissal.
		s.rep.Allowed += before - len(s.findings)
		for rule, n := range gone {
			if s.rep.ByRule != nil {
				if s.rep.ByRule[rule] -= n; s.rep.ByRule[rule] <= 0 {
					delete(s.rep.ByRule, rule)
				}
			}
		}
		for id := range ids {
			delete(s.checked, id)
		}
		s.current = -1
		s.table.UnselectAll()
		s.table.Refresh()
		s.showSummary()
		if f := sel[0]; len(ids) == 1 {
			s.report.SetText(fmt.Sprintf("Marked the %s finding %s in “%s” as not a secret; it will not be reported again.",
				f.Rule, f.Preview, scrubCell(f, 1, s.titles)))
		} else {
			s.report.SetText(fmt.Sprintf("Marked %d findings as not secrets; they will not be reported again.", len(ids)))
		}
	})
}
