package gui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/importers"
)

// The import screen: pick or drop an export, or import a detected source
// with one click; watch the coding agents' folders; see progress and then
// a summary of what the import did.

// notifyAfter is how long an import must take before its end is worth a
// desktop notification (always sent when the window is hidden).
var notifyAfter = 5 * time.Second

type importScreen struct {
	u *ui

	redact  *widget.Check
	revive  *widget.Check
	sources *fyne.Container
	job     *job
	summary *widget.Label
	card    *widget.Card

	watchLabel *widget.RichText
	// hooksLine says whether capture hooks are installed, and warns of
	// Claude Code sessions its cleanup will delete before they are imported.
	hooksLine *widget.RichText

	locations []importers.Location
	last      importers.Summary
	lastErr   error
	// imported are the export files found here that this window imported,
	// as they were then: their Import is off until the file changes
	// (importing it again would add nothing).
	imported map[string]fileStamp
}

// fileStamp is a file's size and time, to tell it changed.
type fileStamp struct {
	size int64
	mod  time.Time
}

func stampOf(path string) (fileStamp, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, false
	}
	return fileStamp{fi.Size(), fi.ModTime()}, true
}

// alreadyImported says an export file was imported here and has not
// changed since.
func (s *importScreen) alreadyImported(path string) bool {
	was, ok := s.imported[path]
	now, ok2 := stampOf(path)
	return ok && ok2 && was == now
}

func newImportScreen(u *ui) *importScreen {
	s := &importScreen{u: u}
	s.redact = widget.NewCheck("Redact secrets (API keys, passwords, private keys) while importing", nil)
	s.redact.SetChecked(u.set.ScrubOnImport)
	s.redact.OnChanged = func(on bool) {
		if on != u.set.ScrubOnImport {
			u.set.ScrubOnImport = on
			u.saveSettings()
		}
	}
	s.revive = widget.NewCheck("Bring back conversations I forgot", nil)
	s.sources = container.NewVBox()
	s.job = newJob(u)
	s.summary = widget.NewLabel("")
	s.summary.Wrapping = fyne.TextWrapWord
	s.summary.Selectable = true
	s.card = widget.NewCard("", "", s.summary)
	s.card.Hide()
	s.watchLabel = newMuted("")
	s.watchLabel.Wrapping = fyne.TextWrapWord
	s.hooksLine = newMuted("")
	s.hooksLine.Wrapping = fyne.TextWrapWord
	return s
}

