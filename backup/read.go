package backup

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"sort"

	"github.com/ireneo-app/ireneo/catalog"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/settings"
)

// Archive is a backup that Open has checked from end to end.
type Archive struct {
	Path     string
	Manifest Manifest
	Catalog  catalog.Snapshot
	Settings settings.Settings

	f       *os.File
	entries map[string]*zip.File
	sums    map[string]FileSum
	src     []string                 // conversation files, in manifest order
	convs   map[string][]catalog.Ref // the conversations in each file
}

// Open reads the archive at path and checks all of it: it is a zip, its
// manifest is ours, it holds exactly the files the manifest lists, each of
// the size and sha256 listed, the catalog and settings parse, and every
// conversation file is funes jsonl. Anything wrong is one ErrDamaged error
// naming the archive and the problem; nothing is changed anywhere.
func Open(ctx context.Context, path string) (*Archive, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open backup: %w", err)
	}
	a, err := read(ctx, f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	a.f = f
	return a, nil
}

// Close closes the archive file.
func (a *Archive) Close() error {
	if a.f == nil {
		return nil
	}
	return a.f.Close()
}

// Conversations is how many conversations the archive holds.
func (a *Archive) Conversations() int { return a.Manifest.Conversations }

// Files lists the archive's conversation files.
func (a *Archive) Files() []string { return append([]string(nil), a.src...) }

type readerAtSizer interface {
	io.ReaderAt
	Stat() (os.FileInfo, error)
}

func read(ctx context.Context, r readerAtSizer, name string) (*Archive, error) {
	st, err := r.Stat()
	if err != nil {
		return nil, fmt.Errorf("open backup %s: %w", name, err)
	}
	return readAt(ctx, r, st.Size(), name)
}

// readAt is Open's check on any ReaderAt, so the fuzz target can feed it
// bytes.
func readAt(ctx context.Context, r io.ReaderAt, size int64, name string) (*Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, damaged(name, "not a zip archive, or cut short (%v)", err)
	}
	if len(zr.File) > maxEntries {
		return nil, damaged(name, "%d entries, more than a backup can hold", len(zr.File))
	}
	a := &Archive{Path: name, entries: map[string]*zip.File{}, sums: map[string]FileSum{}, convs: map[string][]catalog.Ref{}}
	for _, f := range zr.File {
		if !validEntry(f.Name) {
			return nil, damaged(name, "unexpected entry %q", f.Name)
		}
		if _, dup := a.entries[f.Name]; dup {
			return nil, damaged(name, "entry %q appears twice", f.Name)
		}
		a.entries[f.Name] = f
	}
	mf := a.entries[ManifestName]
	if mf == nil {
		return nil, damaged(name, "no %s", ManifestName)
	}
	manJSON, err := readAll(mf, maxManifest)
	if err != nil {
		return nil, damaged(name, "%s: %v", ManifestName, err)
	}
	if err := json.Unmarshal(manJSON, &a.Manifest); err != nil {
		return nil, damaged(name, "%s is not valid JSON: %v", ManifestName, err)
	}
	man := a.Manifest
	if man.Format != Format {
		return nil, damaged(name, "%s does not say it is an %s", ManifestName, Format)
	}
	if man.Version != Version {
		return nil, damaged(name, "format version %d; this Ireneo reads version %d (a newer Ireneo made it?)", man.Version, Version)
	}
	for _, fs := range man.Files {
		if fs.Path == ManifestName || !validEntry(fs.Path) {
			return nil, damaged(name, "the manifest lists %q", fs.Path)
		}
		if _, dup := a.sums[fs.Path]; dup {
			return nil, damaged(name, "the manifest lists %q twice", fs.Path)
		}
		if a.entries[fs.Path] == nil {
			return nil, damaged(name, "%s is listed but missing", fs.Path)
		}
		if fs.Size < 0 || fs.Size > maxFile {
			return nil, damaged(name, "%s: size %d out of range", fs.Path, fs.Size)
		}
		a.sums[fs.Path] = fs
		if fs.Path != CatalogName && fs.Path != SettingsName {
			a.src = append(a.src, fs.Path)
		}
	}
	for n := range a.entries {
		if _, ok := a.sums[n]; !ok && n != ManifestName {
			return nil, damaged(name, "%s is not in the manifest", n)
		}
	}
	if _, ok := a.sums[CatalogName]; !ok {
		return nil, damaged(name, "no %s", CatalogName)
	}

	catJSON, err := a.readChecked(CatalogName, maxCatalog)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(catJSON, &a.Catalog); err != nil {
		return nil, damaged(name, "%s is not valid JSON: %v", CatalogName, err)
	}
	if err := a.Catalog.Validate(); err != nil {
		return nil, damaged(name, "%s: %v", CatalogName, err)
	}
	a.Settings = settings.Default()
	if _, ok := a.sums[SettingsName]; ok {
		setJSON, err := a.readChecked(SettingsName, maxSettings)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(setJSON, &a.Settings); err != nil {
			return nil, damaged(name, "%s is not valid settings: %v", SettingsName, err)
		}
	}
	convs := 0
	for _, p := range a.src {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := a.checkConversations(p)
		if err != nil {
			return nil, err
		}
		convs += n
	}
	if convs != man.Conversations {
		return nil, damaged(name, "holds %d conversations; the manifest says %d", convs, man.Conversations)
	}
	sort.Strings(a.src)
	return a, nil
}

