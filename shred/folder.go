package shred

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Tree zeroes every regular file under dir, then removes dir.
func Tree(dir string) error {
	var errs []error
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if err := File(p); err != nil && !os.IsNotExist(err) {
				errs = append(errs, err)
			}
		}
		return nil
	})
	return errors.Join(append(errs, os.RemoveAll(dir))...)
}

// Folder deletes a staging folder: every file in it and under it zeroed
// first, the file named last (its lock, which holds no text) removed after
// them, so the folder reads as live until the others are gone.
func Folder(dir, last string) error {
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var errs []error
	for _, e := range ents {
		if e.Name() == last {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			errs = append(errs, Tree(p))
			continue
		}
		if err := File(p); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	}
	os.Remove(filepath.Join(dir, last))
	if err := os.Remove(dir); err != nil && !os.IsNotExist(err) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
