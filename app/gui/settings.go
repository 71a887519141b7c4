package gui

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
	"github.com/ireneo-app/ireneo/settings"
)

// The settings screen: the server's port and autostart, recall defaults,
// scrub-on-import and the person's own secret patterns, watched folders,
// and start at login. Save checks everything first, then applies it.

type settingsScreen struct {
	u *ui

	port      *widget.Entry
	autostart *widget.Check
	topK      *widget.Entry
	budget    *widget.Entry
	scrub     *widget.Check
	patterns  *widget.Entry
	watch     *widget.Check
	folders   *widget.Entry
	login     *widget.Check
	memInfo   *widget.Label
	save      *widget.Button
	// shown is what the fields said when last loaded or saved: Save is on
	// only when they say something else.
	shown string
}

func newSettingsScreen(u *ui) *settingsScreen {
	s := &settingsScreen{u: u}
	s.port = widget.NewEntry()
	s.autostart = widget.NewCheck("Start the MCP server when Ireneo starts", nil)
	s.topK = widget.NewEntry()
	s.budget = widget.NewEntry()
	s.scrub = widget.NewCheck("Redact secrets while importing (recommended)", nil)
	s.patterns = widget.NewMultiLineEntry()
	s.patterns.SetPlaceHolder("One a line: name = regular expression\ncustomer-id = CUST-[0-9]{6}")
	s.patterns.SetMinRowsVisible(3)
	s.watch = widget.NewCheck("Watch these folders and import new sessions as they are written", nil)
	s.folders = widget.NewMultiLineEntry()
	s.folders.SetPlaceHolder("One folder a line, e.g. ~/.codex/sessions")
	s.folders.SetMinRowsVisible(3)
	s.login = widget.NewCheck("Start Ireneo when I log in", nil)
	s.memInfo = widget.NewLabel("")
	s.memInfo.Wrapping = fyne.TextWrapWord
	s.memInfo.Selectable = true
	s.save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), s.apply)
	s.save.Importance = widget.HighImportance
	s.load()
	for _, e := range []*widget.Entry{s.port, s.topK, s.budget, s.patterns, s.folders} {
		e.OnChanged = func(string) { s.updateSave() }
	}
	for _, c := range []*widget.Check{s.autostart, s.scrub, s.watch, s.login} {
		c.OnChanged = func(bool) { s.updateSave() }
	}
	return s
}

// updateSave turns Save on when a field says something other than it
// did when the settings were last loaded or saved.
func (s *settingsScreen) updateSave() {
	enable(s.save, s.fields() != s.shown)
}

// fields is what the screen's fields say, as one string to compare.
func (s *settingsScreen) fields() string {
	return fmt.Sprintln(s.port.Text, s.topK.Text, s.budget.Text, s.patterns.Text, s.folders.Text,
		s.autostart.Checked, s.scrub.Checked, s.watch.Checked, s.login.Checked)
}

