package memory

import (
	"os"
	"sync"
)

// EnvKillAt names a step at which the process kills itself with SIGKILL
// (on Windows, ends at once), for tests of what the next open finishes:
// forget-journaled, forget-quotes-committed (a quoting conversation
// rewritten, its old file not yet overwritten), forget-quotes,
// forget-committed, forget-shredded,
// forget-erased, scrub-journaled (its rows in, nothing changed),
// scrub-linked (old files linked into its job's folder), commit-tx (an
// import's or a scrub's transaction in, its files not yet in place),
// scrub-committed, scrub-shredded (old bytes overwritten, the database not
// yet erased), scrub-erased (all done but the journal rows). Unset in normal use, when a step costs one comparison.
const EnvKillAt = "IRENEO_TEST_KILL_AT"

var killAt = sync.OnceValue(func() string { return os.Getenv(EnvKillAt) })

// killPoint ends the process at once if the test asked for step.
func killPoint(step string) {
	if at := killAt(); at != "" && at == step {
		killSelf()
	}
}
