package recall

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Dates and order in the question. A question may say when its answer was
// said: a day ("on 8 May", "2024-05-08", "last Friday"), a range ("in July",
// "the first week of 2023", "last week", "in the past 3 days"), or an order
// ("the first time", "most recently", "right after the move"). Each is
// resolved against the time of asking (Options.Now), a named month or day
// to its latest occurrence not after it. An explicit day or range is read
// as a filter: the engine's best turns inside it join the candidates (an
// exact filtered top, as the request's own filters are) and rank first
// unless far weaker (Tuning.SpanWeight); when nothing inside it holds the
// question's words, the turns of those days are searched for all of them,
// function words too ("what did I eat on 8 May?": "I"). It stays a strong
// signal, not a hard cut: a date in a question often dates an event that
// was talked about on another day ("per my notes of 1 March"). A date
// inside an order's clause ("following my visit on July 24th") bounds the
// span on one side. Loose spans ("two weeks ago", "earlier this year") and
// order words are milder signals (Tuning.WhenWeight).

// when is what a question says of time.
type when struct {
	// from, to bound the span [from, to) the answer lies in; zero when
	// unbounded. filter: the span is explicit (a filter); otherwise it is
	// loose (a ranking signal).
	from, to time.Time
	filter   bool
	// order: -1 the earliest ("the first time"), +1 the latest ("most
	// recently"), 0 neither.
	order int
	// anchor is the words of the event an answer comes right after
	// (after > 0) or right before (after < 0): "directly after the move".
	anchor []string
	after  int
	// orderWords are the words that said an order ("right", "directly"
	// in "right after"), which are no search terms.
	orderWords map[string]bool
}

var monthNames = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
	"september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

var weekdayNames = map[string]time.Weekday{
	"sunday": 0, "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6,
}

var ordinals = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "last": -1}

var numberWords = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "few": 3, "couple": 2}

// Connectives that open an order's clause, and those that end one.
var (
	afterWords  = setOf("after following since")
	beforeWords = setOf("before until")
	clauseEnds  = setOf("did do does was were is are what which who whom whose where when how why i we you")
)

// whenTokens cuts a question into lowercase words, keeping ISO dates and
// ordinal numbers ("24th") whole and marking clause breaks (",", "?", ";").
func whenTokens(q string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range strings.ToLower(q) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' && b.Len() > 0 || r > 127 && r != '’':
			b.WriteRune(r)
		case r == ',' || r == '?' || r == ';' || r == '.' || r == '!':
			flush()
			out = append(out, ",")
		default:
			flush()
		}
	}
	flush()
	return out
}

