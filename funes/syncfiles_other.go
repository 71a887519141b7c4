//go:build !linux

package funes

// SyncFiles makes files written under dir durable before they are renamed
// into place: an fsync each.
func SyncFiles(dir string, files []string) error { return SyncEach(files) }
