package memory

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/ireneo-app/ireneo/engine"
)

// Querier is what memory's reads, and those of recall, insights, sync and
// memscrub, run on: the pool, a write transaction or a ReadTx. It is the
// engine's own (engine.Querier), so one interface serves every reader.
type Querier = engine.Querier

// EachRow runs query with args on q and calls scan for each row read: the
// loop of every read that fills a map or a list from its rows. On a ReadTx
// it reads through a kept statement (engine.QueryKept).
func EachRow(ctx context.Context, q Querier, query string, args []any, scan func(*sql.Rows) error) error {
	rows, done, err := engine.QueryKept(ctx, q, query, args...)
	if err != nil {
		return err
	}
	defer done()
	defer rows.Close() // before done
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// TurnSet renders turns as an SQL row-value list, "VALUES (?,?),…", with
// its arguments, for `(sess, seq) IN (…)`; turns must not be empty. The
// list is padded with the last turn again (paddedLen), so its texts take
// a few shapes a ReadTx keeps statements of (a repeat in IN changes
// nothing).
func TurnSet(turns []TurnKey) (string, []any) {
	n := paddedLen(len(turns))
	args := make([]any, 0, 2*n)
	for i := range n {
		k := turns[min(i, len(turns)-1)]
		args = append(args, k.Sess, k.Seq)
	}
	return "VALUES (?,?)" + strings.Repeat(",(?,?)", n-1), args
}

// IDSet renders row ids as an SQL parameter list, "?,?,…", with its
// arguments, for `IN (…)`, padded as TurnSet pads; ids must not be empty.
func IDSet(ids []int64) (string, []any) {
	n := paddedLen(len(ids))
	args := make([]any, 0, n)
	for i := range n {
		args = append(args, ids[min(i, len(ids)-1)])
	}
	return "?" + strings.Repeat(",?", n-1), args
}

// paddedLen is the length a list of n values is padded to: the next power
// of two, or n itself past 1,024 (SQLite takes at most 32,766 arguments).
func paddedLen(n int) int {
	if n > 1024 {
		return n
	}
	p := 1
	for p < n {
		p *= 2
	}
	return p
}

// IDList renders row ids as an SQL list for `IN (…)`, each once; ids must
// not be empty.
func IDList(ids []int64) string {
	seen := make(map[int64]bool, len(ids))
	list := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			list = append(list, strconv.FormatInt(id, 10))
		}
	}
	return strings.Join(list, ",")
}
