package sync

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Status is what `ireneo sync status`, `ireneo status`, Settings and the
// tray show: the machines seen, when each last changed, what is waiting,
// and the conflicts resolved.
type Status struct {
	Folder  string `json:"folder"`
	Machine string `json:"machine"`
	Name    string `json:"name"`
	// LastPass is when the engine last brought the memory and the folder in
	// step (zero: not yet), with its report and error.
	LastPass  time.Time       `json:"last_pass"`
	LastError string          `json:"last_error,omitempty"`
	Last      Report          `json:"last_report"`
	Machines  []MachineStatus `json:"machines"`
	Waiting   Waiting         `json:"waiting"`
	// ConflictsResolved counts choices two machines made differently about
	// one item (a tag, a star), the later kept everywhere; CopiesMerged the
	// conversations held in more than one differing copy, the fullest kept.
	ConflictsResolved int `json:"conflicts_resolved"`
	CopiesMerged      int `json:"copies_merged"`
	BadEntries        int `json:"bad_journal_lines"`
}

// MachineStatus is one machine seen in the folder.
type MachineStatus struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	This          bool      `json:"this"`
	Conversations int       `json:"conversations"` // files in its subfolder
	Entries       int       `json:"journal_entries"`
	LastChange    time.Time `json:"last_change"` // its newest file or entry
}

// Waiting is what has not reached the memory yet.
type Waiting struct {
	InFlight   int `json:"in_flight"`  // files the sync engine is still writing
	Unread     int `json:"unread"`     // conversation files new or changed since the last pass
	Unreadable int `json:"unreadable"` // conversation files that cannot be read
	// Problems names up to ten of them, each with what is wrong.
	Problems []string `json:"problems,omitempty"`
	Outbox   int      `json:"outbox"` // choices not yet in the journal: the folder was out of reach
}

// Up says whether nothing waits.
func (w Waiting) Up() bool { return w.InFlight+w.Unread+w.Outbox == 0 }

const statusName = "status.json"

// status is the engine's status after a pass.
func (e *Engine) status(rep Report, err error) Status {
	st := Status{Folder: e.cfg.Folder, Machine: e.cfg.Machine, Name: e.cfg.Name, LastPass: e.opts.Now().UTC(), Last: rep, BadEntries: e.bad}
	if err != nil {
		st.LastError = err.Error()
	}
	st.ConflictsResolved = e.conflicts
	seen := map[string]*MachineStatus{}
	machine := func(id string) *MachineStatus {
		if m := seen[id]; m != nil {
			return m
		}
		m := &MachineStatus{ID: id, This: id == e.cfg.Machine, Name: machineName(e.cfg.Folder, id)}
		seen[id] = m
		return m
	}
	machine(e.cfg.Machine)
	for _, en := range e.entries {
		m := machine(en.machine)
		m.Entries++
		if t := time.UnixMilli(en.T).UTC(); t.After(m.LastChange) {
			m.LastChange = t
		}
	}
	hashes := map[string]map[string]bool{}
	for rel, rec := range e.st.Files {
		c := classify(rel)
		if c.kind != kindConversation && c.kind != kindConflict {
			continue
		}
		if rec.Bad != "" {
			st.Waiting.Unreadable++
			st.Waiting.Problems = append(st.Waiting.Problems, filepath.Join(e.cfg.Folder, filepath.FromSlash(rel))+": "+rec.Bad)
			continue
		}
		m := machine(c.machine)
		if c.kind == kindConversation {
			m.Conversations++
		}
		if t := time.Unix(0, rec.Mod).UTC(); t.After(m.LastChange) {
			m.LastChange = t
		}
		if hashes[c.conv] == nil {
			hashes[c.conv] = map[string]bool{}
		}
		hashes[c.conv][rec.Hash] = true
	}
	for _, hs := range hashes {
		if len(hs) > 1 {
			st.CopiesMerged++
		}
	}
	slices.Sort(st.Waiting.Problems)
	if len(st.Waiting.Problems) > 10 {
		st.Waiting.Problems = st.Waiting.Problems[:10]
	}
	for _, m := range seen {
		st.Machines = append(st.Machines, *m)
	}
	sortMachines(st.Machines)
	st.Waiting.Outbox = outboxLines(e.memDir)
	return st
}

