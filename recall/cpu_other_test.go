//go:build !unix

package recall

import "time"

// cpuTime is unknown here; the benchmarks then report wall time only.
func cpuTime() time.Duration { return 0 }
