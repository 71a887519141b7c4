package memory

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/ireneo-app/ireneo/engine"
)

// ReadTx is one read transaction of the memory: the door package recall
// reads through. Everything read through it (memory's tables, schema.go,
// and the engine's index) is the state of one moment, however other
// processes import or forget meanwhile. Nothing through it changes the
// memory. Close it.
type ReadTx struct {
	m     *Memory
	tx    *sql.Tx
	stmts []*sql.Stmt
	// The index's statistics, read at the first need (a token's check
	// reads none): in the transaction's one snapshot whenever read.
	statsOnce sync.Once
	stats     engine.Stats
	statsErr  error
	closed    bool // after Close the tx stays, so a late use errs (sql.ErrTxDone), never panics
	// The texts run here that found no kept statement free but would
	// keep one (Close prepares them for the next transactions), and the
	// kept statements a read here is using (stmtcache.go).
	keptMu sync.Mutex
	misses map[string]int
	busy   map[*sql.Stmt]bool
}

// BeginRead opens a read transaction with the statements of prepared ready
// for it (Prepared). They are prepared on the pool first, once per text for
// the memory's life: preparing on the pool inside the transaction waited
// for a connection that every other reader, each in a transaction of its
// own, held (recall's TestShownTurnsConcurrent).
func (m *Memory) BeginRead(ctx context.Context, prepared ...string) (*ReadTx, error) {
	stmts, err := m.stmts.prepare(ctx, m.db, prepared...)
	if err != nil {
		return nil, fmt.Errorf("read memory: prepare: %w", err)
	}
	tx, err := m.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("read memory: %w", err)
	}
	m.reads.Add(1)
	return &ReadTx{m: m, tx: tx, stmts: stmts}, nil
}

// indexStats is the index's statistics in this transaction's snapshot.
func (r *ReadTx) indexStats(ctx context.Context) (engine.Stats, error) {
	r.statsOnce.Do(func() {
		if r.stats, r.statsErr = engine.ReadStats(ctx, r.tx); r.statsErr != nil {
			r.statsErr = fmt.Errorf("read memory: index statistics: %w", r.statsErr)
		}
	})
	return r.stats, r.statsErr
}

// Close ends the transaction; closing it again does nothing.
func (r *ReadTx) Close() {
	if !r.closed {
		r.tx.Rollback()
		r.closed = true
		r.m.reads.Add(-1)
		r.keepMissed()
	}
}

// Gen is the generation of the index this transaction reads (every write
// draws a new one): what a reader keys its caches of the index by.
// It is -1, which no cache is keyed by, when the statistics cannot be
// read; the search then says why.
func (r *ReadTx) Gen() int64 {
	st, err := r.indexStats(context.Background())
	if err != nil {
		return -1
	}
	return st.Gen
}

// Docs is how many turns (engine documents) the index holds.
func (r *ReadTx) Docs() int {
	st, _ := r.indexStats(context.Background())
	return int(st.Docs)
}

// QueryContext runs a query in the transaction.
func (r *ReadTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if r.closed {
		return nil, errReadClosed
	}
	return r.tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query of one row in the transaction.
func (r *ReadTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return r.tx.QueryRowContext(ctx, query, args...)
}

// PrepareContext prepares a statement on the transaction's own connection
// (never on the pool, which other readers may hold).
func (r *ReadTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	if r.closed {
		return nil, errReadClosed
	}
	return r.tx.PrepareContext(ctx, query)
}

// Prepared is statement i of those BeginRead prepared, bound to the
// transaction.
func (r *ReadTx) Prepared(ctx context.Context, i int) *sql.Stmt {
	return r.tx.StmtContext(ctx, r.stmts[i])
}

// Search is the engine's search in the transaction, through the memory's
// cache of decoded postings (kept per index generation, so other
// processes' writes are seen).
func (r *ReadTx) Search(ctx context.Context, q engine.Query, p engine.Params) ([]engine.Hit, error) {
	if r.closed {
		return nil, errReadClosed
	}
	st, err := r.indexStats(ctx)
	if err != nil {
		return nil, err
	}
	q.Cache, q.Index = r.m.engCache, &st
	return engine.Search(ctx, r, q, p)
}

// SearchExhaustive scores every match, reading the database itself: the
// reference the pruned Search is checked against.
func (r *ReadTx) SearchExhaustive(ctx context.Context, q engine.Query, p engine.Params) ([]engine.Hit, error) {
	if r.closed {
		return nil, errReadClosed
	}
	q.Cache = nil
	return engine.SearchExhaustive(ctx, r.tx, q, p)
}

var errReadClosed = fmt.Errorf("read memory: the read transaction is closed")

// Kept is the value a reader of this memory keeps under key between read
// transactions (recall's caches of the index, keyed by its generation),
// made by make the first time; it lives as long as the Memory.
func (r *ReadTx) Kept(key any, make func() any) any {
	if v, ok := r.m.kept.Load(key); ok {
		return v
	}
	v, _ := r.m.kept.LoadOrStore(key, make())
	return v
}
