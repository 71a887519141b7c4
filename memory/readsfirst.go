package memory

import (
	"context"
	"time"
)

// Reads first. An import in this process gives way to its read
// transactions (a recall over MCP, a search in the window): at each step
// (a session staged, a session prepared, a part committed) it waits while
// reads are under way, up to giveWayMax, then goes on. On a two-core
// machine an import's staging, its preparing workers and its commit ran
// beside the recalls as equals and took 3/7 of the CPU from them; 32
// agents' p99 rose 93 → 132–144 ms (BENCHMARKS.md). A steady stream of
// reads slows an import, never stops it.

// giveWayMax bounds one step's wait.
const giveWayMax = 10 * time.Millisecond

// giveWayPoll is how often a waiting step looks again.
const giveWayPoll = 500 * time.Microsecond

// giveWayTxMax bounds what one write transaction spends giving way: it
// holds the write lock meanwhile, and another process's writer waits for
// it at most busy_timeout (10 s).
const giveWayTxMax = 2 * time.Second

// giveWay waits, up to giveWayMax, while this process has reads under way,
// and returns how long it waited.
func (m *Memory) giveWay(ctx context.Context) time.Duration {
	if m.reads.Load() == 0 {
		return 0
	}
	start := time.Now()
	deadline := start.Add(giveWayMax)
	for m.reads.Load() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(giveWayPoll)
	}
	return time.Since(start)
}

// giveWayIn is giveWay inside a write transaction that has given way for
// *spent so far: nothing once that reaches giveWayTxMax.
func (m *Memory) giveWayIn(ctx context.Context, spent *time.Duration) {
	if *spent < giveWayTxMax {
		*spent += m.giveWay(ctx)
	}
}
