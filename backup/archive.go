// Package backup owns Ireneo's backup archive: one zip holding a memory's
// conversations (src/, verbatim), its catalog (tags, stars, tombstones,
// scrub allow-list and history: package catalog's Snapshot, which that
// package exports and imports) and the settings, with a manifest that
// lists every file's size and sha256. Token secrets, the audit log and the
// search index are not in it: secrets stay in the OS keyring, and a restore
// rebuilds the index from src/.
//
// Write makes an archive atomically. Open checks all of one (every entry,
// every checksum, every conversation file) before a restore changes
// anything, so a damaged archive is refused and changes nothing.
package backup

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"
)

// Format and Version name the archive format in its manifest.
const (
	Format  = "ireneo-backup"
	Version = 1
)

// Names of the archive's fixed entries.
const (
	ManifestName = "manifest.json"
	CatalogName  = "catalog.json"
	SettingsName = "settings.json"
)

// NotIncluded is what a backup leaves out, said in every manifest and
// summary so nobody expects it there.
var NotIncluded = []string{
	"token secrets (they stay in the OS keyring; make new tokens with `ireneo token create` after a restore)",
	"token names and the MCP audit log",
	"the search index (a restore rebuilds it from src/)",
	"forgotten conversations (only their tombstones travel)",
}

// Manifest is the archive's table of contents.
type Manifest struct {
	Format        string    `json:"format"`
	Version       int       `json:"version"`
	Created       time.Time `json:"created"`
	AppVersion    string    `json:"app_version,omitempty"`
	Conversations int       `json:"conversations"`
	Files         []FileSum `json:"files"`
	NotIncluded   []string  `json:"not_included"`
}

// FileSum is one entry of the archive, its size and its sha256 in hex.
type FileSum struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// ErrDamaged marks an archive that is not a whole, valid Ireneo backup:
// truncated, corrupted, edited or not a backup at all.
var ErrDamaged = errors.New("damaged or not an Ireneo backup")

// ErrNotEmpty is returned by Restore when the memory already holds
// conversations; Merge adds an archive to such a memory.
var ErrNotEmpty = errors.New("the memory is not empty")

func damaged(archive, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", archive, ErrDamaged, fmt.Sprintf(format, args...))
}

// srcName is what a conversation file's path may be in an archive:
// src/<harness>/<name>.funes.jsonl, as memory writes them: two plain
// names, neither hidden nor holding a separator or a control character.
var srcName = regexp.MustCompile(`^src/[^/\\\x00-\x1f.][^/\\\x00-\x1f]{0,254}/[^/\\\x00-\x1f.][^/\\\x00-\x1f]{0,240}\.funes\.jsonl$`)

// validEntry says whether name may appear in an archive.
func validEntry(name string) bool {
	switch name {
	case ManifestName, CatalogName, SettingsName:
		return true
	}
	return srcName.MatchString(name) && path.Clean(name) == name && !strings.Contains(name, "..")
}

// Limits that keep a crafted archive from exhausting memory or disk.
const (
	maxManifest = 64 << 20
	maxCatalog  = 512 << 20
	maxSettings = 1 << 20
	maxFile     = 4 << 30
	maxEntries  = 2_000_000
)
