package memory

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// A scrub of an earlier version killed after linking an old file, before
// its commit replaced it: the link still shares the live file, which the
// next BeginRewrite must leave intact while it removes the link. (That a
// scrub's apply leaves no link and no secret is memscrub's test.)
func TestBeginRewriteCleansCrashLeftovers(t *testing.T) {
	m := openTest(t)
	mustIngest(t, m, conv("deploy-1", funes.HarnessChatGPT, "Staging bucket deploy fails", "", day0, "the marmalade pipeline fails", "rotate the key"))
	rel := srcPath(funes.HarnessChatGPT, "deploy-1")
	link, err := m.linkOld(rel)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(m.Dir(), rel))
	m.BeginRewrite().Discard()
	after, _ := os.ReadFile(filepath.Join(m.Dir(), rel))
	if len(before) == 0 || !bytes.Equal(before, after) {
		t.Fatal("cleanup zeroed a live file")
	}
	if _, err := os.Stat(link); !os.IsNotExist(err) {
		t.Fatal("cleanup left the link")
	}
	if ls, _ := filepath.Glob(filepath.Join(m.Dir(), ".staging", oldPrefix+"*")); len(ls) != 0 {
		t.Fatalf("cleanup left %v", ls)
	}
}

// TestOpenShredsOldScrubLinks: a scrub --apply of a version before the
// erase journal, killed after its commit, left a hard link to the old,
// unredacted file in .staging/scrub-old-*, which no later open, import,
// reindex or forget removed. The next open overwrites and removes it.
func TestOpenShredsOldScrubLinks(t *testing.T) {
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "OldLinkSecret7731"
	mustIngest(t, m, conv("deploy-1", funes.HarnessChatGPT, "Deploy", "", day0, "the key is "+secret, "rotate the key"))
	rel := srcPath(funes.HarnessChatGPT, "deploy-1")
	link, err := m.linkOld(rel)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	// What the old commit did next: the redacted file renamed over it.
	live := filepath.Join(dir, rel)
	redacted := bytes.ReplaceAll(mustRead(t, live), []byte(secret), []byte("[REDACTED:x]"))
	tmp := live + ".tmp"
	if err := os.WriteFile(tmp, redacted, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, live); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(bytes.ToLower(mustRead(t, link)), bytes.ToLower([]byte(secret))) {
		t.Fatal("positive control: the link should hold the old text")
	}
	m, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := os.Stat(link); !os.IsNotExist(err) {
		t.Errorf("the open left the old link %s", link)
	}
	if found := grepDir(t, filepath.Join(dir, stagingDir), secret); len(found) > 0 {
		t.Errorf("the old text is still in %v", found)
	}
	if !bytes.Equal(mustRead(t, live), redacted) {
		t.Error("the open changed the live, redacted file")
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A rewrite commits its conversations and its catalog edits together: an
// edit that fails leaves the file, the index and the catalog as they were
// (its job stays in the journal for the next finisher, which only erases
// the database); one that succeeds goes in with the new version, the old
// text gone from the file and the index.
func TestRewriteCommitsCatalogEditsWithTheConversations(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	const secret = "MarmaladeKey4471"
	mustIngest(t, m, conv("deploy-1", funes.HarnessChatGPT, "Deploy", "", day0, "the key is "+secret, "rotate the key"))
	rel := srcPath(funes.HarnessChatGPT, "deploy-1")
	before := mustRead(t, filepath.Join(m.Dir(), rel))
	if !bytes.Contains(before, []byte(secret)) || !indexHas(t, m, strings.ToLower(secret)) {
		t.Fatal("positive control: the file and the index should hold the secret")
	}
	redacted := conv("deploy-1", funes.HarnessChatGPT, "Deploy", "", day0, "the key is [REDACTED:x]", "rotate the key")
	edit := func(c *CatalogTx) error { return c.SetMeta(ctx, "rewrite_test", "in") }
	journal := func() (n int) {
		if err := m.db.QueryRowContext(ctx, `SELECT count(*) FROM erase_journal`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	w := m.BeginRewrite()
	if err := w.Conversation(ctx, redacted); err != nil {
		t.Fatal(err)
	}
	w.Catalog(edit)
	w.Catalog(func(*CatalogTx) error { return errors.New("refused") })
	if err := w.Commit(ctx); err == nil {
		t.Fatal("a failing catalog edit committed")
	}
	if _, err := m.FinishErases(ctx); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustRead(t, filepath.Join(m.Dir(), rel)), before) || !indexHas(t, m, strings.ToLower(secret)) || m.metaGet(ctx, "rewrite_test") != "" || journal() != 0 {
		t.Fatalf("a rewrite whose catalog edit failed changed something: file same %v, indexed %v, meta %q, journal %d",
			bytes.Equal(mustRead(t, filepath.Join(m.Dir(), rel)), before), indexHas(t, m, strings.ToLower(secret)), m.metaGet(ctx, "rewrite_test"), journal())
	}

	w = m.BeginRewrite()
	if err := w.Conversation(ctx, redacted); err != nil {
		t.Fatal(err)
	}
	w.Catalog(edit)
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(mustRead(t, filepath.Join(m.Dir(), rel)), []byte(secret)) || indexHas(t, m, strings.ToLower(secret)) {
		t.Fatal("the old text is still in the file or the index")
	}
	if m.metaGet(ctx, "rewrite_test") != "in" || journal() != 0 {
		t.Fatal("the catalog edit is missing, or the job stayed in the journal")
	}
	if found := grepDir(t, m.Dir(), secret); len(found) > 0 {
		t.Fatalf("the old text is still in %v", found)
	}
}
