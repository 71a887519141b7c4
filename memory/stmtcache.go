package memory

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps prepared statements by their text, for the read layer's
// queries, whose texts take a few dozen shapes (TurnSet pads its lists);
// database/sql prepares each on the connections it runs on. Without it
// SQLite parsed and planned a recall's dozen statements anew in each
// transaction: 6.6 % of a recall's CPU on the heavy memory.
//
// A SQLite statement has one cursor: it serves one read at a time. A text
// read by several at once in one transaction (the engine's cursors, one
// per query term, each streaming its term's blocks) keeps up to
// stmtPerText statements.
type stmtCache struct {
	mu sync.Mutex
	m  map[string][]*sql.Stmt
	n  int // statements kept
	// seen holds the texts met once and not kept: a text is kept the
	// second time, so one built around its values (a list of ids written
	// out) costs a parse, as before, and no statement.
	seen map[string]bool
}

const (
	stmtCacheMax = 512
	stmtPerText  = 32
	stmtSeenMax  = 1024
)

// prepare returns a statement of each of qs, prepared once for the
// memory's life. It holds a connection of db only while it prepares,
// never while it waits for one.
func (c *stmtCache) prepare(ctx context.Context, db *sql.DB, qs ...string) ([]*sql.Stmt, error) {
	out := make([]*sql.Stmt, len(qs))
	for i, q := range qs {
		c.mu.Lock()
		var st *sql.Stmt
		if have := c.m[q]; len(have) > 0 {
			st = have[0]
		}
		c.mu.Unlock()
		if st == nil {
			var err error
			if st, err = c.add(ctx, db, q, 1); err != nil {
				return nil, err
			}
		}
		out[i] = st
	}
	return out, nil
}

// add prepares a statement of q and keeps it, unless the cache holds want
// of q already (another reader prepared it meanwhile): then it is the
// first of those.
func (c *stmtCache) add(ctx context.Context, db *sql.DB, q string, want int) (*sql.Stmt, error) {
	st, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if have := c.m[q]; len(have) >= want {
		st.Close()
		return have[0], nil
	}
	if c.m == nil {
		c.m = map[string][]*sql.Stmt{}
	}
	c.m[q] = append(c.m[q], st)
	c.n++
	delete(c.seen, q)
	return st, nil
}

// free is a statement of query that busy does not hold, or nil; then want
// is how many of query the cache would keep to have served this read too
// (0: it keeps none, it met the text only now or has no room).
func (c *stmtCache) free(query string, busy map[*sql.Stmt]bool) (st *sql.Stmt, want int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	have := c.m[query]
	for _, st := range have {
		if !busy[st] {
			return st, 0
		}
	}
	if c.n >= stmtCacheMax || len(have) >= stmtPerText {
		return nil, 0
	}
	if len(have) > 0 || c.seen[query] {
		return nil, len(have) + 1
	}
	if c.seen == nil || len(c.seen) >= stmtSeenMax {
		c.seen = map[string]bool{}
	}
	c.seen[query] = true
	return nil, 0
}

// close closes the statements.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sts := range c.m {
		for _, st := range sts {
			st.Close()
		}
	}
	c.m, c.n = nil, 0
}

// QueryKept runs a query in the transaction through a statement the
// memory keeps for its text, when one is free, else as QueryContext does.
// Call done once the rows are closed: until then the statement is this
// read's. The engine streams its blocks through it.
func (r *ReadTx) QueryKept(ctx context.Context, query string, args ...any) (rows *sql.Rows, done func(), err error) {
	if r.closed {
		return nil, func() {}, errReadClosed
	}
	st := r.hold(query)
	if st == nil {
		rows, err = r.tx.QueryContext(ctx, query, args...)
		return rows, func() {}, err
	}
	done = func() { r.release(st) }
	rows, err = r.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	if err != nil {
		done()
		return nil, func() {}, err
	}
	return rows, done, nil
}

// hold is a free kept statement of query, now this transaction's until
// release, or nil; the text is noted for Close to keep as many of as were
// read here at once.
func (r *ReadTx) hold(query string) *sql.Stmt {
	r.keptMu.Lock()
	defer r.keptMu.Unlock()
	st, want := r.m.stmts.free(query, r.busy)
	switch {
	case st != nil:
		if r.busy == nil {
			r.busy = map[*sql.Stmt]bool{}
		}
		r.busy[st] = true
	case want > r.misses[query]:
		if r.misses == nil {
			r.misses = map[string]int{}
		}
		r.misses[query] = want
	}
	return st
}

func (r *ReadTx) release(st *sql.Stmt) {
	r.keptMu.Lock()
	delete(r.busy, st)
	r.keptMu.Unlock()
}

// keepMissed prepares, for the transactions to come, the statements of
// the texts that found none free here: as many of each as were read here
// at once. It runs once the transaction's connection is back in the pool,
// so it waits for no other reader (BeginRead). Best effort: a text that
// fails to prepare is prepared in each transaction, as before.
func (r *ReadTx) keepMissed() {
	r.keptMu.Lock()
	misses := r.misses
	r.misses = nil
	r.keptMu.Unlock()
	c := &r.m.stmts
	for q, want := range misses {
		for {
			c.mu.Lock()
			have, room := len(c.m[q]), c.n < stmtCacheMax
			c.mu.Unlock()
			if have >= want || !room {
				break
			}
			if _, err := c.add(context.Background(), r.m.db, q, have+1); err != nil {
				break
			}
		}
	}
}
