//go:build !linux

package memory

// syncFiles makes files durable before they are renamed into place.
func syncFiles(dir string, files []string) error { return syncEach(files) }
