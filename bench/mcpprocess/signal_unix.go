//go:build unix

package mcpprocess

import "syscall"

// interrupt stops serve as Ctrl-C would.
var interrupt = syscall.SIGINT