// timeText is the part of a query whose dates are the question's: all of a
// question of one or two sentences; of a longer message (a person writing
// in a chat: "Hello. Last Tuesday's dinner meant I missed it. What next?")
// only its questions, as its other dates tell how things stand, not when
// the answer was said.
func timeText(q string) string {
	var sents []string
	start := 0
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '.', '!', '?', '\n':
			if i+1 == len(q) || q[i+1] == ' ' || q[i+1] == '\n' || q[i] == '\n' {
				if strings.TrimSpace(q[start:i+1]) != "" {
					sents = append(sents, q[start:i+1])
				}
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(q[start:]) != "" {
		sents = append(sents, q[start:])
	}
	if len(sents) <= 2 {
		return q
	}
	var b strings.Builder
	for _, s := range sents {
		if strings.HasSuffix(strings.TrimSpace(s), "?") {
			b.WriteString(s)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// dayNumber reads "8", "08", "8th", "24th" as a day of the month.
func dayNumber(w string) (int, bool) {
	w = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(w, "th"), "st"), "nd"), "rd")
	n, err := strconv.Atoi(w)
	return n, err == nil && n >= 1 && n <= 31
}

func yearNumber(w string) (int, bool) {
	n, err := strconv.Atoi(w)
	return n, err == nil && len(w) == 4 && n >= 1990 && n <= 2100
}

// latest is the latest occurrence, not after now, of a month (and a day of
// it, when day > 0), in now's location.
func latest(now time.Time, m time.Month, day int) time.Time {
	y := now.Year()
	d := max(day, 1)
	t := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	if t.After(now) {
		t = time.Date(y-1, m, d, 0, 0, 0, 0, now.Location())
	}
	return t
}

// dateAfterWeekday reports whether the weekday at ts[i] is followed by the
// date it names: "Wednesday 10 December", "Wednesday, December 10",
// "Wednesday 2025-12-10".
func dateAfterWeekday(ts []string, i int) bool {
	j := i + 1
	if j < len(ts) && ts[j] == "," {
		j++
	}
	if j >= len(ts) {
		return false
	}
	if t := ts[j]; len(t) == 10 && t[4] == '-' && t[7] == '-' || monthNames[t] != 0 {
		return true
	}
	if _, ok := dayNumber(ts[j]); ok && j+1 < len(ts) {
		n := ts[j+1]
		if n == "of" && j+2 < len(ts) {
			n = ts[j+2]
		}
		return monthNames[n] != 0
	}
	return false
}

func dayStart(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// weekStart is the Monday that starts t's week.
func weekStart(t time.Time) time.Time {
	d := dayStart(t)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

// parseWhen reads what q says of time, asked at now.
func parseWhen(q string, now time.Time) when {
	var w when
	w.orderWords = map[string]bool{}
	ts := whenTokens(timeText(q))
	at := func(i int) string {
		if i >= 0 && i < len(ts) {
			return ts[i]
		}
		return ""
	}
	// Where an order's clause opens: a date after it bounds, not filters.
	clause, clauseAfter := -1, 0
	span := func(from, to time.Time, explicit bool, i int, _ ...string) {
		if !w.from.IsZero() || !w.to.IsZero() {
			return // the first date said wins
		}
		if clause >= 0 && clause < i {
			// "following my visit on July 24th": after that date (or before it).
			if clauseAfter > 0 {
				w.from = from
			} else {
				w.to = to
			}
			w.filter = explicit
			return
		}
		w.from, w.to, w.filter = from, to, explicit
	}
	month := func(m time.Month, i int) (time.Time, bool) {
		// A year right after or before the month names it; else the latest.
		if y, ok := yearNumber(at(i + 1)); ok {
			return time.Date(y, m, 1, 0, 0, 0, 0, now.Location()), true
		}
		return latest(now, m, 0), false
	}
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		switch {
		case afterWords[t] || t == "prior" && at(i+1) == "to" || beforeWords[t]:
			dir := 1
			if beforeWords[t] || t == "prior" {
				dir = -1
			}
			j := i + 1
			if t == "prior" {
				j++
			}
			if clause < 0 {
				clause, clauseAfter = i, dir
			}
			// "right after the move": the words up to the clause's end.
			if w.after == 0 && (at(i-1) == "right" || at(i-1) == "directly" || at(i-1) == "just" || at(i-1) == "immediately" || at(i-1) == "shortly" || t == "following") {
				var anchor []string
				for ; j < len(ts) && ts[j] != "," && !clauseEnds[ts[j]]; j++ {
					anchor = append(anchor, ts[j])
				}
				if len(anchor) > 0 {
					w.anchor, w.after = anchor, dir
					w.orderWords[at(i-1)] = true // "right", "directly": no search terms
				}
			}
		case len(t) == 10 && t[4] == '-' && t[7] == '-':
			if d, err := time.ParseInLocation("2006-01-02", t, now.Location()); err == nil {
				span(d, d.AddDate(0, 0, 1), true, i, t)
			}
		case monthNames[t] != 0 && (t != "may" || dayOrYearNear(ts, i)) && t != "mar" && t != "dec":
			m := monthNames[t]
			if d, ok := dayNumber(at(i + 1)); ok && at(i+1) != "" {
				// "May 8", "May 8th, 2026"
				day := latest(now, m, d)
				if y, ok := yearNumber(at(i + 2)); ok {
					day = time.Date(y, m, d, 0, 0, 0, 0, now.Location())
				} else if at(i+2) == "," {
					if y, ok := yearNumber(at(i + 3)); ok {
						day = time.Date(y, m, d, 0, 0, 0, 0, now.Location())
					}
				}
				span(day, day.AddDate(0, 0, 1), true, i, t, at(i+1), at(i+2), at(i+3))
				i++
				continue
			}
			if d, ok := dayNumber(at(i - 1)); ok || at(i-1) == "of" {
				// "8 May", "8th of May"
				if !ok {
					d, ok = dayNumber(at(i - 2))
				}
				if ok {
					day := latest(now, m, d)
					if y, ok := yearNumber(at(i + 1)); ok {
						day = time.Date(y, m, d, 0, 0, 0, 0, now.Location())
					}
					span(day, day.AddDate(0, 0, 1), true, i, t, at(i-1), at(i-2), at(i+1))
					continue
				}
			}
			start, _ := month(m, i)
			from, to := start, start.AddDate(0, 1, 0)
			// "early/late July", "the first week of July", "the end of July"
			switch {
			case at(i-1) == "early":
				to = start.AddDate(0, 0, 11)
			case at(i-1) == "mid":
				from, to = start.AddDate(0, 0, 10), start.AddDate(0, 0, 21)
			case at(i-1) == "late" || at(i-2) == "end" || at(i-2) == "days" && (at(i-3) == "last" || at(i-4) == "last"):
				from = start.AddDate(0, 0, 20)
			case at(i-2) == "week" && at(i-1) == "of":
				if n, ok := ordinals[at(i-3)]; ok {
					from, to = weekOf(start, start.AddDate(0, 1, 0), n)
				}
			}
			span(from, to, true, i, t)
		case yearOf(ts, i):
			y, _ := yearNumber(t)
			start := time.Date(y, 1, 1, 0, 0, 0, 0, now.Location())
			from, to := start, start.AddDate(1, 0, 0)
			if at(i-2) == "week" && at(i-1) == "of" {
				if n, ok := ordinals[at(i-3)]; ok {
					from, to = weekOf(start, to, n)
				}
			}
			span(from, to, true, i, t)
		case t == "yesterday":
			d := dayStart(now).AddDate(0, 0, -1)
			span(d, d.AddDate(0, 0, 1), true, i, t)
		case weekdayNames[t] != 0 || t == "sunday":
			if dateAfterWeekday(ts, i) {
				continue // "Wednesday 10 December 2025": the date says which Wednesday
			}
			if at(i-1) == "on" || at(i-1) == "last" { // "this Friday" may be to come
				d := dayStart(now)
				for d.Weekday() != weekdayNames[t] || !d.Before(dayStart(now)) && at(i-1) == "last" {
					d = d.AddDate(0, 0, -1)
				}
				span(d, d.AddDate(0, 0, 1), true, i, t)
			}
		case (t == "week" || t == "month" || t == "year") && (at(i-1) == "last" || at(i-1) == "this" || at(i-1) == "past") && at(i-2) != "the" && at(i+1) != "of":
			var from, to time.Time
			switch t {
			case "week":
				from, to = weekStart(now), weekStart(now).AddDate(0, 0, 7)
				if at(i-1) != "this" {
					from, to = from.AddDate(0, 0, -7), from
				}
			case "month":
				from = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location())
				to = from.AddDate(0, 1, 0)
				if at(i-1) != "this" {
					from, to = from.AddDate(0, -1, 0), from
				}
			default:
				from = time.Date(now.Year(), 1, 1, 0, 0, 0, 0, now.Location())
				to = from.AddDate(1, 0, 0)
				if at(i-1) != "this" {
					from, to = from.AddDate(-1, 0, 0), from
				}
			}
			span(from, to, at(i-1) != "this", i) // "this week": the present, loosely
		case (t == "days" || t == "weeks" || t == "months" || t == "day" || t == "week" || t == "month") && (at(i+1) == "ago" || at(i-2) == "past" || at(i-2) == "last") &&
			at(i+1) != "in" && at(i+1) != "of":
			n, ok := numberWords[at(i-1)]
			if !ok {
				n, _ = strconv.Atoi(at(i - 1))
			}
			if n <= 0 {
				break
			}
			unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour, 'm': 30 * 24 * time.Hour}[t[0]]
			back := time.Duration(n) * unit
			if at(i+1) == "ago" {
				// Loose: around then.
				span(now.Add(-back-unit), now.Add(-back+unit), false, i)
			} else {
				span(now.Add(-back), now, false, i) // "the past two weeks": loose, a situation more than a date
			}
		case t == "earlier" && at(i+1) == "this" && (at(i+2) == "year" || at(i+2) == "month" || at(i+2) == "week"):
			var from time.Time
			switch at(i + 2) {
			case "year":
				from = time.Date(now.Year(), 1, 1, 0, 0, 0, 0, now.Location())
			case "month":
				from = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location())
			default:
				from = weekStart(now)
			}
			span(from, now, false, i)
			i += 2
		case t == "first" && (at(i+1) == "time" || at(i-1) == "i" || at(i-1) == "we" || at(i+1) == "did") || t == "initially" || t == "originally" || t == "earliest":
			w.order = -1
		case t == "recently" && at(i-1) == "most" || t == "last" && at(i+1) == "time" || t == "latest":
			w.order = 1
		}
	}
	return w
}

