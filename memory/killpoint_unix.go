//go:build unix

package memory

import "syscall"

// killSelf sends the process SIGKILL: no deferred call, no flush.
func killSelf() {
	syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}
