//go:build unix && !linux

package capture

import "syscall"

// Background lowers this process's CPU priority to BackgroundNice, unless it
// is lower already.
func Background() error {
	if p, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0); err == nil && p >= BackgroundNice {
		return nil
	}
	return syscall.Setpriority(syscall.PRIO_PROCESS, 0, BackgroundNice)
}
