// Package diskproblem says why a memory's files cannot be written: at 0
// bytes free, on a read-only file system or without permission, SQLite
// says only "disk I/O error (4874)" or "attempt to write a readonly
// database", and the system a bare errno. Explain probes the folder and
// names the problem, the folder and what to do. A leaf.
package diskproblem

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Disk problems, as errors.Is matches them.
var (
	ErrDiskFull   = errors.New("the disk is full")
	ErrReadOnly   = errors.New("the memory is on a read-only file system")
	ErrPermission = errors.New("permission denied")
)

// Error is a failure on the memory's files whose cause was found: Problem
// is one of ErrDiskFull, ErrReadOnly or ErrPermission.
type Error struct {
	Dir     string // the memory directory
	Path    string // the file or folder that could not be written
	Problem error
	Free    int64 // bytes free, for ErrDiskFull (-1 unknown)
	Err     error // SQLite's or the system's own error
}

func (e *Error) Error() string {
	var what string
	switch e.Problem {
	case ErrDiskFull:
		what = fmt.Sprintf("the disk holding %s is full", e.Dir)
		if e.Free >= 0 {
			what += fmt.Sprintf(" (%s free)", ByteCount(e.Free))
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
func (e *Error) Unwrap() []error { return []error{e.Problem, e.Err} }

// Explain returns err explained when it is a failure to write or open the
// files of the memory folder dir (files: the database's, each tried for
// writing) and the cause can be found on disk; otherwise err as it is.
func Explain(dir string, files []string, err error) error {
	var de *Error
	if err == nil || errors.As(err, &de) || !diskClass(err) {
		return err
	}
	if p := probe(dir, files); p != nil {
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

// probe looks for why the memory's files cannot be written: it opens each
// of files that exists for writing, then writes a small file in dir.
func probe(dir string, files []string) *Error {
	classify := func(path string, err error) *Error {
		switch {
		case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
			return &Error{Dir: dir, Path: path, Problem: ErrDiskFull, Free: freeBytes(dir)}
		case errors.Is(err, syscall.EROFS):
			return &Error{Dir: dir, Path: path, Problem: ErrReadOnly, Free: -1}
		case errors.Is(err, fs.ErrPermission):
			return &Error{Dir: dir, Path: path, Problem: ErrPermission, Free: -1}
		}
		return nil
	}
	for _, p := range files {
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
		return &Error{Dir: dir, Path: dir, Problem: ErrDiskFull, Free: 0}
	}
	return nil
}

// ByteCount is n in the largest unit that keeps it above 1.
func ByteCount(n int64) string {
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
