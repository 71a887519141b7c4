package memory

import "time"

// unix stores a time as Unix seconds; the zero time is 0.
func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// fromUnix reads a stored time back as UTC; 0 is the zero time.
func fromUnix(s int64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}