// readAll reads a small entry whole, refusing one bigger than limit.
func readAll(f *zip.File, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, nil
}

// readChecked reads a small listed entry and checks its size and sha256.
func (a *Archive) readChecked(entry string, limit int64) ([]byte, error) {
	data, err := readAll(a.entries[entry], limit)
	if err != nil {
		return nil, damaged(a.Path, "%s: %v", entry, err)
	}
	if err := a.sums[entry].check(int64(len(data)), sha256Hex(data)); err != nil {
		return nil, damaged(a.Path, "%s: %v", entry, err)
	}
	return data, nil
}

func (fs FileSum) check(size int64, sum string) error {
	if size != fs.Size {
		return fmt.Errorf("%d bytes where the manifest says %d", size, fs.Size)
	}
	if sum != fs.SHA256 {
		return errors.New("checksum does not match the manifest")
	}
	return nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// checkConversations streams one conversation file through its checksum
// and the funes jsonl reader, and returns how many conversations it holds.
func (a *Archive) checkConversations(entry string) (int, error) {
	rc, err := a.open(entry)
	if err != nil {
		return 0, err
	}
	ss, _, rerr := funes.ReadSessions(rc)
	_, err = io.Copy(io.Discard, rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	if rerr != nil || len(ss) == 0 {
		return 0, damaged(a.Path, "%s is not a funes jsonl conversation", entry)
	}
	for _, s := range ss {
		a.convs[entry] = append(a.convs[entry], catalog.Ref{Source: s.Harness, SessionID: s.ID})
	}
	return len(ss), nil
}

// open opens a listed entry for a stream read whose Close (or a Read at
// the end) fails with ErrDamaged if its size or checksum is not the
// manifest's.
func (a *Archive) open(entry string) (*checkedReader, error) {
	rc, err := a.entries[entry].Open()
	if err != nil {
		return nil, damaged(a.Path, "%s: %v", entry, err)
	}
	return &checkedReader{a: a, entry: entry, rc: rc, h: sha256.New(), want: a.sums[entry]}, nil
}

type checkedReader struct {
	a     *Archive
	entry string
	rc    io.ReadCloser
	h     hash.Hash
	n     int64
	want  FileSum
	done  bool
	err   error
}

func (c *checkedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.n+int64(len(p)) > c.want.Size+1 {
		p = p[:max(0, c.want.Size+1-c.n)]
		if len(p) == 0 {
			c.err = damaged(c.a.Path, "%s: longer than the manifest says", c.entry)
			return 0, c.err
		}
	}
	n, err := c.rc.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if err == io.EOF {
		c.done = true
		if cerr := c.want.check(c.n, hex.EncodeToString(c.h.Sum(nil))); cerr != nil {
			c.err = damaged(c.a.Path, "%s: %v", c.entry, cerr)
			return n, c.err
		}
		return n, io.EOF
	}
	if err != nil {
		c.err = damaged(c.a.Path, "%s: %v", c.entry, err)
		return n, c.err
	}
	return n, nil
}

// Close fails if the entry was not read to its end and checked.
func (c *checkedReader) Close() error {
	c.rc.Close()
	if c.err != nil {
		return c.err
	}
	if !c.done {
		return damaged(c.a.Path, "%s: not read to its end", c.entry)
	}
	return nil
}
