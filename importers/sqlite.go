package importers

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver
)

// Other apps' SQLite databases (opencode's, Cursor's state.vscdb) are read
// where they lie, read-only, while their app may be running: SQLite's own
// locking gives a consistent snapshot, and a write-ahead log (-wal) beside
// the file is read too, so data not yet checkpointed into the main file is
// not missed. Nothing is ever written to them.

// sqliteMagic begins every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// maxRowBytes caps one value read from another app's database: a row
// larger than this is not a conversation's text but damage, and reading it
// would hold it all in memory.
var maxRowBytes int64 = 64 << 20

// isSQLite reports whether the file at path starts like a SQLite database.
func isSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	_, err = io.ReadFull(f, head)
	return err == nil && bytes.Equal(head, []byte(sqliteMagic))
}

// openForeignDB opens another app's database read-only. mode=ro reads the
// -wal through its shared-memory index, which needs the -shm beside it to
// exist or be creatable; in a folder Ireneo may not write, with no -wal
// there (nothing pending), the file is opened immutable instead.
func openForeignDB(ctx context.Context, path string) (*sql.DB, error) {
	if !isSQLite(path) {
		return nil, errors.New("not a SQLite database (it does not start with the SQLite header)")
	}
	db, err := openDSN(ctx, path, "mode=ro")
	if err == nil {
		return db, nil
	}
	if _, werr := os.Stat(path + "-wal"); errors.Is(werr, os.ErrNotExist) {
		if db, ierr := openDSN(ctx, path, "mode=ro&immutable=1"); ierr == nil {
			return db, nil
		}
	}
	return nil, dbError(err)
}

func openDSN(ctx context.Context, path, params string) (*sql.DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + params + "&_pragma=busy_timeout(5000)&_pragma=query_only(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	// Opening is lazy: read the schema now, so a damaged or locked file
	// fails here, with its reason.
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// dbError says what is wrong with a database in words a person can act on.
func dbError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "malformed"), strings.Contains(msg, "not a database"), strings.Contains(msg, "SQLITE_CORRUPT"), strings.Contains(msg, "SQLITE_NOTADB"):
		return fmt.Errorf("the database is damaged (%v); nothing was imported from it", err)
	case strings.Contains(msg, "locked"), strings.Contains(msg, "SQLITE_BUSY"):
		return fmt.Errorf("the database is busy (%v); try again once its app is idle", err)
	}
	return fmt.Errorf("cannot read the database: %w", err)
}

// tables lists a database's tables.
func tables(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type='table'")
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, dbError(err)
		}
		out[n] = true
	}
	return out, dbError(rows.Err())
}

// byteSize writes a size for people: MiB, KiB or bytes.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
