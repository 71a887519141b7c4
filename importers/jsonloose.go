package importers

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Export schemas drift: a field that was a string becomes null or a number,
// a float epoch becomes an ISO string. The loose types below accept any JSON
// value without error, so a drifted cosmetic field never costs a whole
// conversation; only the fields a parser truly depends on are strict.

// looseString is a string field that also accepts null, numbers and booleans
// (as their JSON text) and ignores objects and arrays.
type looseString string

func (s *looseString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		if v, ok := unquote(b); ok {
			*s = looseString(v)
			return nil
		}
		var v string
		if json.Unmarshal(b, &v) == nil {
			*s = looseString(v)
		}
	case 'n', '{', '[':
	default:
		*s = looseString(b)
	}
	return nil
}

// unquote decodes a JSON string literal the decoder has already checked,
// without the second validating pass json.Unmarshal would make: string
// fields are most of what an export holds, and that pass was a sixth of the
// parse. It declines (ok false) anything unusual (a bad escape, a lone
// surrogate, bytes that are not UTF-8), leaving it to encoding/json.
func unquote(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	body := b[1 : len(b)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 {
		if !utf8.Valid(body) || bytes.IndexByte(body, '"') >= 0 {
			return "", false
		}
		return string(body), true
	}
	out := make([]byte, 0, len(body))
	for {
		out = append(out, body[:i]...)
		body = body[i:]
		if len(body) < 2 {
			return "", false
		}
		switch c := body[1]; c {
		case '"', '\\', '/':
			out = append(out, c)
			body = body[2:]
		case 'b':
			out, body = append(out, '\b'), body[2:]
		case 'f':
			out, body = append(out, '\f'), body[2:]
		case 'n':
			out, body = append(out, '\n'), body[2:]
		case 'r':
			out, body = append(out, '\r'), body[2:]
		case 't':
			out, body = append(out, '\t'), body[2:]
		case 'u':
			r, ok := hex4(body[2:])
			if !ok {
				return "", false
			}
			body = body[6:]
			if utf16.IsSurrogate(r) {
				if len(body) < 6 || body[0] != '\\' || body[1] != 'u' {
					return "", false
				}
				r2, ok := hex4(body[2:])
				if !ok {
					return "", false
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return "", false
				}
				body = body[6:]
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
		if i = bytes.IndexByte(body, '\\'); i < 0 {
			out = append(out, body...)
			break
		}
	}
	if !utf8.Valid(out) {
		return "", false
	}
	return string(out), true
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// looseBool is true only for JSON true (or the string "true").
type looseBool bool

func (v *looseBool) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	*v = looseBool(s == "true" || s == `"true"`)
	return nil
}

// looseFloat is a number that also accepts numeric strings; anything else
// leaves it unset.
type looseFloat struct {
	V   float64
	Set bool
}

func (f *looseFloat) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(bytes.TrimSpace(b)), `"`)
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		*f = looseFloat{V: v, Set: true}
	}
	return nil
}

// flexTime is a timestamp given as epoch seconds (float), epoch
// milliseconds, or an ISO 8601 string with or without a zone (UTC assumed).
// Anything unreadable is the zero time. It is always UTC.
type flexTime struct{ time.Time }

func (t *flexTime) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == 'n' || b[0] == '{' || b[0] == '[' {
		return nil
	}
	if b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil {
			t.Time = parseTime(s)
		}
		return nil
	}
	if v, err := strconv.ParseFloat(string(b), 64); err == nil {
		t.Time = epochTime(v)
	}
	return nil
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02",
}

// parseTime reads an ISO 8601 time or an epoch number in a string.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return epochTime(v)
	}
	return time.Time{}
}

// epochTime reads seconds, or milliseconds when the number is too large to
// be seconds. Out-of-range values are the zero time.
func epochTime(v float64) time.Time {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return time.Time{}
	}
	if v > 1e11 { // later than year 5138 in seconds: must be milliseconds
		v /= 1000
	}
	if v > 1e11 {
		return time.Time{}
	}
	sec, frac := math.Modf(v)
	// Microsecond precision: what the sources record, and stable across
	// re-imports regardless of float rounding.
	us := int64(math.Round(frac * 1e6))
	return time.Unix(int64(sec), us*1000).UTC()
}
