package sync

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Files of the local side, in the memory directory's sync-state/: never in
// the sync folder, never shared.
const (
	localDirName    = "sync-state"
	configName      = "config.json"
	stateName       = "state.json"
	clockName       = "clock.json"
	journalLockName = "journal.lock"
	engineLockName  = "engine.lock"
	outboxName      = "outbox.jsonl"
	leftName        = "left.json" // the folder and machine id a memory left
	stignoreName    = ".stignore"
)

func localDir(memDir string) string { return filepath.Join(memDir, localDirName) }

// Config is this machine's part in a sync folder.
type Config struct {
	Folder  string    `json:"folder"`  // the sync folder, absolute
	Machine string    `json:"machine"` // this machine's id: its subfolder's name
	Name    string    `json:"name"`    // what the other machines call it
	Since   time.Time `json:"since"`
	// SyncthingFolder is the Syncthing folder id, when set up through it.
	SyncthingFolder string `json:"syncthing_folder,omitempty"`
}

// ErrNotSetUp is LoadConfig's answer for a memory that syncs with nothing.
var ErrNotSetUp = errors.New("sync is not set up for this memory (run `ireneo sync setup DIR`)")

// LoadConfig reads the memory's sync configuration.
func LoadConfig(memDir string) (Config, error) {
	var c Config
	p := filepath.Join(localDir(memDir), configName)
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return c, ErrNotSetUp
	}
	if err != nil {
		return c, fmt.Errorf("sync: %w", err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("sync: %s: %w (delete it and run `ireneo sync setup` again)", p, err)
	}
	if c.Folder == "" || !machineIDRe.MatchString(c.Machine) {
		return c, fmt.Errorf("sync: %s names no folder or a bad machine id (delete it and run `ireneo sync setup` again)", p)
	}
	return c, nil
}

func saveConfig(memDir string, c Config) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return funes.WriteFileAtomic(filepath.Join(localDir(memDir), configName), append(data, '\n'), 0o600)
}

// machineInfo is machines/<id>/machine.json: how other machines name this one.
type machineInfo struct {
	ID    string    `json:"id"`
	Name  string    `json:"name"`
	Since time.Time `json:"since"`
}

// SetUp makes folder this memory's sync folder, under a new machine id (or
// the one it had, when it is set up again on the same folder), and writes
// this machine's subfolder. name is what the other machines show; "" is
// the host name. It does not import or export anything: the engine's
// first pass does.
func SetUp(memDir, folder, name string) (Config, error) {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return Config{}, fmt.Errorf("sync folder %s: %w", folder, err)
	}
	folder = filepath.Clean(abs)
	memAbs, err := filepath.Abs(memDir)
	if err != nil {
		return Config{}, err
	}
	if within(folder, memAbs) || within(memAbs, folder) {
		return Config{}, fmt.Errorf("sync folder %s and the memory %s must not hold one another: the memory's database must never be synced", folder, memAbs)
	}
	if st, err := os.Stat(folder); err == nil && !st.IsDir() {
		return Config{}, fmt.Errorf("sync folder %s is a file", folder)
	}
	if err := os.MkdirAll(folder, 0o700); err != nil {
		return Config{}, fmt.Errorf("sync folder %s: %w", folder, err)
	}
	if name = strings.TrimSpace(name); name == "" {
		name, _ = os.Hostname()
	}
	if len(name) > 100 {
		name = name[:100]
	}
	c, err := LoadConfig(memDir)
	switch {
	case errors.Is(err, ErrNotSetUp):
		b := make([]byte, 8)
		rand.Read(b)
		c = Config{Folder: folder, Machine: hex.EncodeToString(b), Since: time.Now().UTC()}
		// Back on a folder this memory left: the same machine again, with
		// the subfolder it left there.
		if data, err := os.ReadFile(filepath.Join(localDir(memDir), leftName)); err == nil {
			var was Config
			if json.Unmarshal(data, &was) == nil && was.Folder == folder && machineIDRe.MatchString(was.Machine) {
				c.Machine, c.Since = was.Machine, was.Since
			}
		}
	case err != nil:
		return Config{}, err
	case c.Folder != folder:
		return Config{}, fmt.Errorf("this memory already syncs through %s; run `ireneo sync leave` first", c.Folder)
	}
	c.Name = name
	os.Remove(filepath.Join(localDir(memDir), leftName))
	if err := os.MkdirAll(localDir(memDir), 0o700); err != nil {
		return Config{}, err
	}
	if err := writeMachineInfo(c); err != nil {
		return Config{}, err
	}
	if err := addIgnore(folder); err != nil {
		return Config{}, err
	}
	return c, saveConfig(memDir, c)
}

func writeMachineInfo(c Config) error {
	data, err := json.MarshalIndent(machineInfo{ID: c.Machine, Name: c.Name, Since: c.Since}, "", "  ")
	if err != nil {
		return err
	}
	dir := machineDir(c.Folder, c.Machine)
	if err := os.MkdirAll(filepath.Join(dir, conversationsDir), 0o700); err != nil {
		return fmt.Errorf("sync folder: %w", err)
	}
	return writeAtomic(filepath.Join(dir, machineInfoName), append(data, '\n'))
}

// ignoreLine keeps Syncthing from sending our files before they are whole
// (it does not send .stignore itself: each machine keeps its own).
const ignoreLine = "(?d)" + ourTempPrefix + "*"

// addIgnore adds ignoreLine to the folder's .stignore, keeping what the
// person has there.
func addIgnore(folder string) error {
	p := filepath.Join(folder, stignoreName)
	data, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == ignoreLine {
			return nil
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	data = append(data, "// Ireneo's files being written\n"+ignoreLine+"\n"...)
	return funes.WriteFileAtomic(p, data, 0o644)
}

// within says whether p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Leave stops this memory's syncing: its configuration and local state go
// (a later SetUp on the same folder comes back as the same machine).
// The memory keeps every conversation and choice it has. With removeFiles
// this machine's subfolder goes too, so the other machines stop getting
// its conversations from the folder (they keep what they imported, and
// share it themselves from then on).
func Leave(memDir string, removeFiles bool) (Config, error) {
	c, err := LoadConfig(memDir)
	if err != nil {
		return c, err
	}
	unlock, ok, err := tryLockFile(filepath.Join(localDir(memDir), engineLockName))
	if err != nil {
		return c, err
	}
	if !ok {
		return c, errors.New("sync is running in another Ireneo (the tray app, `serve` or `sync run`); quit it first")
	}
	defer unlock()
	if removeFiles {
		if err := os.RemoveAll(machineDir(c.Folder, c.Machine)); err != nil {
			return c, fmt.Errorf("remove this machine's subfolder: %w", err)
		}
	} else if data, err := json.Marshal(c); err == nil {
		funes.WriteFileAtomic(filepath.Join(localDir(memDir), leftName), data, 0o600)
	}
	for _, n := range []string{configName, stateName, outboxName, journalLockName} {
		if err := os.Remove(filepath.Join(localDir(memDir), n)); err != nil && !os.IsNotExist(err) {
			return c, err
		}
	}
	return c, nil
}
