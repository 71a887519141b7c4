package memory

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"
)

// testdata/v0-memory was written by the first release (commit e126828, which
// recorded no schema version) with its own CLI:
//
//	ireneo import importers/testdata/{chatgpt,claude,codex,claudecode}
//	ireneo tag c-2 ireneo catalog-design; ireneo tag conv-branch blocks
//	ireneo untag 0195a000-…-000000000002 other     (a derived project)
//	ireneo star c-2; ireneo star 0195a000-…-000000000001; star+unstar conv-gpt
//	ireneo forget --yes c-3
//	ireneo token create laptop; token create scoped --project ireneo;
//	token create gone; token revoke gone           (--token-store file)
//	one MCP recall over stdio                      (one audit row)
//
// The recall receipts below are what that release answered.
const v0Memory = "testdata/v0-memory"

// copyMemory copies a memory directory into a fresh temporary one, so a
// test can open (and upgrade) it without touching testdata.
func copyMemory(t *testing.T, from string) string { return funestest.CopyTree(t, from) }

// checkV0Catalog asserts that everything the first release's person chose
// is still there (recall/upgrade_test.go checks that recall answers as it did).
func checkV0Catalog(t *testing.T, m *Memory) {
	t.Helper()
	ctx := context.Background()

	ss := listed(t, m)
	if n := len(ss); n != 9 {
		t.Errorf("%d conversations, want the 9 left after the forget", n)
	}
	tags := map[string][]string{}
	var starred []string
	for _, s := range ss {
		if len(s.Projects) > 0 {
			tags[s.SessionID] = s.Projects
		}
		if s.Starred {
			starred = append(starred, s.SessionID)
		}
	}
	slices.Sort(starred)
	if want := []string{"0195a000-0000-7000-8000-000000000001", "c-2"}; !slices.Equal(starred, want) {
		t.Errorf("starred = %v, want %v", starred, want)
	}
	wantTags := map[string][]string{
		"c-2":                                  {"catalog-design", "ireneo"},
		"conv-branch":                          {"blocks"},
		"conv-nocurrent":                       {"chatgpt-project-01234567"},
		"0195a000-0000-7000-8000-000000000001": {"ireneo"},
		"5f1c2d3e-0000-4000-8000-000000000003": {"legacy-tool"},
		"7d0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b": {"llama.cpp"},
	}
	if !reflect.DeepEqual(tags, wantTags) {
		t.Errorf("tags = %v\nwant   %v (the untagged derived project 'other' must stay untagged)", tags, wantTags)
	}

	if dead, err := m.isTombstoned(ctx, "claude", "c-3"); err != nil || !dead {
		t.Errorf("c-3's tombstone: %v, %v; want it kept", dead, err)
	}
	rep, err := m.Ingest(ctx, []*funes.Session{conv("c-3", "claude", "Old export", "", day0, "back?")}, IngestOptions{})
	if err != nil || rep.Forgotten != 1 {
		t.Errorf("re-importing forgotten c-3: %+v, %v; want it skipped as forgotten", rep, err)
	}

	// The tokens' rows, as package tokenstore reads them.
	type tok struct {
		name, hash, scope string
		live              bool
	}
	var got []tok
	err = EachRow(ctx, m.db, `SELECT name, hash, projects, revoked FROM tokens ORDER BY name`, nil, func(rows *sql.Rows) error {
		var (
			name, projects string
			hash           []byte
			revoked        int64
			scope          []string
		)
		if err := rows.Scan(&name, &hash, &projects, &revoked); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(projects), &scope); err != nil {
			return err
		}
		got = append(got, tok{name, hex.EncodeToString(hash), strings.Join(scope, ","), revoked == 0})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []tok{
		{"gone", "f0b9d98007135b497d607a554dc6e13eaf9c301455000c4ace76245c93c7e8e2", "", false},
		{"laptop", "b59324c3d0927a92e0d0af006bd6a541b64d31675fc12a6f7b29fe08371c9b39", "", true},
		{"scoped", "55d4770be85ca513ad56e07c3205df1aae71f4a5f435b509c69628af1bc03e2a", "ireneo", true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tokens = %+v\nwant     %+v", got, want)
	}

	if audit := auditRows(t, m); len(audit) != 1 || audit[0].Tool != "recall" {
		t.Errorf("audit = %+v; want the one recall", audit)
	}

}

func userVersion(t *testing.T, dir string) int {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOpenUpgradesFirstReleaseMemory(t *testing.T) {
	t.Parallel()
	dir := copyMemory(t, v0Memory)
	if v := userVersion(t, dir); v != 0 {
		t.Fatalf("test data has schema version %d; it must stay as the first release wrote it", v)
	}
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cat, layout, err := m.schemaVersions(context.Background(), m.db)
	if err != nil || cat != catalogVersion || layout != indexLayoutVersion {
		t.Fatalf("after open: catalog %d, layout %d, %v; want %d and %d", cat, layout, err, catalogVersion, indexLayoutVersion)
	}
	checkV0Catalog(t, m)
}

// TestOpenRebuildsIndexOfAnotherLayout: an index whose recorded layout is
// not this build's is dropped and rebuilt from src/, and the catalog stays.
func TestOpenRebuildsIndexOfAnotherLayout(t *testing.T) {
	t.Parallel()
	dir := copyMemory(t, v0Memory)
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Pretend the index has another layout, and spoil it so that only a
	// rebuild can answer recall.
	for _, q := range []string{
		`UPDATE meta SET value='0' WHERE key='index_layout'`,
		`DELETE FROM eng_terms`,
		`DELETE FROM eng_blocks`,
		`DELETE FROM turns`,
	} {
		if _, err := m.db.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	m.Close()

	m, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, layout, _ := m.schemaVersions(ctx, m.db); layout != indexLayoutVersion {
		t.Errorf("layout after rebuild = %d, want %d", layout, indexLayoutVersion)
	}
	checkV0Catalog(t, m)
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mustIngest(t, m, conv("s1", "claude", "kept", "", day0, "a question", "an answer"))
	if _, err := m.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	m.Close()
	before, err := os.ReadFile(filepath.Join(dir, DBName))
	if err != nil {
		t.Fatal(err)
	}

	_, err = Open(dir)
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("open a newer database: %v, want ErrNewerSchema", err)
	}
	var newer *NewerSchemaError
	if !errors.As(err, &newer) || newer.Found != 99 || newer.Known != catalogVersion {
		t.Errorf("error = %#v", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, filepath.Join(dir, DBName)) || !strings.Contains(msg, "newer") {
		t.Errorf("message %q: want one line naming the file and saying it is newer", msg)
	}
	after, _ := os.ReadFile(filepath.Join(dir, DBName))
	if string(before) != string(after) {
		t.Error("refusing a newer database changed its file")
	}
	if v := userVersion(t, dir); v != 99 {
		t.Errorf("user_version = %d after refusal, want 99", v)
	}
}

// TestFailedMigrationChangesNothing: migrations run in one transaction, so
// a failing one leaves the catalog as it was.
func TestFailedMigrationChangesNothing(t *testing.T) {
	// Not parallel: it changes the package's migration list.
	dir := copyMemory(t, v0Memory)
	saved := catalogMigrations
	catalogMigrations = append(slices.Clone(saved), `CREATE TABLE later(x); INSERT INTO no_such_table VALUES(1);`)
	savedVersion := catalogVersion
	catalogVersion = len(catalogMigrations)
	defer func() { catalogMigrations, catalogVersion = saved, savedVersion }()

	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("version %d", len(saved)+1)) {
		t.Fatalf("open with a failing migration: %v, want it to fail naming the migration", err)
	}
	if v := userVersion(t, dir); v != 0 {
		t.Errorf("user_version = %d after a failed migration, want 0", v)
	}
	catalogMigrations, catalogVersion = saved, savedVersion
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var later int
	m.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name='later'`).Scan(&later)
	if later != 0 {
		t.Error("the failed migration's first statement was kept")
	}
	checkV0Catalog(t, m)
}

func TestOpenNewMemoryRecordsVersions(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	cat, layout, err := m.schemaVersions(context.Background(), m.db)
	if err != nil || cat != catalogVersion || layout != indexLayoutVersion {
		t.Errorf("new memory: catalog %d, layout %d, %v; want %d and %d", cat, layout, err, catalogVersion, indexLayoutVersion)
	}
}

// TestConcurrentOpensUpgradeOnce: processes that open an old memory at the
// same moment (the tray app and a client's `ireneo mcp`) all get it,
// upgraded once, with the catalog whole.
func TestConcurrentOpensUpgradeOnce(t *testing.T) {
	t.Parallel()
	dir := copyMemory(t, v0Memory)
	ms := make([]*Memory, 4)
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ms[i], errs[i] = Open(dir) // each its own connection pool, like a process
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		defer ms[i].Close()
	}
	checkV0Catalog(t, ms[len(ms)-1])
}
