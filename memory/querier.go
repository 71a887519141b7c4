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
// loop of every read that fills a map or a list from its rows.
func EachRow(ctx context.Context, q Querier, query string, args []any, scan func(*sql.Rows) error) error {
	if r, ok := q.(*ReadTx); ok {
		return r.eachRow(ctx, query, args, scan)
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	return scanRows(rows, scan)
}

// QueryKept runs query on q through a statement the memory keeps, when q
// is a ReadTx (ReadTx.QueryKept); call done after closing rows.
func QueryKept(ctx context.Context, q Querier, query string, args ...any) (rows *sql.Rows, done func(), err error) {
	if r, ok := q.(*ReadTx); ok {
		return r.QueryKept(ctx, query, args...)
	}
	rows, err = q.QueryContext(ctx, query, args...)
	return rows, func() {}, err
}

// scanRows hands each row to scan, and closes rows.
func scanRows(rows *sql.Rows, scan func(*sql.Rows) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// TurnSet renders turns as an SQL row-value list, "VALUES (?,?),…", with
// its arguments, for `(sess, seq) IN (…)`; turns must not be empty. The
// list is padded to a power of two with the last turn again, so its texts
// take a few shapes a ReadTx keeps statements of (a repeat in IN changes
// nothing). Past 1,024 turns it is not padded: SQLite takes at most
// 32,766 arguments.
func TurnSet(turns []TurnKey) (string, []any) {
	n := 1
	for n < len(turns) {
		n *= 2
	}
	if len(turns) > 1024 {
		n = len(turns)
	}
	args := make([]any, 0, 2*n)
	for _, k := range turns {
		args = append(args, k.Sess, k.Seq)
	}
	for last := turns[len(turns)-1]; len(args) < 2*n; {
		args = append(args, last.Sess, last.Seq)
	}
	return "VALUES (?,?)" + strings.Repeat(",(?,?)", n-1), args
}

// IDSet renders row ids as an SQL parameter list, "?,?,…", with its
// arguments, for `IN (…)`, padded as TurnSet pads; ids must not be empty.
func IDSet(ids []int64) (string, []any) {
	n := 1
	for n < len(ids) {
		n *= 2
	}
	if len(ids) > 1024 {
		n = len(ids)
	}
	args := make([]any, 0, n)
	for _, id := range ids {
		args = append(args, id)
	}
	for last := ids[len(ids)-1]; len(args) < n; {
		args = append(args, last)
	}
	return "?" + strings.Repeat(",?", n-1), args
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
