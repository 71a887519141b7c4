package sync

import "os"

// flushEach fsyncs each file.
func flushEach(files []string) error {
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
