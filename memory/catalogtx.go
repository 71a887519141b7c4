package memory

import (
	"context"
	"database/sql"
	"errors"
)

// CatalogTx is one write transaction over the catalog's own tables: the
// door through which a package that owns a catalog table writes it
// (tokenstore the access tokens, memscrub the scrub allow-list and history,
// package catalog a snapshot of the choices restored or synced). What memory keeps consistent with the files,
// the index, the conversations' rows and the erase journal, is never
// written through it: those change only by memory's import, forget, scrub
// and reindex. Writes through it wait for the memory's other writes in
// this process, as memory's own do; they commit together or not at all.
type CatalogTx struct {
	tx *sql.Tx
}

// WriteCatalog runs fn in one write transaction and commits it when fn
// returns nil; an error from fn rolls every write back. A full disk is
// named as such (diskproblem).
func (m *Memory) WriteCatalog(ctx context.Context, fn func(*CatalogTx) error) error {
	if fn == nil {
		return errors.New("write catalog: nothing to do")
	}
	return m.withTx(ctx, func(tx *sql.Tx) error { return fn(&CatalogTx{tx: tx}) })
}

// PrepareContext prepares a statement for many rows in this transaction.
func (c *CatalogTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return c.tx.PrepareContext(ctx, query)
}

// ExecContext runs a statement that changes the catalog.
func (c *CatalogTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.tx.ExecContext(ctx, query, args...)
}

// QueryContext runs a query in the transaction, seeing its own writes.
func (c *CatalogTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query of one row in the transaction.
func (c *CatalogTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return c.tx.QueryRowContext(ctx, query, args...)
}

// Meta reads a value of the memory's key–value table; a missing key is "".
func (c *CatalogTx) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := c.tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// SetMeta writes a value of the memory's key–value table.
func (c *CatalogTx) SetMeta(ctx context.Context, key, value string) error {
	_, err := c.tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES(?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}
