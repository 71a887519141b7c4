//go:build !unix

package gui

import "errors"

// lockFile is not available here: every start runs its own window.
func lockFile(string) (func(), error) { return nil, errors.New("no file locks on this platform") }
