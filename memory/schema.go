package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/indexdoc"
)

// ireneo.db holds two kinds of tables, versioned separately:
//
//   - the catalog: the person's own choices and history (tags, stars,
//     tombstones, tokens, audit, scrub history …). It cannot be rebuilt from
//     src/, so it is migrated forward, in one transaction, on open. Its
//     version is PRAGMA user_version.
//   - the derived index: sessions, turns, chunks and the engine's tables
//     (package engine: one document per turn), rebuilt from src/
//     at any time. Its layout version is kept in meta; when it differs from
//     indexLayoutVersion, Open drops the index and rebuilds it from src/,
//     keeping the catalog.

// indexLayoutVersion is the layout of the derived index: indexSchema plus
// whatever indexSession and prepare write into it (chunking, tokenizer,
// identifiers, title and date columns …).
//
// BUMP THIS BY ONE whenever you change any of that: it is the whole upgrade.
// On the next open every existing memory drops its index and rebuilds it
// from src/ by itself, keeping tags, stars, tombstones, tokens and audit.
//
// Layout 3: the search index is package engine's (one document per turn,
// fields body, title, ids, date); FTS5's chunks_fts is gone and chunks keep
// their text in chunks.body, and whether it is searched in chunks.searched.
//
// Layout 4: layout 3 (on two branches at once) with the searched mark:
// plumbing (package plumbing) keeps its chunk rows but reaches no index.
//
// Layout 5: plumbing knows more of Ireneo's own answers (the CLI's recall
// --json, get, sessions, projects, audit, insights and forget output and
// command lines, and any answer behind Codex's exec header), so a rebuild
// takes them out of the index; forget looks for
// quotes of a forgotten conversation among the unsearched chunks, so it
// needs them there too. (Before its release, a CLI text answer after other
// commands' output in a shell's became unsearched too, from its marker on:
// still layout 5.)
//
// Layout 6: plumbing (through package answer's readers) also knows, after
// other commands' output in a shell's, the CLI's --json answers, its
// unmarked no-match and over-budget sentences and its context block from
// before the marker, so a rebuild takes them out of the index (one such
// no-match answer was being returned as a hit).
//
// Layout 7 (issue 27, the engine's side): runs of Han, Kana, Hangul, Thai,
// Lao, Khmer and Myanmar are indexed as character bigrams; identifiers are
// the engine's (also foo_bar.go, ERR_CONN_RESET); the body of a turn of
// more than 96 tokens is cut into passages its postings list; postings
// code ids compactly, and eng_docs keeps a count and hash of a document's
// terms instead of the terms.
//
// Layout 8 (issue 27, speed): postings leave out a frequency of one (most
// are): 14 % fewer posting bytes. Also in layout 8: the micro sign folds to
// Greek mu, as FTS5 folds it ("µs" and "μs" are one term).
//
// Layout 9: the engine's skip lists keep frontiers of frequency and length
// (engine/codec.go).
//
// Layout 10: sessions.times packs each conversation's turn times
// (turntimes.go), which a time filter reads instead of the turns table.
const indexLayoutVersion = 10

// indexSchema is the derived index, rebuilt from src/ by reindex and by Open
// when its layout changes. Bump indexLayoutVersion with every change here.
const indexSchema = `
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
	times BLOB NOT NULL DEFAULT x'',
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
	tokens INTEGER NOT NULL,
	searched INTEGER NOT NULL DEFAULT 1,
	body TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS chunks_sess ON chunks(sess, seq);
` + engine.Schema

// indexTables are the derived index's tables, dropped before a rebuild. List
// every table indexSchema creates (indexes go with their tables), and those
// of earlier layouts (chunks_fts, FTS5's, up to layout 2).
var indexTables = append([]string{"chunks_fts", "chunks", "turns", "sessions"}, engine.Tables...)

// catalogMigrations move the catalog forward: migration i takes it from
// version i to i+1, and the catalog's version is how many have run. Append
// a new one for any catalog change (never edit one that has shipped); all
// that are due run in one transaction on open.
var catalogMigrations = []string{
	// 1: the catalog of the first release, which recorded no version.
	// Everything is IF NOT EXISTS, so it also adopts a database from
	// that release as is.
	`
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
-- The first release's index had layout 1 and no record of it.
INSERT OR IGNORE INTO meta(key, value)
	SELECT 'index_layout', '1' WHERE EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'chunks_fts');
`,
	// 2: the erase journal (erasejournal.go): what a forget or scrub under
	// way will remove or rewrite, so the next open finishes it. op is the
	// job's folder under .staging ("" for a queued forget); path is
	// relative to the memory directory.
	`
CREATE TABLE IF NOT EXISTS erase_journal(
	id INTEGER PRIMARY KEY,
	op TEXT NOT NULL,
	kind TEXT NOT NULL,
	harness TEXT NOT NULL DEFAULT '',
	session_id TEXT NOT NULL DEFAULT '',
	path TEXT NOT NULL DEFAULT '',
	created INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS erase_journal_op ON erase_journal(op);
`,
}

// catalogVersion is the catalog version this build writes and reads.
var catalogVersion = len(catalogMigrations)

// metaIndexLayout is the meta key holding the index's layout version.
const metaIndexLayout = "index_layout"

// ErrNewerSchema is what NewerSchemaError matches with errors.Is: the
// database was written by a newer Ireneo, and this one will not touch it.
var ErrNewerSchema = errors.New("memory written by a newer version of Ireneo")

// NewerSchemaError refuses a database whose catalog is newer than this build
// knows: opening it could lose what the newer version keeps there.
type NewerSchemaError struct {
	Path  string // the database file
	Found int    // its catalog version
	Known int    // the newest this build knows
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("%s was written by a newer version of Ireneo (catalog schema %d; this one knows up to %d): update Ireneo to open it",
		e.Path, e.Found, e.Known)
}

