package indexdoc

import "time"

// Unix is a time as the index's rows keep it (a turn's ts, a
// conversation's started and updated): Unix seconds, the zero time 0.
func Unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// Time reads a stored time back, in UTC; 0 is the zero time.
func Time(s int64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}
