//go:build !unix

package capture

// Background does nothing here: the hook works in its own process, in the
// foreground (CanDetach).
func Background() error { return nil }
