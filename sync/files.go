package sync

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	shredpkg "github.com/ireneo-app/ireneo/shred"
)

// Files in the sync folder are written whole and renamed in place, so the
// sync engine never sends half of one: the temporary name is one setup
// told Syncthing to ignore (.stignore).

// tempPath is a new temporary file's name beside path.
func tempPath(path string) string {
	b := make([]byte, 6)
	rand.Read(b)
	return filepath.Join(filepath.Dir(path), ourTempPrefix+hex.EncodeToString(b))
}

// writeAtomic writes data to path through a temporary file, fsynced, and
// renames it in place.
func writeAtomic(path string, data []byte) error {
	return writeMany([]fileWrite{{path, data}})
}

// fileWrite is one file to write.
type fileWrite struct {
	path string
	data []byte
}

// writeMany writes files as writeAtomic does, with one flush for all of
// them where the system has one (syncfs), not one per file: a first export
// writes thousands.
func writeMany(ws []fileWrite) error {
	tmps := make([]string, 0, len(ws))
	defer func() {
		for _, t := range tmps {
			os.Remove(t) // those not renamed in place
		}
	}()
	dirs := map[string]bool{}
	for _, w := range ws {
		dir := filepath.Dir(w.path)
		if !dirs[dir] {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return err
			}
			dirs[dir] = true
		}
		t := tempPath(w.path)
		if err := os.WriteFile(t, w.data, 0o600); err != nil {
			os.Remove(t)
			return fmt.Errorf("write %s: %w", w.path, err)
		}
		tmps = append(tmps, t)
	}
	if err := flushFiles(tmps); err != nil {
		return err
	}
	for i, w := range ws {
		if err := os.Rename(tmps[i], w.path); err != nil {
			return fmt.Errorf("write %s: %w", w.path, err)
		}
		tmps[i] = ""
	}
	for d := range dirs {
		if f, err := os.Open(d); err == nil {
			f.Sync()
			f.Close()
		}
	}
	return nil
}

// shred overwrites a file with zeros and removes it, so its text is not
// left in the blocks it had (as memory's forget does its own files).
func shred(path string) error {
	if err := zero(path); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		os.Remove(path)
		return err
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// zero overwrites a file's bytes with zeros, in place.
var zero = shredpkg.Zero

// replaceErasing writes data over path as writeAtomic does, and zeroes the
// old file's bytes first: a redacted copy must not leave the secret in the
// old file's blocks.
func replaceErasing(path string, data []byte) error {
	t := tempPath(path)
	if err := os.WriteFile(t, data, 0o600); err != nil {
		os.Remove(t)
		return err
	}
	if err := flushFiles([]string{t}); err != nil {
		os.Remove(t)
		return err
	}
	if err := zero(path); err != nil && !os.IsNotExist(err) {
		os.Remove(t)
		return err
	}
	if err := os.Rename(t, path); err != nil {
		os.Remove(t)
		return err
	}
	return nil
}
