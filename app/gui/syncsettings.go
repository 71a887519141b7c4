package gui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	gosync "sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/redact"
	memsync "github.com/ireneo-app/ireneo/sync"
)

// The Sync card, under Settings: this memory on the person's other
// machines through a folder Syncthing (or Nextcloud, Dropbox …) keeps in
// step (package sync). While the app runs it keeps the memory and the
// folder in step, journals the person's choices as they make them, and a
// line in the tray says how it stands: the machines seen, what waits.

// traySync begins the tray's sync line.
const traySync = "Sync: "

type syncPanel struct {
	u *ui

	folder    *widget.Entry
	name      *widget.Entry
	syncthing *widget.Check
	setupBtn  *widget.Button
	leaveBtn  *widget.Button
	status    *widget.Label
	setupBox  *fyne.Container
	runBox    *fyne.Container
	tray      *fyne.MenuItem

	// stop ends the engine, done closes when it has; both nil while none
	// runs. Touched on the UI goroutine only.
	stop context.CancelFunc
	done chan struct{}
	// last is the status last shown.
	last memsync.Status
	// leaving is set while the person's Stop syncing runs.
	leaving bool
}

// syncPanels finds each window's panel (the tests read it).
var syncPanels gosync.Map // *ui → *syncPanel

// syncCard is the Sync card. Building it journals the person's choices
// from here on and, when the memory syncs, starts keeping it in step.
func (s *settingsScreen) syncCard() fyne.CanvasObject {
	p := newSyncPanel(s.u)
	syncPanels.Store(s.u, p)
	return p.content()
}

func newSyncPanel(u *ui) *syncPanel {
	p := &syncPanel{u: u, folder: widget.NewEntry(), name: widget.NewEntry(), status: widget.NewLabel("")}
	p.folder.SetPlaceHolder("A folder your file-sync engine shares, e.g. ~/Sync/ireneo")
	p.name.SetPlaceHolder("This machine's name (default: its host name)")
	p.syncthing = widget.NewCheck("Add it to Syncthing on this machine and share it with the devices paired there", nil)
	p.syncthing.SetChecked(true)
	p.status.Wrapping = fyne.TextWrapWord
	p.status.Selectable = true
	p.setupBtn = widget.NewButtonWithIcon("Set up sync", theme.MediaReplayIcon(), p.setUp)
	p.leaveBtn = widget.NewButtonWithIcon("Stop syncing…", theme.CancelIcon(), p.askLeave)
	choose := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), p.chooseFolder)
	p.setupBox = container.NewVBox(
		widget.NewForm(
			widget.NewFormItem("Sync folder", container.NewBorder(nil, nil, nil, choose, p.folder)),
			widget.NewFormItem("This machine", p.name),
		),
		p.syncthing, container.NewHBox(p.setupBtn))
	p.runBox = container.NewVBox(container.NewHBox(p.leaveBtn))
	p.tray = fyne.NewMenuItem(traySync, func() { u.show(); u.showScreen(screenSettings) })
	patterns := u.set.UserPatterns
	memsync.Attach(u.mem, func() redact.SecretFinder { return secretFinder(patterns) })
	if _, err := memsync.LoadConfig(u.mem.Dir()); err == nil {
		p.start()
	}
	p.refresh()
	go p.watchSetup()
	return p
}

// setupPoll is how often the app looks for a setup made from the command
// line (`ireneo sync setup`) while it runs: one small file's stat.
var setupPoll = 10 * time.Second

// watchSetup starts the engine when the memory is set up from elsewhere.
func (p *syncPanel) watchSetup() {
	dir := p.u.mem.Dir()
	tick := time.NewTicker(setupPoll)
	defer tick.Stop()
	for {
		select {
		case <-p.u.ctx.Done():
			return
		case <-tick.C:
			if _, err := memsync.LoadConfig(dir); err == nil {
				fyneDo(func() {
					if p.stop == nil && !p.leaving {
						p.start()
						p.refresh()
					}
				})
			}
		}
	}
}

