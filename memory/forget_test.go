package memory

import (
	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"

	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"time"

	"github.com/ireneo-app/ireneo/querywords"
)

// die leaves a batch as a killed import would: files open no more, lock
// released, staging folder in place.
func (b *Batch) die() {
	b.done = true
	b.file.Close()
	b.lock.Close()
	b.lock = nil
}

func stagingDirs(t *testing.T, m *Memory) []string {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(m.Dir(), stagingDir))
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func tombstoned(t *testing.T, m *Memory, harness, id string) bool {
	t.Helper()
	when, err := tombstoneTime(context.Background(), m.db, harness, id)
	if err != nil {
		t.Fatal(err)
	}
	return when != 0
}

// A forget while an import holding the conversation is under way: the
// import skips it, the tombstone survives that import and the next, and no
// file (staging included) keeps its text, at any point after the forget.
func TestForgetDuringImport(t *testing.T) {
	ctx := context.Background()
	const marker = "WombatMarker4242"
	for _, tc := range []struct {
		name           string
		stored, revive bool // an older copy is stored; the import brings back forgotten ones
	}{
		{"older copy stored", true, false},
		{"only in the import", false, false},
		{"import with include-forgotten", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := openTest(t)
			other, err := Open(m.Dir()) // the forget comes from another connection, as from another process
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			old := conv("w1", funes.HarnessChatGPT, "Wombats", "", day0, "first about wombats", "answer")
			grown := conv("w1", funes.HarnessChatGPT, "Wombats", "", day0, "first about wombats", "answer", "later "+marker)
			keep := conv("k1", funes.HarnessChatGPT, "Tea", "", day0, "tea", "good")
			if tc.stored {
				mustIngest(t, m, old)
			}
			if tc.revive {
				if _, err := m.Forget(ctx, []string{"w1"}, nil); err != nil {
					t.Fatal(err)
				}
			}
			b, err := m.NewBatch(IngestOptions{IncludeForgotten: tc.revive})
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Add(ctx, keep); err != nil {
				t.Fatal(err)
			}
			if err := b.Add(ctx, grown); err != nil {
				t.Fatal(err)
			}
			if len(grepDir(t, m.Dir(), marker)) == 0 {
				t.Fatal("the marker should be staged")
			}
			rep, err := other.Forget(ctx, []string{"w1"}, nil)
			if err != nil || len(rep.Sessions) != 1 {
				t.Fatalf("forget during import: %v %+v", err, rep)
			}
			if found := grepDir(t, m.Dir(), marker); len(found) > 0 {
				t.Fatalf("after forget, the marker is still in %v", found)
			}
			r, err := b.Commit(ctx, nil)
			if err != nil || r.Forgotten != 1 || r.Updated+r.New != 1 {
				t.Fatalf("import: %v %+v", err, r)
			}
			if !tombstoned(t, m, funes.HarnessChatGPT, "w1") {
				t.Fatal("the import deleted the tombstone")
			}
			if found := grepDir(t, m.Dir(), marker); len(found) > 0 {
				t.Fatalf("after the import, the marker is in %v", found)
			}
			if _, err := m.LoadSession(ctx, "w1"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("forgotten conversation is back: %v", err)
			}
			if r := mustIngest(t, m, grown); r.Forgotten != 1 || r.New+r.Updated != 0 {
				t.Fatalf("next import: %+v", r)
			}
			if !tombstoned(t, m, funes.HarnessChatGPT, "w1") || len(grepDir(t, m.Dir(), marker)) > 0 {
				t.Fatal("the next import undid the forget")
			}
			if d := stagingDirs(t, m); len(d) != 0 {
				t.Fatalf("staging left: %v", d)
			}
		})
	}
}

// A forget between the import's transaction and the rename of its files
// into src/: the import erases the file it placed.
func TestForgetBetweenCommitAndRename(t *testing.T) {
	ctx := context.Background()
	const marker = "NumbatMarker5151"
	m := openTest(t)
	b, err := m.NewBatch(IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ctx, conv("n1", funes.HarnessClaude, "Numbats", "", day0, "about "+marker, "ok")); err != nil {
		t.Fatal(err)
	}
	afterCommitTx = func() {
		if _, err := m.Forget(ctx, []string{"n1"}, nil); err != nil {
			t.Errorf("forget: %v", err)
		}
	}
	defer func() { afterCommitTx = nil }()
	r, err := b.Commit(ctx, nil)
	if err != nil || r.Forgotten != 1 || r.New != 0 {
		t.Fatalf("import: %v %+v", err, r)
	}
	if found := grepDir(t, m.Dir(), marker); len(found) > 0 {
		t.Fatalf("marker in %v", found)
	}
}

