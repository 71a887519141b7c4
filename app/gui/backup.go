package gui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/backup"
	"github.com/ireneo-app/ireneo/settings"
)

// The backup panel, under Settings (and in the File menu): back the memory
// up to one archive, or restore one — into an empty memory, or merged into
// this one after a question. The work runs as a job with progress.

type backupPanel struct {
	u       *ui
	job     *job
	summary *widget.Label
	backup  *widget.Button
	restore *widget.Button
}

func newBackupPanel(u *ui) *backupPanel {
	p := &backupPanel{u: u, job: newJob(u), summary: widget.NewLabel("")}
	p.summary.Wrapping = fyne.TextWrapWord
	p.summary.Selectable = true
	p.summary.Hide() // no empty line under the buttons until there is a report
	p.backup = widget.NewButtonWithIcon("Back up…", theme.DocumentSaveIcon(), p.pickBackup)
	p.restore = widget.NewButtonWithIcon("Restore…", theme.UploadIcon(), p.pickRestore)
	return p
}

func (p *backupPanel) content() fyne.CanvasObject {
	head := widget.NewLabelWithStyle("Backup and restore", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	note := widget.NewLabel("One archive of your conversations, their tags, stars and tombstones, the scrub allow-list and your settings, " +
		"every file checked by sha256. Token secrets are not included: they stay in the keyring.")
	note.Wrapping = fyne.TextWrapWord
	return container.NewVBox(head, note, container.NewHBox(p.backup, p.restore), p.job.box, p.summary)
}

// pickBackup asks where to write the archive.
func (p *backupPanel) pickBackup() {
	p.u.showScreen(screenSettings)
	dir := p.u.imp.home()
	name := filepath.Join(dir, "ireneo-backup-"+time.Now().Format("2006-01-02")+".zip")
	p.u.askPath(pathRequest{title: "Back up the memory", label: "Archive", verb: "Back up", kind: pathFileNew,
		initial: name, exts: []string{".zip"}, start: dir}, p.runBackup)
}

// pickRestore asks for an archive to restore.
func (p *backupPanel) pickRestore() {
	p.u.showScreen(screenSettings)
	dir := p.u.imp.downloads()
	p.u.askPath(pathRequest{title: "Restore a backup", label: "Archive", verb: "Restore…", kind: pathFile,
		initial: folderHint(dir), exts: []string{".zip"}, start: dir}, func(path string) { p.runRestore(path, false) })
}

// busy refuses a second backup or restore while one runs.
func (p *backupPanel) busy() bool {
	if p.job.running() {
		p.u.showError("start another backup or restore", inputErrorf("one is already running; wait for it or cancel it"))
		return true
	}
	return false
}

// runBackup writes the archive at path in the background.
func (p *backupPanel) runBackup(path string) {
	if p.busy() {
		return
	}
	var sum backup.WriteSummary
	opts := backup.WriteOptions{AppVersion: p.u.deps.Version, Settings: p.u.set}
	p.setSummary("")
	p.job.start("Backing up to "+filepath.Base(path), func(ctx context.Context, report progress) error {
		opts.Progress = func(done, total int) { report(done, total, fmt.Sprintf("Backing up: %d of %d files", done, total)) }
		var err error
		sum, err = backup.Write(ctx, p.u.mem, path, opts)
		return err
	}, func(err error) {
		if err != nil {
			p.u.showError("back up the memory", err)
			return
		}
		text := fmt.Sprintf("Backed up %s (%s) to %s, with %s, %s, %s and your settings.",
			plural(sum.Conversations, "conversation", "conversations"), bytesize(sum.Bytes), sum.Path,
			plural(sum.Tags, "tag", "tags"), plural(sum.Stars, "star", "stars"), plural(sum.Tombstones, "tombstone", "tombstones"))
		if len(sum.Skipped) > 0 {
			text += " Skipped: " + strings.Join(sum.Skipped, "; ") + "."
		}
		p.setSummary(text + " Not included: token secrets (they stay in the keyring), the audit log and the search index.")
		p.u.lastInfo = text
		p.u.toast("Backup written")
	})
}

// runRestore checks the archive, then restores it. Into a memory that has
// conversations it asks first, and merges on yes.
func (p *backupPanel) runRestore(path string, merge bool) {
	if p.busy() {
		return
	}
	var (
		sum      backup.RestoreSummary
		restored settings.Settings
	)
	set := p.u.set
	// The settings are every memory's: they change only if the person says
	// so after the restore (askSettings).
	opts := backup.RestoreOptions{Merge: merge, Current: &set}
	p.setSummary("")
	what := "Checking " + filepath.Base(path)
	p.job.start(what, func(ctx context.Context, report progress) error {
		report(0, 0, "Checking every file of "+filepath.Base(path)+"…")
		a, err := backup.Open(ctx, path)
		if err != nil {
			return err
		}
		defer a.Close()
		if merge {
			if opts.Redact, err = scrubber.ImportRedactor(set); err != nil {
				return fmt.Errorf("load the secret rules: %w", err)
			}
		}
		verbs := map[string]string{backup.PhaseExtract: "Unpacking", backup.PhaseIndex: "Indexing", backup.PhaseMerge: "Importing"}
		opts.Progress = func(phase string, done, total int) {
			report(done, total, fmt.Sprintf("%s: %d of %d", verbs[phase], done, total))
		}
		sum, err = a.Restore(ctx, p.u.mem, opts)
		restored = a.Settings
		return err
	}, func(err error) {
		switch {
		case errors.Is(err, backup.ErrNotEmpty):
			p.askMerge(path)
			return
		case err != nil:
			p.u.showError("restore the backup", err)
			return
		}
		p.restored(sum, restored)
	})
}

// askMerge asks whether to merge an archive into a memory that has
// conversations.
func (p *backupPanel) askMerge(path string) {
	msg := wrapped("This memory already has conversations. Merge the backup into it, the way an import does? " +
		"Conversations you forgot here stay forgotten, nothing is duplicated, the backup's tags and stars are added, and your settings are kept.")
	p.u.confirm("Merge "+filepath.Base(path)+"?", msg, "Merge", false, 520, func() { p.runRestore(path, true) })
}

// restored says what a restore did and refreshes every screen.
func (p *backupPanel) restored(sum backup.RestoreSummary, set settings.Settings) {
	var text string
	if sum.Merged {
		r := sum.Import
		text = fmt.Sprintf("Merged %s: %d new, %d updated, %d unchanged, %d left out as forgotten, %d older copies left out. Added %s and %s. Your settings are kept.",
			filepath.Base(sum.Archive), r.New, r.Updated, r.Unchanged, r.Forgotten, r.Older,
			plural(sum.Catalog.Tags, "tag", "tags"), plural(sum.Catalog.Stars, "star", "stars"))
	} else {
		text = fmt.Sprintf("Restored %s from %s and rebuilt the index, with %s, %s and %s.",
			plural(sum.Conversations, "conversation", "conversations"), filepath.Base(sum.Archive),
			plural(sum.Catalog.Tags, "tag", "tags"), plural(sum.Catalog.Stars, "star", "stars"), plural(sum.Catalog.Tombstones, "tombstone", "tombstones"))
		if sum.Forgotten > 0 {
			text += fmt.Sprintf(" Left out %s this memory forgot.", plural(sum.Forgotten, "conversation", "conversations"))
		}
		if sum.Settings {
			text += " Settings restored; a new server port takes effect when Ireneo restarts."
		}
	}
	if len(sum.Failed) > 0 {
		text += " Could not index: " + strings.Join(sum.Failed, "; ") + "."
	}
	text += " Token secrets were not in the backup: make new tokens on the Connect screen."
	p.setSummary(text)
	p.u.lastInfo = text
	if sum.Settings {
		p.u.set = set
		p.u.prefs.load()
		p.u.restartWatch()
	}
	p.u.memoryChanged()
	if !sum.Merged && len(sum.SettingsChanges) > 0 {
		p.askSettings(sum.SettingsChanges, set) // instead of a toast: one hiding takes the dialogs above it along
		return
	}
	p.u.toast("Backup restored")
}

// askSettings offers the backup's settings, which differ from those in
// use, after a restore that kept them.
func (p *backupPanel) askSettings(changes []backup.SettingChange, set settings.Settings) {
	list := make([]string, len(changes))
	for i, c := range changes {
		list[i] = c.String()
	}
	msg := wrapped("Backup restored. Its settings differ from yours (yours → the backup's): " + strings.Join(list, "; ") +
		". They apply to every memory; a new server port takes effect when Ireneo restarts. Use the backup's settings?")
	p.u.confirm("Use the backup's settings?", msg, "Use them", false, 520, func() {
		if err := p.u.deps.SaveSettings(set); err != nil {
			p.u.showError("restore the settings", err)
			return
		}
		p.u.set = set
		p.u.prefs.load()
		p.u.restartWatch()
		p.u.toast("Settings restored")
	})
}

// setSummary shows the last backup's or restore's report, or hides the
// line when there is none.
func (p *backupPanel) setSummary(text string) {
	p.summary.SetText(text)
	if text == "" {
		p.summary.Hide()
	} else {
		p.summary.Show()
	}
}