func (p *syncPanel) content() fyne.CanvasObject {
	head := widget.NewLabelWithStyle("Sync", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	note := widget.NewLabel("One memory on all your machines, through a folder Syncthing (or Nextcloud, Dropbox …) keeps in step. " +
		"Each machine writes only its own part of it: its conversations and your choices (tags, stars, renames, forget, scrub). " +
		"The search index, tokens, the audit log and settings stay on each machine.")
	note.Wrapping = fyne.TextWrapWord
	return container.NewVBox(widget.NewSeparator(), head, note, p.setupBox, p.status, p.runBox)
}

// start runs the engine until the app quits or the person stops syncing.
func (p *syncPanel) start() {
	if p.stop != nil {
		return
	}
	ctx, cancel := context.WithCancel(p.u.ctx)
	done := make(chan struct{})
	p.stop, p.done = cancel, done
	set := p.u.set
	mem := p.u.mem
	// The engine runs until stopped, so it is not counted as background
	// work that tests wait for (as the folder watcher is not).
	go func() {
		defer close(done)
		opts := memsync.Options{Finder: secretFinder(set.UserPatterns)}
		if redact, err := scrubber.ImportRedactor(set); err == nil {
			opts.Redact = redact
		}
		opts.OnPass = func(memsync.Report, error) { fyneDo(p.refresh) }
		if err := memsync.Run(ctx, mem, opts); err != nil && ctx.Err() == nil {
			fyneDo(func() {
				p.u.showError("keep the memory in step with the sync folder", err)
				p.refresh()
			})
		}
	}()
}

// halt stops the engine and calls then on the UI goroutine once it has.
func (p *syncPanel) halt(then func()) {
	stop, done := p.stop, p.done
	p.stop, p.done = nil, nil
	if stop == nil {
		then()
		return
	}
	stop()
	p.u.goBackground(func(context.Context) {
		<-done
		fyneDo(then)
	})
}

// refresh reads the status again and shows it, in the card and the tray.
func (p *syncPanel) refresh() {
	dir := p.u.mem.Dir()
	load(p.u, "read the sync status", func(context.Context) (*memsync.Status, error) {
		st, err := memsync.ReadStatus(dir)
		if errors.Is(err, memsync.ErrNotSetUp) {
			return nil, nil
		}
		return &st, err
	}, p.show)
}

func (p *syncPanel) show(st *memsync.Status) {
	if st == nil {
		p.last = memsync.Status{}
		p.setupBox.Show()
		p.runBox.Hide()
		p.status.SetText("This memory syncs with no other machine.")
		p.setTray("")
		return
	}
	p.last = *st
	p.setupBox.Hide()
	p.runBox.Show()
	p.status.SetText(syncStatusText(*st))
	p.tray.ChildMenu = syncTrayMenu(*st, func() { p.u.show(); p.u.showScreen(screenSettings) })
	p.setTray(traySync + syncTrayText(*st))
}

// syncTrayMenu is the sync line's submenu: each machine and when it last
// changed, the conflicts resolved, and the way to Settings.
func syncTrayMenu(st memsync.Status, open func()) *fyne.Menu {
	var items []*fyne.MenuItem
	for _, m := range st.Machines {
		last := "no change yet"
		if !m.LastChange.IsZero() {
			last = "last change " + stamp(m.LastChange)
		}
		label := m.Name + ": " + last
		if m.This {
			label = m.Name + " (this one): " + last
		}
		it := fyne.NewMenuItem(label, nil)
		it.Disabled = true
		items = append(items, it)
	}
	resolved := fyne.NewMenuItem("Resolved: "+plural(st.ConflictsResolved, "conflicting choice", "conflicting choices")+", "+
		plural(st.CopiesMerged, "conversation in several copies", "conversations in several copies"), nil)
	resolved.Disabled = true
	items = append(items, fyne.NewMenuItemSeparator(), resolved, fyne.NewMenuItem("Sync settings…", open))
	return fyne.NewMenu("", items...)
}

// setTray shows label in the tray menu, above its last separator and
// Quit (the menu is built after the screens, so the item goes in at the
// first status shown); "" takes the item out: a memory that syncs with
// nothing has no line there.
func (p *syncPanel) setTray(label string) {
	m := p.u.tray
	if m == nil {
		return
	}
	in := slices.Contains(m.Items, p.tray)
	if label == "" {
		if in {
			m.Items = slices.DeleteFunc(m.Items, func(it *fyne.MenuItem) bool { return it == p.tray })
			m.Refresh()
		}
		return
	}
	if in && p.tray.Label == label {
		return
	}
	p.tray.Label = label
	if !in && len(m.Items) >= 2 {
		at := len(m.Items) - 2
		m.Items = slices.Insert(m.Items, at, p.tray)
	}
	m.Refresh()
}

// syncTrayText is the tray's one line: how many machines, what waits.
func syncTrayText(st memsync.Status) string {
	line := plural(len(st.Machines), "machine", "machines")
	switch w := st.Waiting; {
	case st.LastError != "":
		line += ", not in step (see Settings)"
	case st.LastPass.IsZero():
		line += ", starting"
	case w.Up():
		line += ", up to date"
	default:
		line += fmt.Sprintf(", %d waiting", w.InFlight+w.Unread+w.Outbox)
	}
	return line
}

// syncStatusText is the card's status: the same facts `ireneo sync status`
// prints.
func syncStatusText(st memsync.Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Folder: %s\n", st.Folder)
	if st.LastPass.IsZero() {
		b.WriteString("Not brought in step yet.\n")
	} else {
		fmt.Fprintf(&b, "Last brought in step: %s.\n", stamp(st.LastPass))
	}
	if st.LastError != "" {
		fmt.Fprintf(&b, "Last error: %s\n", st.LastError)
	}
	if w := st.Waiting; w.Up() {
		b.WriteString("Nothing waiting.\n")
	} else {
		fmt.Fprintf(&b, "Waiting: %s arriving, %s not read yet, %s not yet in the journal.\n",
			plural(w.InFlight, "file", "files"), plural(w.Unread, "file", "files"), plural(w.Outbox, "choice", "choices"))
	}
	if st.Waiting.Unreadable > 0 {
		fmt.Fprintf(&b, "%s cannot be read (not whole, or not a conversation).\n", plural(st.Waiting.Unreadable, "file", "files"))
	}
	fmt.Fprintf(&b, "Resolved: %s, %s.\n", plural(st.ConflictsResolved, "conflicting choice", "conflicting choices"),
		plural(st.CopiesMerged, "conversation held in several copies", "conversations held in several copies"))
	b.WriteString("Machines:")
	for _, m := range st.Machines {
		this, last := "", "never"
		if m.This {
			this = " (this one)"
		}
		if !m.LastChange.IsZero() {
			last = stamp(m.LastChange)
		}
		fmt.Fprintf(&b, "\n  %s%s: %s, %s, last change %s", m.Name, this, plural(m.Conversations, "conversation", "conversations"),
			plural(m.Entries, "choice", "choices"), last)
	}
	return b.String()
}

// chooseFolder picks the sync folder.
func (p *syncPanel) chooseFolder() {
	p.u.askPath(pathRequest{title: "Sync through a folder", label: "Folder", verb: "Choose", kind: pathFolder,
		initial: folderHint(p.u.imp.home()), start: p.u.imp.home()}, p.folder.SetText)
}

// setUp makes the folder the memory's sync folder, shares it through
// Syncthing when asked, and starts keeping it in step.
func (p *syncPanel) setUp() {
	folder := strings.TrimSpace(p.folder.Text)
	if folder == "" {
		p.u.showError("set up sync", inputErrorf("choose the folder to sync through"))
		return
	}
	folder = expandHome(folder, p.u.imp.home())
	name, viaST, dir := strings.TrimSpace(p.name.Text), p.syncthing.Checked, p.u.mem.Dir()
	p.setupBtn.Disable()
	p.u.goBackground(func(ctx context.Context) {
		var shared string
		cfg, err := memsync.SetUp(dir, folder, name)
		if err == nil && viaST {
			var st *memsync.Syncthing
			if st, err = memsync.FindSyncthing(""); err == nil {
				var rep memsync.ShareReport
				if rep, err = st.ShareFolder(ctx, cfg.Folder); err == nil {
					shared = strings.Join(rep.SharedTo, ", ")
				}
			}
			if err != nil {
				err = fmt.Errorf("the folder is set up, but Syncthing could not share it: %w", err)
			}
		}
		fyneDo(func() {
			p.setupBtn.Enable()
			if cfg.Folder != "" {
				p.start()
			}
			p.refresh()
			if err != nil {
				p.u.showError("set up sync", err)
				return
			}
			msg := "Sync set up"
			if shared != "" {
				msg += "; Syncthing shares it with " + shared
			}
			p.u.toast(msg)
		})
	})
}

// askLeave asks before the memory stops syncing.
func (p *syncPanel) askLeave() {
	body := wrapped("This memory keeps every conversation and choice it has; it stops sending and taking changes. " +
		"Your other machines keep what they have. A folder added to Syncthing stays there.")
	p.u.confirm("Stop syncing?", body, "Stop syncing", false, 480, func() {
		p.leaving = true
		p.halt(func() {
			dir := p.u.mem.Dir()
			p.u.goBackground(func(context.Context) {
				_, err := memsync.Leave(dir, false)
				fyneDo(func() {
					p.leaving = false
					if err != nil {
						p.u.showError("stop syncing", err)
					}
					p.refresh()
				})
			})
		})
	})
}
