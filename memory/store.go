package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, with FTS5

	"github.com/ireneo-app/ireneo/engine"
)

// DBName is the file name of the catalog and index inside a memory directory.
const DBName = "ireneo.db"

// SrcDir is the folder of verbatim conversations inside a memory directory.
const SrcDir = "src"

// ErrNotFound is returned for a conversation or turn that does not exist, or
// that the caller's scope does not cover: the two are indistinguishable.
var ErrNotFound = errors.New("not found")

// Memory is an open memory directory. It is safe for concurrent use, and
// several processes may open the same directory at once.
type Memory struct {
	dir string
	db  *sql.DB

	writeMu sync.Mutex // serialises this process's writers; SQLite serialises processes
	stmts   stmtCache  // the statements read transactions use (BeginRead, stmtcache.go)
	kept    sync.Map   // what readers keep between read transactions (Kept)
	// engCache keeps the engine's decoded term rows and blocks between
	// recalls, per index generation (so other processes' writes are seen).
	engCache *engine.Cache
	// openBatches counts this process's open import batches: while one is
	// open, a new one skips the search for dead imports' leftovers, which
	// the first already made (an import holding hundreds of small batches
	// for one transaction tried each one's lock at every new one).
	openBatches atomic.Int32
	// erasing counts this process's erase jobs under way, whose own
	// batches must not start finishing the journal (FinishErases).
	erasing atomic.Int32
	// reads counts this process's read transactions under way, which its
	// imports give way to (readsfirst.go).
	reads    atomic.Int32
	observer atomic.Pointer[ChoiceObserver] // told of each committed choice (choices.go)
}

// engineCacheBytes bounds the engine cache of one process.
const engineCacheBytes = 24 << 20

// Open opens (creating if needed) the memory directory dir.
func Open(dir string) (*Memory, error) {
	if dir == "" {
		return nil, errors.New("open memory: no directory given")
	}
	if err := secureDir(dir); err != nil {
		return nil, fmt.Errorf("open memory %s: %w", dir, explainDisk(dir, err))
	}
	dsn := "file:" + (&url.URL{Path: filepath.Join(dir, DBName)}).EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)" +
		"&_pragma=secure_delete(1)&_pragma=foreign_keys(0)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open memory %s: %w", dir, err)
	}
	db.SetMaxOpenConns(8)
	// Every connection is kept open (database/sql keeps 2 idle by
	// default): one closed loses its page cache and its prepared
	// statements, and the one opened in its place runs the DSN's pragmas
	// again. Under 32 agents calling at once connections were closed and
	// opened on nearly every call.
	db.SetMaxIdleConns(8)
	m := &Memory{dir: dir, db: db, engCache: engine.NewCache(engineCacheBytes)}
	if err := m.upgrade(context.Background()); err != nil {
		db.Close()
		var newer *NewerSchemaError
		if errors.As(err, &newer) {
			return nil, err // already one line that names the file
		}
		return nil, fmt.Errorf("open memory %s: %w", dir, explainDisk(dir, err))
	}
	os.Chmod(m.dbPath(), 0o600)
	m.recoverLeftovers(context.Background()) // best effort: Forget and NewBatch run it again and report errors
	// A forget or scrub killed half way is finished before anything else
	// reads the memory (best effort here too: Forget, ScrubApply and
	// Reindex refuse to start with one unfinished, and say why).
	m.FinishErases(context.Background())
	m.shredLeftovers() // an earlier version's scrub links, never journalled
	return m, nil
}

// dbPath is the database file.
func (m *Memory) dbPath() string { return filepath.Join(m.dir, DBName) }

// Close closes the database, folding the WAL back into the main file.
func (m *Memory) Close() error {
	m.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	m.stmts.close()
	return m.db.Close()
}

// Dir is the memory directory.
func (m *Memory) Dir() string { return m.dir }

// withTx runs fn in one write transaction. A failure to write the
// memory's files says why (a full disk, a read-only one, no permission).
func (m *Memory) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return explainDisk(m.dir, m.tx(ctx, fn))
}

func (m *Memory) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (m *Memory) metaSet(ctx context.Context, q execer, key, value string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES(?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}

func (m *Memory) metaGet(ctx context.Context, key string) string {
	var v string
	m.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	return v
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
