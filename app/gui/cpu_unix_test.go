//go:build unix

package gui

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, user plus system: on a
// busy machine it measures work where wall time measures the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
