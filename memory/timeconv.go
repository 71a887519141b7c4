package memory

import "time"

// Undated is how Day shows the zero time.
const Undated = "undated"

// Day is the date of t as every part of Ireneo shows it: YYYY-MM-DD in UTC,
// the time zone the memory stores, so a conversation has the same date in
// the window, on the command line and in an agent's answer; "undated" for
// the zero time.
func Day(t time.Time) string {
	if t.IsZero() {
		return Undated
	}
	return t.UTC().Format(time.DateOnly)
}