// Is makes errors.Is(err, ErrNewerSchema) hold.
func (e *NewerSchemaError) Is(target error) bool { return target == ErrNewerSchema }

// upgradeWait is how long Open waits for another process that holds the
// write lock, most likely upgrading the same database (a rebuild of a large
// index takes longer than SQLite's busy timeout).
const upgradeWait = 10 * time.Minute

// upgrade brings the database to this build's schema: it migrates the
// catalog forward and, when the index layout differs, rebuilds the index
// from src/. A database already current costs two reads.
func (m *Memory) upgrade(ctx context.Context) error {
	start := time.Now()
	for {
		err := m.upgradeOnce(ctx)
		if !isBusy(err) || time.Since(start) > upgradeWait {
			return err
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return err
		}
	}
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

func (m *Memory) upgradeOnce(ctx context.Context) error {
	switch cat, layout, err := m.schemaVersions(ctx, m.db); {
	case err != nil:
		return err
	case cat > catalogVersion:
		return &NewerSchemaError{Path: m.dbPath(), Found: cat, Known: catalogVersion}
	case cat == catalogVersion && layout == indexLayoutVersion:
		return nil
	}
	rebuilt := false
	err := m.withTx(ctx, func(tx *sql.Tx) error {
		// Read again under the write lock: another process may have
		// upgraded meanwhile.
		cat, _, err := m.schemaVersions(ctx, tx)
		if err != nil {
			return err
		}
		if cat > catalogVersion {
			return &NewerSchemaError{Path: m.dbPath(), Found: cat, Known: catalogVersion}
		}
		for v := cat; v < catalogVersion; v++ {
			if _, err := tx.ExecContext(ctx, catalogMigrations[v]); err != nil {
				return fmt.Errorf("migrate catalog to version %d: %w", v+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(catalogVersion)); err != nil {
			return err
		}
		_, layout, err := m.schemaVersions(ctx, tx)
		if err != nil {
			return err
		}
		if layout == indexLayoutVersion {
			_, err := tx.ExecContext(ctx, indexSchema)
			return err
		}
		rebuilt = layout != 0 // 0: a new database, with nothing to fold away
		return m.rebuildIndex(ctx, tx)
	})
	if err != nil {
		var newer *NewerSchemaError
		if errors.As(err, &newer) {
			return err
		}
		return fmt.Errorf("upgrade %s: %w", m.dbPath(), err)
	}
	if rebuilt {
		// Fold the dropped index's pages away and pack the new one, as
		// reindex does.
		if err := m.pack(ctx); err != nil {
			return fmt.Errorf("upgrade %s: %w", m.dbPath(), err)
		}
	}
	return nil
}

// rebuildIndex drops the derived index, creates it in this build's layout
// and fills it from src/, within tx.
func (m *Memory) rebuildIndex(ctx context.Context, tx *sql.Tx) error {
	for _, t := range indexTables {
		if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("drop index table %s: %w", t, err)
		}
	}
	if _, err := tx.ExecContext(ctx, indexSchema); err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	files, err := m.srcFiles()
	if err != nil {
		return err
	}
	var rep ReindexReport
	if err := m.fillIndex(ctx, tx, files, &rep, nil); err != nil {
		return fmt.Errorf("rebuild index from %s: %w", SrcDir, err)
	}
	return m.metaSet(ctx, tx, metaIndexLayout, strconv.Itoa(indexLayoutVersion))
}

// schemaVersions reads the catalog version and the index layout version; a
// new, empty database reads as 0 and 0.
func (m *Memory) schemaVersions(ctx context.Context, q Querier) (catalog, layout int, err error) {
	if err := q.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&catalog); err != nil {
		return 0, 0, fmt.Errorf("read schema version: %w", err)
	}
	var hasMeta int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'`).Scan(&hasMeta); err != nil {
		return 0, 0, fmt.Errorf("read schema version: %w", err)
	}
	if hasMeta == 0 {
		return catalog, 0, nil
	}
	var v string
	switch err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, metaIndexLayout).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
		return catalog, 0, nil
	case err != nil:
		return 0, 0, fmt.Errorf("read index layout: %w", err)
	}
	layout, err = strconv.Atoi(v)
	if err != nil {
		return 0, 0, fmt.Errorf("read index layout %q: %w", v, err)
	}
	return catalog, layout, nil
}

// What readers outside memory (package recall, through a ReadTx) read of
// the index tables above: a turn is named by its conversation's row id and
// its seq (turns' key); it is the engine's document DocTurn names; a
// turn's preview is its stored one, else cut from its first searched
// chunks (PreviewSQL, then indexdoc.Preview); a conversation's projects are
// its session_projects rows (ProjectFilter).

// TurnKey names a turn by its conversation's row id and its seq.
type TurnKey struct {
	Sess int64
	Seq  int
}

// Doc is the turn's engine document.
func (k TurnKey) Doc() uint64 { return indexdoc.DocID(k.Sess, k.Seq) }

// DocTurn is the turn an engine document is.
func DocTurn(doc uint64) TurnKey { return TurnKey{indexdoc.DocSession(doc), indexdoc.DocSeq(doc)} }

// Chunk is one chunk of a turn, for display and the budget.
type Chunk struct {
	ID       int64
	Body     string
	Tokens   int // o200k, counted at import
	Searched bool
}

// PreviewSQL is, in a query over turns t, the start of t's searched text
// when t keeps no preview of its own (” when it does); indexdoc.Preview
// cuts the preview from it.
var PreviewSQL = previewSQL
