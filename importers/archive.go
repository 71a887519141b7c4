package importers

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync/atomic"
)

// Limits on what Ireneo decompresses from one archive. They are variables
// so tests can lower them.
var (
	// maxArchiveBytes caps the total uncompressed size of the entries read.
	maxArchiveBytes int64 = 16 << 30
	// maxArchiveRatio caps one entry's uncompressed/compressed size. Real
	// JSON compresses 5–30×; a zip bomb, 1000× and more.
	maxArchiveRatio int64 = 250
	// ratioFloor: entries smaller than this are not ratio-checked (tiny
	// files of repeated bytes compress absurdly well, harmlessly).
	ratioFloor int64 = 1 << 20
	// maxArchiveEntries caps the entries of one archive. A large ChatGPT
	// export, images and all, holds a few thousand.
	maxArchiveEntries = 100_000
)

// zipOpens counts archive opens, so a test can tell that an archive's
// directory is read once per import, not once per entry.
var zipOpens atomic.Int64

var zipMagic = []string{"PK\x03\x04", "PK\x05\x06"}

// errArchive is a reason to refuse a whole archive.
type errArchive struct{ msg string }

func (e *errArchive) Error() string { return e.msg }

// openZip opens an archive and checks every entry before anything is read
// from it: a path that escapes (zip-slip), a symbolic link, or sizes that
// say zip bomb refuse the whole archive, since none of these occur in a
// genuine export.
func openZip(name string) (*zip.ReadCloser, error) {
	zipOpens.Add(1)
	zr, err := zip.OpenReader(name)
	if errors.Is(err, zip.ErrInsecurePath) {
		if zr != nil {
			zr.Close()
		}
		return nil, &errArchive{"an entry's path leaves the archive (zip-slip); refusing the whole archive"}
	}
	if err != nil {
		return nil, &errArchive{fmt.Sprintf("corrupt or truncated zip: %v", err)}
	}
	if err := checkZip(&zr.Reader); err != nil {
		zr.Close()
		return nil, err
	}
	return zr, nil
}

func checkZip(zr *zip.Reader) error {
	if len(zr.File) > maxArchiveEntries {
		return &errArchive{fmt.Sprintf("%d entries, more than the %d Ireneo reads; refusing the archive", len(zr.File), maxArchiveEntries)}
	}
	var total uint64
	for _, f := range zr.File {
		if unsafeEntryName(f.Name) {
			return &errArchive{fmt.Sprintf("entry %q: its path leaves the archive (zip-slip); refusing the whole archive", f.Name)}
		}
		if f.Mode()&os.ModeSymlink != 0 {
			return &errArchive{fmt.Sprintf("entry %q is a symbolic link; refusing the whole archive", f.Name)}
		}
		if !worthReading(f) {
			continue
		}
		total += f.UncompressedSize64
		if total > uint64(maxArchiveBytes) {
			return &errArchive{fmt.Sprintf("would expand to more than %s; refusing a likely zip bomb", humanBytes(maxArchiveBytes))}
		}
		if f.UncompressedSize64 > uint64(ratioFloor) &&
			f.UncompressedSize64/max(f.CompressedSize64, 1) > uint64(maxArchiveRatio) {
			return &errArchive{fmt.Sprintf("entry %q would expand %d× (%s from %s), more than the %d× limit; refusing a likely zip bomb",
				f.Name, f.UncompressedSize64/max(f.CompressedSize64, 1), humanBytes(int64(f.UncompressedSize64)),
				humanBytes(int64(f.CompressedSize64)), maxArchiveRatio)}
		}
	}
	return nil
}

// unsafeEntryName reports a path that is absolute, names a drive, or
// climbs out with "..", in either slash direction.
func unsafeEntryName(name string) bool {
	n := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(n, "/") || strings.ContainsRune(n, 0) || (len(n) >= 2 && n[1] == ':') {
		return true
	}
	for _, el := range strings.Split(n, "/") {
		if el == ".." {
			return true
		}
	}
	return false
}

// skipExts are entries never worth sniffing: media and documents in an
// export's attachments.
var skipExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".heic": true, ".svg": true,
	".mp3": true, ".mp4": true, ".wav": true, ".m4a": true, ".webm": true, ".ogg": true, ".mov": true,
	".pdf": true, ".docx": true, ".xlsx": true, ".pptx": true, ".zip": true, ".html": true, ".htm": true,
	".index": true, ".zst": true, ".gz": true,
}

// worthReading reports whether an archive entry might hold conversations.
func worthReading(f *zip.File) bool {
	if f.FileInfo().IsDir() || !f.Mode().IsRegular() || f.UncompressedSize64 == 0 {
		return false
	}
	n := strings.ReplaceAll(f.Name, `\`, "/")
	if strings.HasPrefix(n, "__MACOSX/") || strings.HasPrefix(path.Base(n), "._") {
		return false
	}
	return !skipExts[strings.ToLower(path.Ext(n))]
}

// zipEntry is an open archive entry; closing it closes the archive too
// when the entry owns it.
type zipEntry struct {
	io.Reader
	rc io.ReadCloser
	zr *zip.ReadCloser // nil when the archive is shared
}

func (z *zipEntry) Close() error {
	z.rc.Close()
	if z.zr != nil {
		return z.zr.Close()
	}
	return nil
}

// openZipEntry opens one entry of an archive for reading, capped at its
// declared size (archive/zip enforces it) and at maxArchiveBytes.
func openZipEntry(archive, entry string) (io.ReadCloser, error) {
	za, err := openArchive(archive)
	if err != nil {
		return nil, err
	}
	rc, err := za.open(entry)
	if err != nil {
		za.Close()
		return nil, err
	}
	rc.(*zipEntry).zr = za.zr
	return rc, nil
}

// archive is a zip opened and checked once, its directory read once, for
// reading many of its entries: reopening it per entry would read the whole
// directory again each time, quadratic in the number of entries.
type archive struct {
	zr    *zip.ReadCloser
	files map[string]*zip.File
}

func openArchive(name string) (*archive, error) {
	zr, err := openZip(name)
	if err != nil {
		return nil, err
	}
	a := &archive{zr: zr, files: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		if _, dup := a.files[f.Name]; !dup {
			a.files[f.Name] = f
		}
	}
	return a, nil
}

func (a *archive) Close() error { return a.zr.Close() }

// open opens one entry; closing it leaves the archive open.
func (a *archive) open(entry string) (io.ReadCloser, error) {
	f := a.files[entry]
	if f == nil {
		return nil, fmt.Errorf("%s: no such entry", entry)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", entry, err)
	}
	return &zipEntry{Reader: &capped{r: rc, left: maxArchiveBytes}, rc: rc}, nil
}

// capped fails a read past its budget instead of silently stopping, so a
// lying archive is an error, not a truncated import.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, &errArchive{fmt.Sprintf("expands past %s; refusing a likely zip bomb", humanBytes(maxArchiveBytes))}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, fmt.Errorf("corrupt zip data: %w", err)
	}
	return n, err
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
