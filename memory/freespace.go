package memory

import (
	"context"
	"database/sql"

	"github.com/ireneo-app/ireneo/sqlitepages"
)

// zeroFreeSpace zeroes the free space of the database's live pages in one
// write transaction (sqlitepages.ZeroFreeSpace: secure_delete leaves the
// copies a page rebuild makes) and returns how many pages it rewrote.
func (m *Memory) zeroFreeSpace(ctx context.Context) (int, error) {
	var n int
	err := m.tx(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = sqlitepages.ZeroFreeSpace(ctx, tx, m.dbPath())
		return err
	})
	return n, err
}
