//go:build !unix

package mcpserver

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
