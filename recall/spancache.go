package recall

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/memory"
)

// spanCache keeps, for one generation of the index, every conversation's
// span (its first dated turn and its latest) and its turns' times as
// sessions.times packs them (memory/turntimes.go): a filter of a month then
// walks those instead of reading every turn of the month (17,000-20,000
// rows, 14 ms a month on the heavy memory, 9.4 CPU-ms of the 20 of a dated
// question; all 10,377 conversations' packed times read in 8 ms). Every
// write that adds or takes away engine documents draws a new generation; a
// conversation with none has nothing for the filter to keep.
type spanCache struct {
	mu    sync.Mutex
	gen   int64
	spans []sessSpan // every conversation, by id; nil until read
}

type sessSpan struct {
	id, started, updated int64
	times                []byte // sessions.times
}

// timeRanges is the engine documents of the turns dated in [since, until)
// (either bound nil: none) of the conversations whose span overlaps it and
// that keep(id) allows (keep nil: all), as ranges: what
// `SELECT t.sess, t.seq FROM sessions s JOIN turns t ... WHERE s.updated >= since
// AND t.ts >= since AND s.started < until AND t.ts < until` keeps.
func (c *spanCache) timeRanges(ctx context.Context, q memory.Querier, gen int64, since, until *int64, keep func(int64) bool) ([]engine.DocRange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || c.spans == nil {
		c.gen, c.spans = gen, nil
		var spans []sessSpan
		err := memory.EachRow(ctx, q, `SELECT id, started, updated, times FROM sessions ORDER BY id`, nil, func(rows *sql.Rows) error {
			var s sessSpan
			err := rows.Scan(&s.id, &s.started, &s.updated, &s.times)
			spans = append(spans, s)
			return err
		})
		if err != nil {
			return nil, err
		}
		c.spans = spans
	}
	rs := []engine.DocRange{}
	for _, s := range c.spans {
		if since != nil && s.updated < *since || until != nil && s.started >= *until || keep != nil && !keep(s.id) {
			continue
		}
		err := memory.EachTurnTime(s.times, func(seq int, ts int64) {
			if since != nil && ts < *since || until != nil && ts >= *until || seq < 0 || seq >= 1<<engine.MemberBits {
				return // a turn past seqBits is no engine document
			}
			d := memory.TurnKey{Sess: s.id, Seq: seq}.Doc()
			if n := len(rs); n > 0 && rs[n-1].Hi+1 == d {
				rs[n-1].Hi = d
				return
			}
			rs = append(rs, engine.DocRange{Lo: d, Hi: d})
		})
		if err != nil {
			return nil, fmt.Errorf("conversation %d: %w", s.id, err)
		}
	}
	return rs, nil
}
