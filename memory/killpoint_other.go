//go:build !unix

package memory

import "os"

// killSelf ends the process at once.
func killSelf() {
	p, _ := os.FindProcess(os.Getpid())
	p.Kill()
	select {}
}
