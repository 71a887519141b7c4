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

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, with FTS5
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
	stats   termStats
}

const schema = `
-- The index: derived from src/, rebuilt by reindex.
CREATE TABLE IF NOT EXISTS sessions(
	id INTEGER PRIMARY KEY,
	harness TEXT NOT NULL,
	session_id TEXT NOT NULL,
	title TEXT NOT NULL DEFAULT '',
	workdir TEXT NOT NULL DEFAULT '',
	derived_project TEXT NOT NULL DEFAULT '',
	started INTEGER NOT NULL DEFAULT 0,
	updated INTEGER NOT NULL DEFAULT 0,
	turns INTEGER NOT NULL DEFAULT 0,
	tokens INTEGER NOT NULL DEFAULT 0,
	bytes INTEGER NOT NULL DEFAULT 0,
	hash TEXT NOT NULL,
	path TEXT NOT NULL,
	imported INTEGER NOT NULL DEFAULT 0,
	UNIQUE(harness, session_id)
);
CREATE INDEX IF NOT EXISTS sessions_sid ON sessions(session_id);
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(updated);
CREATE TABLE IF NOT EXISTS turns(
	sess INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	turn_uuid TEXT NOT NULL,
	role TEXT NOT NULL,
	ts INTEGER NOT NULL,
	preview TEXT NOT NULL,
	PRIMARY KEY(sess, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS turns_uuid ON turns(turn_uuid);
CREATE TABLE IF NOT EXISTS chunks(
	id INTEGER PRIMARY KEY,
	sess INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	block INTEGER NOT NULL,
	part INTEGER NOT NULL,
	block_type TEXT NOT NULL,
	tokens INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_sess ON chunks(sess, seq);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
	body, title, ids,
	tokenize = 'porter unicode61 remove_diacritics 2'
);

-- The catalog: the person's own choices; reindex keeps it.
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS known_sessions(
	harness TEXT NOT NULL, session_id TEXT NOT NULL, first_seen INTEGER NOT NULL,
	PRIMARY KEY(harness, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS session_projects(
	harness TEXT NOT NULL, session_id TEXT NOT NULL, project TEXT NOT NULL,
	PRIMARY KEY(harness, session_id, project)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS session_projects_project ON session_projects(project);
CREATE TABLE IF NOT EXISTS stars(
	harness TEXT NOT NULL, session_id TEXT NOT NULL, starred INTEGER NOT NULL,
	PRIMARY KEY(harness, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tombstones(hash TEXT PRIMARY KEY, forgotten INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tokens(
	name TEXT PRIMARY KEY,
	hash BLOB NOT NULL UNIQUE,
	projects TEXT NOT NULL DEFAULT '[]',
	created INTEGER NOT NULL,
	last_used INTEGER NOT NULL DEFAULT 0,
	revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS audit(
	id INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	client TEXT NOT NULL,
	tool TEXT NOT NULL,
	args TEXT NOT NULL,
	hits INTEGER NOT NULL,
	duration_ms REAL NOT NULL,
	outcome TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_ts ON audit(ts);
CREATE TABLE IF NOT EXISTS scrub_history(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, counts TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scrub_allow(hash TEXT PRIMARY KEY, rule TEXT NOT NULL, added INTEGER NOT NULL) WITHOUT ROWID;
`

// Open opens (creating if needed) the memory directory dir.
func Open(dir string) (*Memory, error) {
	if dir == "" {
		return nil, errors.New("open memory: no directory given")
	}
	if err := os.MkdirAll(filepath.Join(dir, SrcDir), 0o700); err != nil {
		return nil, fmt.Errorf("open memory %s: %w", dir, err)
	}
	dsn := "file:" + (&url.URL{Path: filepath.Join(dir, DBName)}).EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)" +
		"&_pragma=secure_delete(1)&_pragma=foreign_keys(0)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open memory %s: %w", dir, err)
	}
	db.SetMaxOpenConns(8)
	m := &Memory{dir: dir, db: db}
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open memory %s: %s: %w", dir, DBName, err)
	}
	os.Chmod(filepath.Join(dir, DBName), 0o600)
	return m, nil
}

// Close closes the database, folding the WAL back into the main file.
func (m *Memory) Close() error {
	m.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return m.db.Close()
}

// Dir is the memory directory.
func (m *Memory) Dir() string { return m.dir }

// withTx runs fn in one write transaction.
func (m *Memory) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
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
	defer m.stats.invalidate()
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