func sortMachines(ms []MachineStatus) {
	slices.SortFunc(ms, func(a, b MachineStatus) int {
		switch {
		case a.This != b.This:
			if a.This {
				return -1
			}
			return 1
		case a.Name != b.Name:
			return compareStrings(a.Name, b.Name)
		}
		return compareStrings(a.ID, b.ID)
	})
}

// machineName is the name a machine's machine.json gives, else its id.
func machineName(folder, id string) string {
	data, err := os.ReadFile(filepath.Join(machineDir(folder, id), machineInfoName))
	var mi machineInfo
	if err != nil || json.Unmarshal(data, &mi) != nil || mi.Name == "" {
		return id
	}
	if len(mi.Name) > 100 {
		return mi.Name[:100]
	}
	return mi.Name
}

func outboxLines(memDir string) int {
	data, err := os.ReadFile(filepath.Join(localDir(memDir), outboxName))
	if err != nil {
		return 0
	}
	n := 0
	for _, b := range data {
		if b == '\n' {
			n++
		}
	}
	return n
}

func saveStatus(memDir string, st Status) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return funes.WriteFileAtomic(filepath.Join(localDir(memDir), statusName), data, 0o600)
}

// ReadStatus is the memory's sync status as the last pass left it (by
// whichever process ran it), with what waits now: the files the sync
// engine is still writing and those new or changed since. ErrNotSetUp
// when the memory syncs with nothing.
func ReadStatus(memDir string) (Status, error) {
	cfg, err := LoadConfig(memDir)
	if err != nil {
		return Status{}, err
	}
	st := Status{Folder: cfg.Folder, Machine: cfg.Machine, Name: cfg.Name}
	if data, err := os.ReadFile(filepath.Join(localDir(memDir), statusName)); err == nil {
		json.Unmarshal(data, &st)
	}
	// Machines that joined since the last pass, by their subfolders.
	known := map[string]bool{}
	for _, m := range st.Machines {
		known[m.ID] = true
	}
	if !known[cfg.Machine] {
		st.Machines = append(st.Machines, MachineStatus{ID: cfg.Machine, Name: cfg.Name, This: true})
		known[cfg.Machine] = true
	}
	if ents, err := os.ReadDir(filepath.Join(cfg.Folder, machinesDir)); err == nil {
		for _, d := range ents {
			if id := d.Name(); d.IsDir() && machineIDRe.MatchString(id) && !known[id] {
				st.Machines = append(st.Machines, MachineStatus{ID: id, Name: machineName(cfg.Folder, id)})
			}
		}
	}
	sortMachines(st.Machines)
	stt, err := loadState(memDir)
	if err != nil {
		return st, err
	}
	st.Waiting.InFlight, st.Waiting.Unread = 0, 0
	err = filepath.WalkDir(cfg.Folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == cfg.Folder {
				return err
			}
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".stfolder" {
				return fs.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(cfg.Folder, p)
		switch c := classify(rel); c.kind {
		case kindEngineTemp:
			st.Waiting.InFlight++
		case kindConversation, kindConflict:
			rec := stt.Files[filepath.ToSlash(rel)]
			info, ierr := d.Info()
			if ierr == nil && (rec == nil || rec.Size != info.Size() || rec.Mod != info.ModTime().UnixNano()) {
				st.Waiting.Unread++
			}
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		st.LastError = "the sync folder " + cfg.Folder + " is not there (is its disk attached?)"
		err = nil
	}
	st.Waiting.Outbox = outboxLines(memDir)
	return st, err
}
