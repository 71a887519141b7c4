//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time so far: less swayed
// by other processes on a shared machine than wall time (it includes the
// collector's work, which a recall's garbage causes).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
