package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// At 0 bytes free, on a read-only file system or without permission,
// SQLite says only "disk I/O error (4874)" (it could not make the -shm
// file) or "attempt to write a readonly database". These say what is wrong.

// Disk problems, as errors.Is matches them.
var (
	ErrDiskFull   = errors.New("the disk is full")
	ErrReadOnly   = errors.New("the memory is on a read-only file system")
	ErrPermission = errors.New("permission denied")
)

// DiskError is a failure on the memory's files whose cause was found:
// Problem is one of ErrDiskFull, ErrReadOnly or ErrPermission.
type DiskError struct {
	Dir     string // the memory directory
	Path    string // the file or folder that could not be written
	Problem error
	Free    int64 // bytes free, for ErrDiskFull (-1 unknown)
	Err     error // SQLite's or the system's own error
}

func (e *DiskError) Error() string {
	var what string
	switch e.Problem {
	case ErrDiskFull:
		what = fmt.Sprintf("the disk holding %s is full", e.Dir)
		if e.Free >= 0 {
			what += fmt.Sprintf(" (%s free)", byteCount(e.Free))
		}
		what += ": free some space and try again"
	case ErrReadOnly:
		what = fmt.Sprintf("%s is on a read-only file system: Ireneo needs to write its database there even to read it; remount it read-write, or copy the memory to a writable folder and use --memory", e.Dir)
	default:
		what = fmt.Sprintf("permission denied writing %s: Ireneo needs to write the memory's files even to read them; check who owns %s", e.Path, e.Dir)
	}
	if e.Err != nil {
		what += " (" + e.Err.Error() + ")"
	}
	return what
}

// Unwrap gives both the problem and the error it explains.
func (e *DiskError) Unwrap() []error { return []error{e.Problem, e.Err} }

// explainDisk returns err explained when it is a failure to write or
// open the memory's files and the cause can be found on disk; otherwise
// err as it is.
func explainDisk(dir string, err error) error {
	var de *DiskError
	if err == nil || errors.As(err, &de) || !diskClass(err) {
		return err
	}
	if p := diskProblem(dir); p != nil {
		p.Err = err
		return p
	}
	return err
}

// diskClass says whether err is one SQLite or the system gives when the
// memory's files cannot be written: I/O, full, read-only, cannot open,
// permission.
func diskClass(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
			return true
		}
		return false
	}
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

// diskProblem looks for why the memory's files cannot be written: it
// tries to write a small file in the memory directory (and the database
// file, if there is one, for writing).
func diskProblem(dir string) *DiskError {
	classify := func(path string, err error) *DiskError {
		switch {
		case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
			return &DiskError{Dir: dir, Path: path, Problem: ErrDiskFull, Free: freeBytes(dir)}
		case errors.Is(err, syscall.EROFS):
			return &DiskError{Dir: dir, Path: path, Problem: ErrReadOnly, Free: -1}
		case errors.Is(err, fs.ErrPermission):
			return &DiskError{Dir: dir, Path: path, Problem: ErrPermission, Free: -1}
		}
		return nil
	}
	for _, p := range []string{filepath.Join(dir, DBName), filepath.Join(dir, DBName+"-wal"), filepath.Join(dir, DBName+"-shm")} {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err == nil {
			f.Close()
			continue
		}
		if d := classify(p, err); d != nil {
			return d
		}
	}
	f, err := os.CreateTemp(dir, ".write-probe-*")
	if err != nil {
		return classify(dir, err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	// SQLite's -shm file is 32 KiB: the first thing an open writes.
	if _, err := f.Write(make([]byte, 32<<10)); err != nil {
		return classify(dir, err)
	}
	if err := f.Sync(); err != nil {
		return classify(dir, err)
	}
	if free := freeBytes(dir); free == 0 {
		return &DiskError{Dir: dir, Path: dir, Problem: ErrDiskFull, Free: 0}
	}
	return nil
}

// byteCount is n in the largest unit that keeps it above 1.
func byteCount(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