// dayOrYearNear reports whether a day number or a year stands beside the
// word at i ("8 May", "May 8", "May 2026"): "may" is otherwise a verb.
func dayOrYearNear(ts []string, i int) bool {
	for _, j := range []int{i - 1, i + 1} {
		if j >= 0 && j < len(ts) {
			if _, ok := dayNumber(ts[j]); ok {
				return true
			}
			if _, ok := yearNumber(ts[j]); ok {
				return true
			}
		}
	}
	return i >= 1 && (ts[i-1] == "in" || ts[i-1] == "of" || ts[i-1] == "early" || ts[i-1] == "late" || ts[i-1] == "mid")
}

// yearOf reports whether the word at i is a year the question names as a
// time ("in 2023", "of 2023", "during 2023"), not a number among others.
func yearOf(ts []string, i int) bool {
	if _, ok := yearNumber(ts[i]); !ok || i == 0 {
		return false
	}
	switch ts[i-1] {
	case "in", "of", "during", "since", "from", "throughout":
		return true
	}
	return false
}

// weekOf is the n-th week (-1: the last) of [start, end): seven days from
// the start, or back from the end.
func weekOf(start, end time.Time, n int) (time.Time, time.Time) {
	if n < 0 {
		return end.AddDate(0, 0, -7), end
	}
	from := start.AddDate(0, 0, 7*(n-1))
	return from, from.AddDate(0, 0, 7)
}

