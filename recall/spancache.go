package recall

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/memory"
)

// spanCache keeps, for one generation of the index, every conversation's
// span (its first dated turn and its latest) and, once a time filter has
// needed them, its turns' times: a filter of a month then walks those
// instead of reading every turn of the month again (17,000-20,000 rows,
// ~20 CPU-ms a question on the heavy memory). Every write that adds or
// takes away engine documents draws a new generation; a conversation with
// none has nothing for the filter to keep.
type spanCache struct {
	mu    sync.Mutex
	gen   int64
	spans []sessSpan           // every conversation, by id; nil until read
	turns map[int64][]turnTime // by conversation, in seq order
	size  int                  // turn times kept
}

type sessSpan struct{ id, started, updated int64 }

type turnTime struct {
	seq int
	ts  int64
}

// spanCacheMax bounds the turn times kept (16 bytes each; the heavy
// memory has 238,665 turns): past it the
// cache starts again.
const spanCacheMax = 1 << 18

// timeRanges is the engine documents of the turns dated in [since, until)
// (either bound nil: none) of the conversations whose span overlaps it and
// that keep(id) allows (keep nil: all), as ranges: what
// `SELECT t.sess, t.seq FROM sessions s JOIN turns t ... WHERE s.updated >= since
// AND t.ts >= since AND s.started < until AND t.ts < until` keeps.
func (c *spanCache) timeRanges(ctx context.Context, q memory.Querier, gen int64, since, until *int64, keep func(int64) bool) ([]engine.DocRange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || c.spans == nil {
		c.gen, c.spans, c.turns, c.size = gen, nil, map[int64][]turnTime{}, 0
		err := memory.EachRow(ctx, q, `SELECT id, started, updated FROM sessions ORDER BY id`, nil, func(rows *sql.Rows) error {
			var s sessSpan
			err := rows.Scan(&s.id, &s.started, &s.updated)
			c.spans = append(c.spans, s)
			return err
		})
		if err != nil {
			c.spans = nil
			return nil, err
		}
	}
	var in []int64 // overlapping conversations, ascending
	var missing []string
	for _, s := range c.spans {
		if since != nil && s.updated < *since || until != nil && s.started >= *until || keep != nil && !keep(s.id) {
			continue
		}
		in = append(in, s.id)
		if _, ok := c.turns[s.id]; !ok {
			missing = append(missing, strconv.FormatInt(s.id, 10))
		}
	}
	if len(missing) > 0 {
		if c.size > spanCacheMax {
			clear(c.turns)
			c.size = 0
			// every one of in is missing now
			missing = missing[:0]
			for _, id := range in {
				missing = append(missing, strconv.FormatInt(id, 10))
			}
		}
		read := map[int64][]turnTime{}
		err := memory.EachRow(ctx, q, `SELECT sess, seq, ts FROM turns WHERE sess IN (`+strings.Join(missing, ",")+`) ORDER BY sess, seq`, nil, func(rows *sql.Rows) error {
			var sess int64
			var t turnTime
			err := rows.Scan(&sess, &t.seq, &t.ts)
			read[sess] = append(read[sess], t)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, id := range missing {
			n, _ := strconv.ParseInt(id, 10, 64)
			c.turns[n] = read[n] // nil: a conversation with no turns
			c.size += len(read[n])
		}
	}
	rs := []engine.DocRange{}
	for _, id := range in {
		for _, t := range c.turns[id] {
			if since != nil && t.ts < *since || until != nil && t.ts >= *until || t.seq < 0 || t.seq >= 1<<engine.MemberBits {
				continue // a turn past seqBits is no engine document
			}
			d := memory.TurnKey{Sess: id, Seq: t.seq}.Doc()
			if n := len(rs); n > 0 && rs[n-1].Hi+1 == d {
				rs[n-1].Hi = d
				continue
			}
			rs = append(rs, engine.DocRange{Lo: d, Hi: d})
		}
	}
	return rs, nil
}
