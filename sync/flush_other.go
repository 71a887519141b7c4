//go:build !linux

package sync

// flushFiles makes files durable before they are renamed in place.
func flushFiles(files []string) error { return flushEach(files) }
