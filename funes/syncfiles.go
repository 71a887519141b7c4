package funes

import "os"

// SyncEach fsyncs each file.
func SyncEach(files []string) error {
	for _, p := range files {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