func (s *importScreen) content() fyne.CanvasObject {
	intro := widget.NewLabel("Import your history: a ChatGPT or Claude export (the .zip as downloaded, or its conversations.json), " +
		"or an agent's sessions (" + agentsInWords() + "), listed below when they are on this computer. Importing again only adds what is new.")
	intro.Wrapping = fyne.TextWrapWord
	file := widget.NewButtonWithIcon("Import a file…", theme.FileIcon(), s.pickFile)
	file.Importance = widget.HighImportance
	folder := widget.NewButtonWithIcon("Import a folder…", theme.FolderOpenIcon(), s.pickFolder)
	drop := newMuted("or drop files and folders on this window")
	detected := widget.NewLabelWithStyle("Found on this computer", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	body := container.NewVBox(
		intro,
		container.NewHBox(file, folder, drop),
		s.redact, s.revive,
		s.job.box,
		s.card,
		widget.NewSeparator(),
		container.NewBorder(nil, nil, nil, widget.NewButtonWithIcon("", theme.ViewRefreshIcon(), s.refresh), detected),
		s.sources,
		s.watchLabel,
		s.hooksLine,
	)
	return container.NewVScroll(container.NewPadded(body))
}

// pickFile asks for an export file and imports it.
func (s *importScreen) pickFile() {
	s.u.showScreen(screenImport)
	s.u.askPath(pathRequest{title: "Import a chat export", label: "File", verb: "Import", kind: pathFile,
		initial: folderHint(s.downloads()), exts: []string{".zip", ".json", ".jsonl"}, start: s.downloads()},
		func(path string) { s.importPaths([]string{path}) })
}

// pickFolder asks for a folder and imports everything in it.
func (s *importScreen) pickFolder() {
	s.u.askPath(pathRequest{title: "Import a folder", label: "Folder", verb: "Import", kind: pathFolder,
		initial: folderHint(s.downloads()), start: s.downloads()},
		func(path string) { s.importPaths([]string{path}) })
}

// downloads is the Downloads folder, where exports land, if there is one.
func (s *importScreen) downloads() string {
	dl := filepath.Join(s.home(), "Downloads")
	if fi, err := os.Stat(dl); err == nil && fi.IsDir() {
		return dl
	}
	return s.home()
}

func (s *importScreen) home() string {
	if s.u.deps.Home != "" {
		return s.u.deps.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// importPaths imports files and folders in the background, with progress
// and cancel, then shows the summary.
func (s *importScreen) importPaths(paths []string) {
	if len(paths) == 0 {
		return
	}
	if s.job.running() {
		s.u.showError("start another import", fmt.Errorf("an import is already running; wait for it or cancel it"))
		return
	}
	opts := importers.Options{IncludeForgotten: s.revive.Checked}
	set := s.u.set
	var sum importers.Summary
	s.card.Hide()
	what := "Importing " + describePaths(paths)
	s.job.start(what, func(ctx context.Context, report progress) error {
		var err error
		if opts.Redact, err = scrubber.ImportRedactor(set); err != nil {
			return fmt.Errorf("load the secret rules: %w", err)
		}
		opts.Progress = func(p importers.Progress) {
			report(int(p.Done), int(p.Total), progressText(p))
		}
		sum, err = importers.Run(ctx, s.u.mem, paths, opts)
		return err
	}, func(err error) {
		s.showSummary(paths, sum, err)
		if err == nil {
			for _, p := range paths {
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
					if s.imported == nil {
						s.imported = map[string]fileStamp{}
					}
					s.imported[p] = fileStamp{fi.Size(), fi.ModTime()}
				}
			}
			s.showSources(s.locations)
		}
		s.u.memoryChanged()
		s.notify(sum, err)
		if err != nil {
			s.u.showError("import "+describePaths(paths), err)
		}
	})
}

func describePaths(paths []string) string {
	if len(paths) == 1 {
		return filepath.Base(paths[0])
	}
	return plural(len(paths), "item", "items")
}

// progressText says what an import is doing.
func progressText(p importers.Progress) string {
	name := filepath.Base(p.Input)
	switch p.Phase {
	case importers.PhaseDetect:
		return "Looking at " + name
	case importers.PhaseRead:
		if p.Total > 0 {
			return fmt.Sprintf("Reading %s: %s of %s, %s so far", name, bytesize(p.Done), bytesize(p.Total), plural(p.Sessions, "conversation", "conversations"))
		}
		return fmt.Sprintf("Reading %s: %s so far", name, plural(p.Sessions, "conversation", "conversations"))
	case importers.PhaseCommit:
		return fmt.Sprintf("Storing %d of %d conversations", p.Done, p.Total)
	case importers.PhasePack:
		return "Packing the index"
	}
	return name
}

// summaryText is an import's summary in words.
func summaryText(sum importers.Summary, err error) (title, body string) {
	var b strings.Builder
	switch {
	case err != nil && sum.New+sum.Updated == 0:
		title = "Nothing was imported"
	case err != nil:
		title = "Import stopped"
	default:
		title = "Import finished"
	}
	fmt.Fprintf(&b, "%s new, %d updated, %d unchanged, %d skipped as forgotten, %d failed",
		fmt.Sprint(sum.New), sum.Updated, sum.Unchanged, sum.Forgotten, sum.Failed)
	if sum.Inputs > 0 {
		fmt.Fprintf(&b, " (from %s)", plural(sum.Inputs, "input", "inputs"))
	}
	b.WriteString(".")
	if len(sum.Redacted) > 0 {
		var rules []string
		total := 0
		for r, n := range sum.Redacted {
			rules = append(rules, fmt.Sprintf("%s × %d", r, n))
			total += n
		}
		sort.Strings(rules)
		fmt.Fprintf(&b, "\n\n%s redacted: %s.", plural(total, "secret", "secrets"), strings.Join(rules, ", "))
	} else {
		b.WriteString("\n\nNo secrets redacted.")
	}
	if len(sum.Failures) > 0 {
		b.WriteString("\n\nFailed (nothing from these was stored):")
		for _, f := range sum.Failures[:min(len(sum.Failures), 20)] {
			fmt.Fprintf(&b, "\n• %s: %s", f.Path, f.Reason)
		}
		if len(sum.Failures) > 20 {
			fmt.Fprintf(&b, "\n…and %d more", len(sum.Failures)-20)
		}
	}
	if len(sum.Skipped) > 0 {
		b.WriteString("\n\nLeft out of otherwise good exports:")
		for _, f := range sum.Skipped[:min(len(sum.Skipped), 20)] {
			fmt.Fprintf(&b, "\n• %s: %s", f.Path, f.Reason)
		}
		if len(sum.Skipped) > 20 {
			fmt.Fprintf(&b, "\n…and %d more", len(sum.Skipped)-20)
		}
	}
	if sum.Older > 0 {
		fmt.Fprintf(&b, "\n\n%s skipped: what is stored holds more (later turns, or a later update).", plural(sum.Older, "older copy", "older copies"))
	}
	if sum.Forgotten > 0 {
		b.WriteString("\n\nForgotten conversations stay forgotten; tick “Bring back conversations I forgot” to import them again.")
	}
	return title, b.String()
}

func (s *importScreen) showSummary(paths []string, sum importers.Summary, err error) {
	s.last, s.lastErr = sum, err
	title, body := summaryText(sum, err)
	if errorsIsCanceled(err) {
		title = "Import cancelled"
		body = "Nothing from the input being read when you cancelled was stored.\n\n" + body
	}
	s.card.SetTitle(title)
	s.card.SetSubTitle(strings.Join(paths, ", "))
	s.summary.SetText(body)
	s.card.Show()
}

// notify tells the person a long import is done, or one that finished
// while the window was hidden.
func (s *importScreen) notify(sum importers.Summary, err error) {
	if time.Since(s.job.started) < notifyAfter && s.u.win.Content().Visible() {
		return
	}
	title, _ := summaryText(sum, err)
	msg := fmt.Sprintf("%d new, %d updated, %d unchanged", sum.New, sum.Updated, sum.Unchanged)
	if sum.Failed > 0 {
		msg += fmt.Sprintf(", %d failed", sum.Failed)
	}
	s.u.app.SendNotification(fyne.NewNotification(title, msg))
}

// refresh lists the sources found on this computer.
func (s *importScreen) refresh() {
	s.redact.SetChecked(s.u.set.ScrubOnImport)
	load(s.u, "look for history on this computer", func(context.Context) ([]importers.Location, error) {
		return importers.DefaultLocations(s.u.deps.ToolHomes), nil
	}, s.showSources)
	s.refreshHooks()
}

// showSources lists detected sources, each with an Import button and, for
// folders an agent keeps writing to, a Watch toggle.
func (s *importScreen) showSources(locs []importers.Location) {
	s.locations = locs
	var rows []fyne.CanvasObject
	for _, l := range locs {
		icon := theme.FolderIcon()
		if fi, err := os.Stat(l.Path); err == nil && !fi.IsDir() { // an export zip, an agent's database
			icon = theme.FileIcon()
		}
		what := widget.NewLabelWithStyle(capitalize(l.What), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		path := newMuted(l.Path)
		path.Truncation = fyne.TextTruncateEllipsis
		imp := widget.NewButtonWithIcon("Import", theme.DownloadIcon(), func() { s.importPaths([]string{l.Path}) })
		if !l.Live && s.alreadyImported(l.Path) {
			imp.SetText("Imported")
			imp.SetIcon(theme.ConfirmIcon())
			imp.Disable()
		}
		actions := container.NewHBox(imp)
		if l.Live {
			watch := widget.NewCheck("Watch", nil)
			watch.SetChecked(s.u.watching(l.Path))
			watch.OnChanged = func(on bool) { s.u.setWatch(l.Path, on) }
			actions.Add(watch)
		}
		rows = append(rows, container.NewBorder(nil, nil, widget.NewIcon(icon), actions, container.NewVBox(what, path)))
	}
	if len(rows) == 0 {
		none := widget.NewLabel("No agent's history (" + agentsInWords() + ") and no export zips in Downloads were found. " +
			"Use Import a file… for an export saved elsewhere.\n\n" +
			"To get an export: ChatGPT › Settings › Data controls › Export data; Claude › Settings › Privacy › Export data. " +
			"Each arrives as a link by email: download the .zip and import it as it is.")
		none.Wrapping = fyne.TextWrapWord
		rows = append(rows, none)
	}
	s.sources.Objects = rows
	s.sources.Refresh()
}

// watchStatus says what the watcher is doing.
func (s *importScreen) watchStatus(text string) {
	setMuted(s.watchLabel, text)
	if text == "" {
		s.watchLabel.Hide() // an empty line left a gap before the hooks line
	} else {
		s.watchLabel.Show()
	}
}
