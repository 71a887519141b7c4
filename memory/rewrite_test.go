package memory

import (
	"bytes"
	"os"
	"path/filepath"
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