// What killed imports leave is recovered or erased on the next open, and
// forget reaches it.
func TestLeftoversOfDeadImports(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// 1. An import killed while staging: staged.jsonl holds the text.
	dead, err := m.NewBatch(IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := dead.Add(ctx, conv("s1", funes.HarnessCodex, "", "", day0, "StagedOnlyMarker one", "ok")); err != nil {
		t.Fatal(err)
	}
	dead.die()
	// 2. An import killed after its transaction, before the rename: the
	// conversation exists only as an in-* file.
	mustIngest(t, m, conv("c1", funes.HarnessCodex, "", "", day0, "CommittedMarker two", "ok"))
	c1 := mustRef(t, m, "c1")
	half, err := m.NewBatch(IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	half.die()
	if err := os.Rename(filepath.Join(dir, c1.path), filepath.Join(half.dir, incomingPrefix+"000001")); err != nil {
		t.Fatal(err)
	}
	// 3. The same from an older version: src/**.funes.jsonl.incoming, one
	// committed, one not.
	mustIngest(t, m, conv("c2", funes.HarnessCodex, "", "", day0, "LegacyCommitted three", "ok"))
	p2 := filepath.Join(dir, srcPath(funes.HarnessCodex, "c2"))
	if err := os.Rename(p2, p2+".incoming"); err != nil {
		t.Fatal(err)
	}
	unc, _ := funes.MarshalSession(conv("u1", funes.HarnessCodex, "", "", day0, "LegacyUncommitted four", "ok"))
	os.WriteFile(filepath.Join(dir, srcPath(funes.HarnessCodex, "u1"))+".incoming", unc, 0o600)
	m.db.Exec(`DELETE FROM meta WHERE key=?`, legacyIncomingKey) // as an older version leaves it
	// Other users of .staging (restore, scrub) are not taken for imports.
	other := filepath.Join(dir, stagingDir, "restore-123")
	os.MkdirAll(other, 0o700)
	os.WriteFile(filepath.Join(other, "x"), []byte("restore file"), 0o600)
	// 4. A live import, in this process: left alone.
	live, err := m.NewBatch(IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Add(ctx, conv("l1", funes.HarnessCodex, "", "", day0, "LiveMarker five", "ok")); err != nil {
		t.Fatal(err)
	}
	first := m
	defer first.Close() // the live import's memory stays open
	m, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if d := stagingDirs(t, m); len(d) != 2 || d[0] != filepath.Base(live.dir) || d[1] != "restore-123" {
		t.Fatalf("staging after open: %v (live %s)", d, live.dir)
	}
	os.RemoveAll(other)
	for _, marker := range []string{"StagedOnlyMarker", "LegacyUncommitted"} {
		if found := grepDir(t, dir, marker); len(found) > 0 {
			t.Fatalf("%s left in %v", marker, found)
		}
	}
	for _, id := range []string{"c1", "c2"} {
		if _, err := m.LoadSession(ctx, id); err != nil {
			t.Fatalf("committed %s not recovered: %v", id, err)
		}
	}
	// Forget reaches recovered files, and a second leftover made after open.
	again, err := m.NewBatch(IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	half2 := filepath.Join(dir, mustRef(t, m, "c2").path)
	again.die()
	os.Rename(half2, filepath.Join(again.dir, incomingPrefix+"000001"))
	if _, err := m.Forget(ctx, []string{"c1", "c2"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, marker := range []string{"CommittedMarker", "LegacyCommitted"} {
		if found := grepDir(t, dir, marker); len(found) > 0 {
			t.Fatalf("%s left in %v after forget", marker, found)
		}
	}
	// The live import goes on and commits.
	if r, err := live.Commit(ctx, nil); err != nil || r.New != 1 {
		t.Fatalf("live import: %v %+v", err, r)
	}
	if d := stagingDirs(t, m); len(d) != 0 {
		t.Fatalf("staging after all: %v", d)
	}
}

func mustRef(t *testing.T, m *Memory, id string) sessionRef {
	t.Helper()
	ref, err := findSession(context.Background(), m.db, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// An import that fails or is cancelled removes its staging folder.
func TestImportCleansUpOnEveryExit(t *testing.T) {
	m := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	b, err := m.NewBatch(IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 600; i++ {
		if err := b.Add(ctx, conv(fmt.Sprintf("x%d", i), "funes", "", "", day0, "cancel me", "ok")); err != nil {
			t.Fatal(err)
		}
	}
	calls := 0
	_, err = b.Commit(ctx, func(done, total int) {
		calls++
		cancel()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("commit after cancel: %v", err)
	}
	if d := stagingDirs(t, m); len(d) != 0 {
		t.Fatalf("staging after cancel: %v", d)
	}
	var incoming []string
	filepath.WalkDir(m.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(filepath.Base(p), "in") && strings.HasSuffix(p, ".incoming") {
			incoming = append(incoming, p)
		}
		return nil
	})
	if len(incoming) > 0 {
		t.Fatalf("incoming files left: %v", incoming)
	}
}

// An older copy (a prefix of the stored turns, or an older last turn) does
// not replace the stored conversation.
func TestOlderCopyDoesNotReplace(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	full := conv("o1", funes.HarnessChatGPT, "Pumps", "", day0, "pump P-003 leaks", "raise MT-4471", "closed ZZMARK")
	mustIngest(t, m, full)
	prefix := conv("o1", funes.HarnessChatGPT, "Pumps", "", day0, "pump P-003 leaks")
	if r := mustIngest(t, m, prefix); r.Older != 1 || r.Updated != 0 {
		t.Fatalf("prefix: %+v", r)
	}
	stale := conv("o1", funes.HarnessChatGPT, "Pumps", "", day0.Add(-time.Hour), "pump P-003 leaks", "raise MT-4471", "an edit")
	if r := mustIngest(t, m, stale); r.Older != 1 || r.Updated != 0 {
		t.Fatalf("older last turn: %+v", r)
	}
	if s, err := m.LoadSession(ctx, "o1"); err != nil || len(s.Turns) != 3 || !strings.Contains(s.Turns[2].Text(), "ZZMARK") {
		t.Fatalf("stored copy changed: %v %+v", err, s)
	}
	grown := conv("o1", funes.HarnessChatGPT, "Pumps", "", day0, "pump P-003 leaks", "raise MT-4471", "closed ZZMARK", "reopened")
	if r := mustIngest(t, m, grown); r.Updated != 1 {
		t.Fatalf("grown copy: %+v", r)
	}
	// Fewer turns that are not a prefix, and no older: an edited branch.
	branch := conv("o1", funes.HarnessChatGPT, "Pumps", "", day0.Add(time.Hour), "pump P-003 leaks, edited")
	if r := mustIngest(t, m, branch); r.Updated != 1 {
		t.Fatalf("edited branch: %+v", r)
	}
}

// The id → file name mapping is one to one: a literal id that looks like a
// hashed name gets a file of its own, and a clash is refused.
func TestCraftedIDsDoNotCollide(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	a := conv("a/b", "funes", "", "", day0, "first conversation AAAMARK", "ok")
	hashed := filepath.Base(srcPath("funes", "a/b"))
	crafted := strings.TrimSuffix(hashed, ".funes.jsonl")
	if !strings.HasPrefix(crafted, "id-") {
		t.Fatalf("unexpected hashed name %s", crafted)
	}
	b := conv(crafted, "funes", "", "", day0, "second conversation BBBMARK", "ok")
	if r := mustIngest(t, m, a); r.New != 1 {
		t.Fatal(r)
	}
	if r := mustIngest(t, m, b); r.New != 1 {
		t.Fatal(r)
	}
	if srcPath("funes", "a/b") == srcPath("funes", crafted) {
		t.Fatal("two ids share a file name")
	}
	if _, err := m.Reindex(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a/b", crafted} {
		if _, err := m.LoadSession(ctx, id); err != nil {
			t.Fatalf("%s lost after reindex: %v", id, err)
		}
	}
	// A file already at a new conversation's path, holding another one, is
	// not written over.
	squat := filepath.Join(m.Dir(), srcPath("funes", "c1"))
	other, _ := funes.MarshalSession(conv("zz", "funes", "", "", day0, "squatter", "ok"))
	os.WriteFile(squat, other, 0o600)
	if _, err := m.Ingest(ctx, []*funes.Session{conv("c1", "funes", "", "", day0, "new one", "ok")}, IngestOptions{}); !errors.Is(err, ErrPathTaken) {
		t.Fatalf("clash: %v", err)
	}
	// A literal id stored under the old scheme holds the name a hashed id now
	// gets: the hashed one is refused, not written over it.
	m2 := openTest(t)
	old := conv("id-"+shortHash("c/d"), "funes", "", "", day0, "stored first", "ok")
	oldData, _ := funes.MarshalSession(old)
	os.MkdirAll(filepath.Join(m2.Dir(), SrcDir, "funes"), 0o700)
	os.WriteFile(filepath.Join(m2.Dir(), SrcDir, "funes", old.ID+".funes.jsonl"), oldData, 0o600)
	if _, err := m2.Reindex(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Ingest(ctx, []*funes.Session{conv("c/d", "funes", "", "", day0, "second", "ok")}, IngestOptions{}); !errors.Is(err, ErrPathTaken) {
		t.Fatalf("clash with an old-style name: %v", err)
	}
	if s, err := m2.LoadSession(ctx, old.ID); err != nil || s.Turns[0].Text() != "stored first" {
		t.Fatalf("old-style conversation changed: %v", err)
	}
	// A conversation stored under an old-style name keeps it when updated.
	legacy := conv("id-0123456789abcdef01234567", "funes", "", "", day0, "legacy", "ok")
	data, _ := funes.MarshalSession(legacy)
	legacyPath := filepath.Join(m.Dir(), SrcDir, "funes", legacy.ID+".funes.jsonl")
	os.Remove(squat)
	os.WriteFile(legacyPath, data, 0o600)
	if _, err := m.Reindex(ctx, nil); err != nil {
		t.Fatal(err)
	}
	legacy.Turns = append(legacy.Turns, funes.Turn{TurnUUID: "x", Seq: 2, TS: day0.Add(time.Hour), Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: "more"}}})
	if r := mustIngest(t, m, legacy); r.Updated != 1 {
		t.Fatalf("legacy update: %+v", r)
	}
	if s, err := m.LoadSession(ctx, legacy.ID); err != nil || len(s.Turns) != 3 {
		t.Fatalf("legacy: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Dir(legacyPath))
	n := 0
	for _, e := range ents {
		if strings.Contains(e.Name(), "funes.jsonl") {
			n++
		}
	}
	if n != 3 { // a/b, the crafted one, the legacy one
		t.Fatalf("files in src/funes: %d", n)
	}
}

// Forget erases the audit rows that name the conversation or whose query
// finds it, and leaves the others.
func TestForgetErasesAuditRows(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("conv-77a1", funes.HarnessClaude, "Layoff plans for Q3", "", day0, "the KX-7781 reorganisation list", "noted"),
		conv("keep-1", funes.HarnessClaude, "Tea", "", day0, "which tea is best", "green"),
	)
	for _, args := range []string{
		`{"query":"KX-7781"}`,                // found it by identifier
		`{"query":"layoff"}`,                 // found it by a title word, stemmed
		`{"session_id":"conv-77a1"}`,         // named it
		`{"session_id":"claude:conv-77a1"}`,  // named it with its source
		`{"query":"green tea","top_k":5}`,    // stays
		`{"session_id":"keep-1","window":2}`, // stays
	} {
		addAuditRow(t, m, auditRow{Client: "c", Tool: "recall", Args: args})
	}
	gone := indexTerms("the KX-7781 reorganisation list Layoff plans for Q3")
	if !indexHas(t, m, "kx7781") || !indexHas(t, m, engine.Term("reorganisation")) {
		t.Fatal("the conversation's terms should be indexed before the forget")
	}
	if _, err := m.Forget(ctx, []string{"conv-77a1"}, nil); err != nil {
		t.Fatal(err)
	}
	// The index's own term dictionary: nothing only the forgotten
	// conversation said, and (positive control) the kept one's words.
	if !indexHas(t, m, engine.Term("green")) {
		t.Fatal("positive control: the kept conversation's terms are gone")
	}
	for _, term := range gone {
		if indexHas(t, m, term) {
			t.Errorf("index term %q of the forgotten conversation is still there", term)
		}
	}
	var got []string
	for _, e := range auditRows(t, m) {
		got = append(got, e.Args)
	}
	if len(got) != 2 || !strings.Contains(strings.Join(got, " "), "green tea") || !strings.Contains(strings.Join(got, " "), "keep-1") {
		t.Fatalf("audit left: %v", got)
	}
	for _, marker := range []string{"KX-7781", "conv-77a1", "layoff", "kx7781", "reorganis"} {
		if found := grepDir(t, m.Dir(), marker); len(found) > 0 {
			t.Fatalf("%s still in %v", marker, found)
		}
	}
}

// indexTerms are the engine terms text leaves in the index: its stemmed
// tokens and its identifiers, but words anyone says ("the", "for", "list").
func indexTerms(text string) []string {
	var out []string
	for _, t := range engine.Analyze(text) {
		if !querywords.IsStopword(t) && t != "list" && t != "plan" {
			out = append(out, t)
		}
	}
	for _, id := range querywords.Identifiers(text) {
		out = append(out, engine.Term(id))
	}
	return out
}

// indexHas reports whether the engine's term dictionary, postings or
// documents hold term.
func indexHas(t *testing.T, m *Memory, term string) bool {
	t.Helper()
	ok, err := engine.HasTerm(context.Background(), m.db, term)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}
