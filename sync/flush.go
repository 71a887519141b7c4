package sync

import (
	"path/filepath"

	"github.com/ireneo-app/ireneo/funes"
)

// flushFiles makes files durable before they are renamed in place (one
// syncfs on Linux for the folder of the first).
func flushFiles(files []string) error {
	if len(files) == 0 {
		return nil
	}
	return funes.SyncFiles(filepath.Dir(files[0]), files)
}