func (s *settingsScreen) content() fyne.CanvasObject {
	addFolder := widget.NewButtonWithIcon("Add folder…", theme.FolderNewIcon(), s.addFolder)
	form := widget.NewForm(
		widget.NewFormItem("Server port", s.port),
		widget.NewFormItem("", s.autostart),
		widget.NewFormItem("Recall: results", s.topK),
		widget.NewFormItem("Recall: token budget", s.budget),
		widget.NewFormItem("Scrub", s.scrub),
		widget.NewFormItem("Your secret patterns", s.patterns),
		widget.NewFormItem("Watch", s.watch),
		widget.NewFormItem("Watched folders", container.NewBorder(nil, container.NewHBox(addFolder), nil, nil, s.folders)),
		widget.NewFormItem("Login", s.login),
	)
	form.Items[0].HintText = "The server listens on 127.0.0.1 only."
	form.Items[2].HintText = "How many passages an agent's recall returns unless it asks otherwise."
	form.Items[3].HintText = "The most tokens one recall returns unless the agent asks otherwise."
	memHead := widget.NewLabelWithStyle("Memory", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	body := container.NewVBox(form, container.NewHBox(s.save), widget.NewSeparator(), memHead, s.memInfo, widget.NewSeparator(), s.u.backup.content(), s.syncCard())
	return container.NewVScroll(container.NewPadded(body))
}

// load shows the current settings.
func (s *settingsScreen) load() {
	set := s.u.set
	_, port, err := net.SplitHostPort(set.ServerAddr)
	if err != nil {
		port = set.ServerAddr
	}
	s.port.SetText(port)
	s.autostart.SetChecked(set.ServerAutostart)
	s.topK.SetText(strconv.Itoa(set.DefaultK))
	s.budget.SetText(strconv.Itoa(set.DefaultBudget))
	s.scrub.SetChecked(set.ScrubOnImport)
	var lines []string
	for _, p := range set.UserPatterns {
		lines = append(lines, p.Name+" = "+p.Regex)
	}
	s.patterns.SetText(strings.Join(lines, "\n"))
	s.watch.SetChecked(set.WatchEnabled)
	s.folders.SetText(strings.Join(set.WatchFolders, "\n"))
	if a := s.u.deps.Autostart; a.Supported() {
		s.login.SetChecked(a.Enabled())
	} else {
		s.login.SetChecked(set.StartAtLogin)
	}
	s.memInfo.SetText("Folder: " + s.u.mem.Dir())
	s.refreshMemory()
	s.shown = s.fields()
	s.updateSave()
}

// refreshMemory reads the memory's numbers again: the screen comes up, or
// an import, forget or scrub changed them. They are memory.Status, as
// `ireneo status` prints them, with the size Insights shows.
func (s *settingsScreen) refreshMemory() {
	load(s.u, "read the memory's status", func(ctx context.Context) (memory.Status, error) {
		return s.u.mem.Status(ctx)
	}, func(st memory.Status) {
		s.memInfo.SetText(memoryInfo(st))
	})
}

// memoryInfo is the Memory section's text.
func memoryInfo(st memory.Status) string {
	last := "never"
	if st.LastImport != nil {
		last = stamp(*st.LastImport)
	}
	return fmt.Sprintf("Folder: %s\n%s, %s, %s on disk. Last import: %s. %s forgotten.",
		st.Dir, plural(st.Conversations, "conversation", "conversations"), plural(st.Turns, "turn", "turns"),
		bytesize(st.SizeBytes), last, plural(st.Forgotten, "conversation", "conversations"))
}

// parsed reads the form into settings, or says what is wrong.
func (s *settingsScreen) parsed() (settings.Settings, error) {
	set := s.u.set
	port, err := strconv.Atoi(strings.TrimSpace(s.port.Text))
	if err != nil || port < 1 || port > 65535 {
		return set, inputErrorf("server port %q is not a number from 1 to 65535", s.port.Text)
	}
	host, _, err := net.SplitHostPort(set.ServerAddr)
	if err != nil || host == "" {
		host = "127.0.0.1"
	}
	addr, err := mcpserver.NormalizeAddr(net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return set, inputError{err}
	}
	set.ServerAddr = addr
	set.ServerAutostart = s.autostart.Checked
	if set.DefaultK, err = strconv.Atoi(strings.TrimSpace(s.topK.Text)); err != nil || set.DefaultK < 1 || set.DefaultK > recall.MaxK {
		return set, inputErrorf("recall results %q is not a number from 1 to %d", s.topK.Text, recall.MaxK)
	}
	if set.DefaultBudget, err = strconv.Atoi(strings.TrimSpace(s.budget.Text)); err != nil || set.DefaultBudget < 100 {
		return set, inputErrorf("token budget %q is not a number of at least 100", s.budget.Text)
	}
	set.ScrubOnImport = s.scrub.Checked
	set.UserPatterns = nil
	for i, line := range strings.Split(s.patterns.Text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, re, ok := strings.Cut(line, "=")
		if !ok {
			return set, inputErrorf("secret pattern on line %d has no “=”: write name = regular expression", i+1)
		}
		set.UserPatterns = append(set.UserPatterns, settings.Pattern{Name: strings.TrimSpace(name), Regex: strings.TrimSpace(re)})
	}
	set.WatchEnabled = s.watch.Checked
	set.WatchFolders = nil
	for _, line := range strings.Split(s.folders.Text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			set.WatchFolders = append(set.WatchFolders, filepath.Clean(expandHome(line, s.u.imp.home())))
		}
	}
	set.StartAtLogin = s.login.Checked
	return set, nil
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// apply checks and saves the settings, then applies what changed: the
// server address, recall's defaults, the watcher and the login entry.
func (s *settingsScreen) apply() {
	next, err := s.parsed()
	if err != nil {
		s.u.showError("save the settings", err)
		return
	}
	prev := s.u.set
	s.save.Disable()
	s.u.goBackground(func(context.Context) {
		err := s.store(next)
		fyneDo(func() {
			if err != nil {
				s.save.Enable()
				s.u.showError("save the settings", err)
				return
			}
			s.u.set = next
			s.shown = s.fields()
			s.updateSave()
			s.u.lastInfo = "settings saved"
			if next.ServerAddr != prev.ServerAddr && s.u.deps.Server != nil && s.u.deps.Server.Running() {
				s.u.restartServer()
			}
			if (next.DefaultK != prev.DefaultK || next.DefaultBudget != prev.DefaultBudget) && s.u.deps.Server != nil {
				s.u.deps.Server.SetRecallDefaults(next.DefaultK, next.DefaultBudget)
			}
			if next.WatchEnabled != prev.WatchEnabled || !slices.Equal(next.WatchFolders, prev.WatchFolders) ||
				next.ScrubOnImport != prev.ScrubOnImport || !slices.Equal(next.UserPatterns, prev.UserPatterns) {
				s.u.restartWatch()
			}
			if !slices.Equal(next.UserPatterns, prev.UserPatterns) {
				s.u.setSecretPatterns(next.UserPatterns)
			}
			s.u.imp.refresh()
			s.u.connect.showServer()
			s.u.toast("Settings saved")
		})
	})
}

// store checks what can only be checked by trying, then writes: the
// patterns compile, the login entry is written, the file saved.
func (s *settingsScreen) store(next settings.Settings) error {
	// A bad pattern would otherwise only fail at the next import.
	if _, err := scrubber.For(next.UserPatterns); err != nil {
		return inputError{err}
	}
	if a := s.u.deps.Autostart; a.Supported() && next.StartAtLogin != a.Enabled() {
		if err := a.Set(next.StartAtLogin); err != nil {
			return err
		}
	}
	return s.u.deps.SaveSettings(next)
}

// addFolder adds a folder to the watched list.
func (s *settingsScreen) addFolder() {
	s.u.askPath(pathRequest{title: "Watch a folder", label: "Folder", verb: "Add", kind: pathFolder,
		initial: folderHint(s.u.imp.home()), start: s.u.imp.home()}, func(path string) {
		text := strings.TrimRight(s.folders.Text, "\n")
		if text != "" {
			text += "\n"
		}
		s.folders.SetText(text + path)
	})
}

// saveSettings writes the settings, telling the person if it fails.
func (u *ui) saveSettings() {
	set := u.set
	u.goBackground(func(context.Context) {
		if err := u.deps.SaveSettings(set); err != nil {
			fyneDo(func() { u.showError("save the settings", err) })
		}
	})
}

// restartServer moves the server to a new address.
func (u *ui) restartServer() {
	srv := u.deps.Server
	addr := u.set.ServerAddr
	u.goBackground(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err := srv.Stop(ctx)
		if err == nil {
			err = srv.Start(addr)
		}
		fyneDo(func() {
			u.serverChanged()
			if err != nil {
				u.showError("restart the MCP server on "+addr, err)
			}
		})
	})
}
