package capture

import (
	"os"
	"strconv"
	"syscall"
)

// Background lowers this process's CPU priority to BackgroundNice, unless it
// is lower already. Linux keeps a niceness a thread, and a new thread takes
// its creator's, so every thread the process has is set.
func Background() error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, e := range tasks {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// The raw system call gives 20 - nice.
		if p, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid); err == nil && 20-p >= BackgroundNice {
			continue
		}
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, BackgroundNice); err != nil {
			return err
		}
	}
	return nil
}
