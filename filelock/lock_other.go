//go:build !unix && !windows

package filelock

import "os"

func lock(*os.File, bool) (bool, error) { return false, ErrUnsupported }

func held(*os.File) bool { return false }
