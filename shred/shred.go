// Package shred overwrites a file's bytes with zeros before it goes, so
// what it held is not left in the blocks it had on file systems that write
// in place: forget's and scrub's old files, sync's shared copies, restore's
// staging. A leaf.
package shred

import (
	"io"
	"os"
)

// Zero overwrites the file at path with zeros, in place, and fsyncs it.
func Zero(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err == nil {
		_, err = io.CopyN(f, zeros{}, st.Size())
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// File zeroes the file at path, then removes it. A file that cannot be
// zeroed is left in place, with the error.
func File(path string) error {
	if err := Zero(path); err != nil {
		return err
	}
	return os.Remove(path)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
