package sync

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ireneo-app/ireneo/funes"
)

// state is what this machine remembers between passes, in the memory
// directory: the manifest of the folder's files as last read (so a file
// whose size and time are unchanged is not read again), the choices last
// applied to the memory (so a choice made here that no journal holds yet
// can be told from one made elsewhere), what was forgotten and redacted
// already, and the last pass's status. It holds hashes, sizes, times and
// project names: no conversation text and no id.
type state struct {
	Version int `json:"version"`
	// Initialized is set after the first pass, which journals the choices
	// the memory already held.
	Initialized bool                   `json:"initialized"`
	Files       map[string]*fileRecord `json:"files"`
	Base        map[string]choiceState `json:"base"`
	// Forgotten holds the conversations erased here for a forget entry (or
	// whose local tombstone was journaled): a later import that the person
	// asked for (--include-forgotten) is not erased again.
	Forgotten map[string]bool `json:"forgotten"`
	// Redacted counts, per conversation, the redaction entries applied to
	// the memory's copy.
	Redacted map[string]redactMark `json:"redacted"`
	// Clock is the local clock when the last pass began: what this machine
	// journaled after it is not journaled again as unjournaled.
	Clock  Clock  `json:"clock"`
	Status Status `json:"status"`
}

const stateVersion = 1

// fileRecord is one file of the folder as last read.
type fileRecord struct {
	Size int64 `json:"s"`
	Mod  int64 `json:"m"` // modification time, Unix nanoseconds
	// For a conversation (or a conflict copy of one): its content hash,
	// turns and latest turn time, as memory stores them.
	Hash    string `json:"h,omitempty"`
	Turns   int    `json:"t,omitempty"`
	Updated int64  `json:"u,omitempty"`
	Bytes   int64  `json:"b,omitempty"`
	Bad     string `json:"bad,omitempty"` // why it cannot be read
	// Redactions counts its conversation's redaction entries applied to
	// this copy.
	Redactions int `json:"r,omitempty"`
	// Declined is the hash of the memory's copy when this one was last
	// offered to it ("-": none), so a copy memory keeps its own over is
	// not offered again until its own changes.
	Declined string `json:"d,omitempty"`
}

// choiceState is a conversation's tags and star.
type choiceState struct {
	Tags []string `json:"tags,omitempty"`
	Star bool     `json:"star,omitempty"`
}

func newState() *state {
	return &state{Version: stateVersion, Files: map[string]*fileRecord{}, Base: map[string]choiceState{},
		Forgotten: map[string]bool{}, Redacted: map[string]redactMark{}}
}

func loadState(memDir string) (*state, error) {
	st := newState()
	p := filepath.Join(localDir(memDir), stateName)
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sync state: %w", err)
	}
	if err := json.Unmarshal(data, st); err != nil || st.Version != stateVersion {
		// Derived from the folder and the memory: a fresh one costs one
		// full read of the folder, nothing else.
		fresh := newState()
		fresh.Initialized = st.Initialized
		return fresh, nil
	}
	if st.Files == nil {
		st.Files = map[string]*fileRecord{}
	}
	if st.Base == nil {
		st.Base = map[string]choiceState{}
	}
	if st.Forgotten == nil {
		st.Forgotten = map[string]bool{}
	}
	if st.Redacted == nil {
		st.Redacted = map[string]redactMark{}
	}
	return st, nil
}

func loadClock(memDir string) (Clock, error) {
	var c Clock
	data, err := os.ReadFile(filepath.Join(localDir(memDir), clockName))
	if os.IsNotExist(err) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if json.Unmarshal(data, &c) != nil {
		return Clock{}, nil // the next stamp is the wall clock's, above what the journals hold once read
	}
	return c, nil
}

func saveClock(memDir string, c Clock) error {
	data, _ := json.Marshal(c)
	return funes.WriteFileAtomic(filepath.Join(localDir(memDir), clockName), data, 0o600)
}

// observeClock moves the local clock past c, under the journal lock.
func observeClock(memDir string, c Clock) error {
	unlock, err := lockFile(filepath.Join(localDir(memDir), journalLockName))
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := loadClock(memDir)
	if err != nil {
		return err
	}
	if !cur.Less(c) {
		return nil
	}
	return saveClock(memDir, c)
}
