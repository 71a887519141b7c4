package backup

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ireneo-app/ireneo/catalog"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/settings"
)

// WriteOptions tunes Write.
type WriteOptions struct {
	AppVersion string
	// Settings are the person's settings, as the configuration loaded them.
	Settings settings.Settings
	// Progress, if set, is called after each conversation file.
	Progress func(done, total int)
}

// WriteSummary says what a backup holds.
type WriteSummary struct {
	Path          string   `json:"path"`
	Conversations int      `json:"conversations"`
	Files         int      `json:"files"`
	Bytes         int64    `json:"bytes"` // the archive's size
	Tags          int      `json:"tags"`
	Stars         int      `json:"stars"`
	Tombstones    int      `json:"tombstones"`
	ScrubAllow    int      `json:"scrub_allow"`
	Settings      bool     `json:"settings"`
	Skipped       []string `json:"skipped,omitempty"` // "path: reason"
	NotIncluded   []string `json:"not_included"`
}

// Write backs memory m up to the archive at dst: the catalog and settings
// first, then each conversation file under src/, then the manifest. It
// writes a temp file beside dst and renames it into place, so dst is the
// old archive or the whole new one, never part of one. A file of a
// forgotten conversation (one a crash left behind) is not backed up.
func Write(ctx context.Context, m *memory.Memory, dst string, opts WriteOptions) (sum WriteSummary, err error) {
	sum.Path, sum.NotIncluded = dst, NotIncluded
	cat, err := catalog.Export(ctx, m)
	if err != nil {
		return sum, err
	}
	set := opts.Settings
	files, err := srcFiles(m.Dir())
	if err != nil {
		return sum, fmt.Errorf("backup: %w", err)
	}

	dir := filepath.Dir(dst)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dst)+".tmp-*") // 0600: it holds every conversation
	if err != nil {
		return sum, fmt.Errorf("backup %s: %w", dst, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	zw := zip.NewWriter(tmp)
	man := Manifest{Format: Format, Version: Version, Created: time.Now().UTC(), AppVersion: opts.AppVersion, NotIncluded: NotIncluded}
	add := func(name string, r io.Reader) error {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: man.Created})
		if err != nil {
			return err
		}
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, h), r)
		if err != nil {
			return err
		}
		man.Files = append(man.Files, FileSum{Path: name, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))})
		return nil
	}
	catJSON, err := json.Marshal(cat)
	if err != nil {
		return sum, err
	}
	setJSON, err := json.MarshalIndent(set, "", "  ")
	if err != nil {
		return sum, err
	}
	if err := add(CatalogName, bytes.NewReader(catJSON)); err != nil {
		return sum, fmt.Errorf("backup %s: %w", dst, err)
	}
	if err := add(SettingsName, bytes.NewReader(setJSON)); err != nil {
		return sum, fmt.Errorf("backup %s: %w", dst, err)
	}
	sum.Settings = true
	for i, rel := range files {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		n, skip, err := addConversationFile(ctx, m, add, rel)
		if err != nil {
			return sum, fmt.Errorf("backup %s: %w", dst, err)
		}
		if skip != "" {
			sum.Skipped = append(sum.Skipped, rel+": "+skip)
		}
		sum.Conversations += n
		if opts.Progress != nil {
			opts.Progress(i+1, len(files))
		}
	}
	man.Conversations = sum.Conversations
	manJSON, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return sum, err
	}
	w, err := zw.CreateHeader(&zip.FileHeader{Name: ManifestName, Method: zip.Deflate, Modified: man.Created})
	if err == nil {
		_, err = w.Write(manJSON)
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		return sum, fmt.Errorf("backup %s: %w", dst, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	if st, serr := os.Stat(dst); serr == nil {
		sum.Bytes = st.Size()
	}
	sum.Files = len(man.Files) - 2
	sum.Tags, sum.Stars, sum.Tombstones, sum.ScrubAllow = len(cat.Tags), len(cat.Stars), len(cat.Tombstones), len(cat.ScrubAllow)
	return sum, nil
}

// addConversationFile reads one src file, checks it parses and holds no
// forgotten conversation, and adds it. It returns how many conversations
// it holds, or why it was skipped.
func addConversationFile(ctx context.Context, m *memory.Memory, add func(string, io.Reader) error, rel string) (int, string, error) {
	data, err := os.ReadFile(filepath.Join(m.Dir(), filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, "", nil // forgotten or replaced while the backup ran
	}
	if err != nil {
		return 0, "", err
	}
	ss, _, err := funes.ReadSessions(bytes.NewReader(data))
	if err != nil {
		return 0, "not a funes jsonl file: " + err.Error(), nil
	}
	for _, s := range ss {
		gone, err := m.IsForgotten(ctx, s.Harness, s.ID)
		if err != nil {
			return 0, "", err
		}
		if gone {
			return 0, "holds a forgotten conversation", nil
		}
	}
	if len(ss) == 0 {
		return 0, "holds no conversation", nil
	}
	return len(ss), "", add(rel, bytes.NewReader(data))
}

// srcFiles lists the conversation files under dir/src as archive paths,
// sorted. Other files (an import's leftovers) are not conversations.
func srcFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, memory.SrcDir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); validEntry(rel) && rel != ManifestName && rel != CatalogName && rel != SettingsName {
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
