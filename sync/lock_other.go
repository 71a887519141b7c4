//go:build !unix && !windows

package sync

import "errors"

var errNoLocks = errors.New("sync needs file locks, which this platform does not have")

func lockFile(string) (func(), error) { return nil, errNoLocks }

func tryLockFile(string) (func(), bool, error) { return nil, false, errNoLocks }
