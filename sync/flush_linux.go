package sync

import (
	"os"
	"path/filepath"

	sysunix "golang.org/x/sys/unix"
)

// flushFiles makes files durable before they are renamed in place: on
// Linux one syncfs flushes them all.
func flushFiles(files []string) error {
	if len(files) == 0 {
		return nil
	}
	d, err := os.Open(filepath.Dir(files[0]))
	if err != nil {
		return err
	}
	defer d.Close()
	if sysunix.Syncfs(int(d.Fd())) != nil {
		return flushEach(files)
	}
	return nil
}