// anchorDays is how fast the fit of a turn after (or before) an anchor
// fades: e^(−days/anchorDays).
const anchorDays = 7

// timeSignals fills in each candidate's fit to the question's loose span
// (1 inside it) and to its anchor: after (or before) the candidate that
// holds most of the anchor's words, the sooner the better.
func (r *run) timeSignals() {
	w := r.when
	for i := range r.cands {
		r.cands[i].inSpan = r.inSpan(r.cands[i].ts)
	}
	if !w.filter && (!w.from.IsZero() || !w.to.IsZero()) {
		for i := range r.cands {
			c := &r.cands[i]
			t := time.Unix(c.ts, 0)
			if c.ts != 0 && (w.from.IsZero() || !t.Before(w.from)) && (w.to.IsZero() || t.Before(w.to)) {
				c.when = 1
			}
		}
	}
	if w.after == 0 {
		return
	}
	words := map[string]bool{}
	for _, a := range w.anchor {
		words[a] = true
	}
	var at []weightedTerm
	for _, t := range r.terms {
		if words[t.word] {
			at = append(at, t)
		}
	}
	if len(at) == 0 {
		return
	}
	best, bestCov := -1, 0.0
	for i, c := range r.cands { // best first: the first of equals wins
		if cov := fieldCoverage(c.fields, at, r.et); cov > bestCov+1e-9 {
			best, bestCov = i, cov
		}
	}
	if best < 0 || bestCov < 0.5 || r.cands[best].ts == 0 {
		return
	}
	t0 := r.cands[best].ts
	for i := range r.cands {
		c := &r.cands[i]
		d := float64(c.ts-t0) * float64(w.after)
		if i == best || c.ts == 0 || d < 0 || d == 0 && c.sess == r.cands[best].sess && c.seq*w.after <= r.cands[best].seq*w.after {
			continue
		}
		c.when = math.Max(c.when, math.Exp(-d/86400/anchorDays))
	}
}
