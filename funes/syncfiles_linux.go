package funes

import (
	"os"

	sysunix "golang.org/x/sys/unix"
)

// SyncFiles makes files written under dir durable before they are renamed
// into place. On Linux one syncfs flushes them all, which is far cheaper
// than an fsync per file when an import writes thousands of conversations;
// where syncfs fails it fsyncs each.
func SyncFiles(dir string, files []string) error {
	if len(files) == 0 {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := sysunix.Syncfs(int(d.Fd())); err != nil {
		return SyncEach(files)
	}
	return nil
}
