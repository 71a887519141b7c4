package sync

import "fmt"

// Clock is a hybrid logical clock: milliseconds of wall time, and a counter
// that orders what happened within one millisecond, or while the wall
// clock stood behind a time already seen. Each machine stamps its journal
// entries with a clock above every clock it has written or read, so a
// choice made after seeing another sorts after it even when the two
// machines' wall clocks disagree.
type Clock struct {
	T int64 `json:"t"` // Unix milliseconds
	N int64 `json:"n"`
}

// Less orders clocks.
func (c Clock) Less(o Clock) bool { return c.T < o.T || c.T == o.T && c.N < o.N }

// next is the clock after c at wall time now.
func (c Clock) next(now int64) Clock {
	if now > c.T {
		return Clock{T: now}
	}
	return Clock{T: c.T, N: c.N + 1}
}

// seen is c moved past o, if o is later.
func (c Clock) seen(o Clock) Clock {
	if c.Less(o) {
		return o
	}
	return c
}

func (c Clock) String() string { return fmt.Sprintf("%d.%d", c.T, c.N) }
