package recall

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// The days a question names. "What did I do on 10 December?" names a day
// and nothing else, and a turn of that day holds "10 December" by its time,
// not its words: its coverage of the question leaves the date's own words
// out (spanCover), or its score, which coverage multiplies, was 0 and turns
// of other days that mention December ranked above the whole day. And when
// no turn of those days holds any word of the question, not even a
// function word (the widened search found none), those days' turns are the
// answer (addDayTurns): they join the candidates at the weakest
// candidate's score, the person's own words first and in the order said,
// and the span's tier (Tuning.SpanWeight) ranks them first.

// maxDayTurns bounds the turns read for a span with no matching word: a
// long span's (a month) are many, and only the first k are shown.
const maxDayTurns = 2000

// addDayTurns adds to snap's candidates the searched turns inside the run's
// span, under the request's filters, at most k: the run's depth, not the
// hits asked for, so that a layer lists the same days' turns however many
// hits are asked for.
func (r *run) addDayTurns(ctx context.Context, snap *snapshot, k int) error {
	if !r.dated || k <= 0 {
		return nil
	}
	cq := r.readQuery()
	cq.Since, cq.Until = within(cq.Since, cq.Until, r.spanFrom, r.spanTo)
	allow, ranges, err := docFilter(ctx, snap.rt, &cachesOf(snap.rt).spans, cq)
	if err != nil {
		return err
	}
	// The conversations whose time overlaps the span first, then their
	// turns, as docFilter reads a span: not a scan of every turn's time.
	var where string
	var args []any
	if !cq.Since.IsZero() {
		where += " AND s.updated >= ? AND t.ts >= ?"
		args = append(args, cq.Since.Unix(), cq.Since.Unix())
	}
	if !cq.Until.IsZero() {
		where += " AND s.started < ? AND t.ts < ?"
		args = append(args, cq.Until.Unix(), cq.Until.Unix())
	}
	args = append(args, maxDayTurns)
	// BM25 negated: the weakest candidate's, so the day's turns take no rank
	// from a match; any small score when there is none.
	score := -1e-3
	for i, c := range snap.Candidates {
		if i == 0 || c.BM25 > score {
			score = c.BM25
		}
	}
	r.listed = map[memory.TurnKey]bool{}
	have := map[memory.TurnKey]bool{}
	for _, c := range snap.Candidates {
		have[memory.TurnKey{Sess: c.Sess, Seq: c.Seq}] = true
	}
	var days []snapCandidate
	err = memory.EachRow(ctx, snap.rt, `SELECT t.sess, t.seq, t.role, t.ts FROM sessions s CROSS JOIN turns t ON t.sess = s.id
		WHERE t.ts > 0`+where+` AND EXISTS (SELECT 1 FROM chunks c WHERE c.sess = t.sess AND c.seq = t.seq AND c.searched)
		ORDER BY t.role <> '`+funes.RoleUser+`', t.ts, t.sess, t.seq LIMIT ?`, args, func(rows *sql.Rows) error {
		var c snapCandidate
		if err := rows.Scan(&c.Sess, &c.Seq, &c.Role, &c.TS); err != nil {
			return err
		}
		key := memory.TurnKey{Sess: c.Sess, Seq: c.Seq}
		if have[key] || allow != nil && !allow(key.Doc()) || !engine.InRanges(ranges, key.Doc()) || len(days) >= k {
			return nil
		}
		c.BM25, c.Passage, c.SpanRank = score, -1, len(days)+1
		days = append(days, c)
		r.listed[key] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("recall: the named days' turns: %w", err)
	}
	snap.Candidates = append(snap.Candidates, days...)
	return nil
}

// spanCover sets each in-span candidate's coverage to its share of the
// question without the words that say its date.
func (r *run) spanCover() {
	var rest []weightedTerm
	for _, t := range r.terms {
		w := t.word
		if t.id {
			w = t.stem // an identifier's word is its stem
		}
		if !dateWord(w) {
			rest = append(rest, t)
		}
	}
	if len(rest) == len(r.terms) && len(r.listed) == 0 {
		return
	}
	for i := range r.cands {
		c := &r.cands[i]
		if !c.inSpan {
			continue
		}
		cov := 1.0
		switch {
		case len(rest) == 0 || r.listed[c.turn()]: // listed for its day alone
		case c.fields == nil:
			cov = coverage(c.body, rest)
		default:
			cov = fieldCoverage(c.fields, rest, r.et)
		}
		c.cov = max(c.cov, cov)
	}
}

// dateWord reports whether a query word or identifier can be part of a
// date: a number ("10", "2025", "10th"), a month's or a weekday's name, an
// ISO date ("2025-12-10", whose identifier is "20251210").
func dateWord(w string) bool {
	if _, ok := monthNames[w]; ok {
		return true
	}
	if _, ok := weekdayNames[w]; ok {
		return true
	}
	digits := strings.TrimRight(w, "stndrh")
	if iso := strings.NewReplacer("-", "", "/", "").Replace(w); len(iso) == 8 && len(w) <= 10 {
		digits = iso
	} else if digits == "" || len(digits) > 4 {
		return false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// within narrows the span [since, until) to [from, to): the later start,
// the earlier end, a zero bound being open.
func within(since, until, from, to time.Time) (time.Time, time.Time) {
	if !from.IsZero() && (since.IsZero() || from.After(since)) {
		since = from
	}
	if !to.IsZero() && (until.IsZero() || to.Before(until)) {
		until = to
	}
	return since, until
}
