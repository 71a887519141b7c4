package memory

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// A scrub killed after linking an old file, before its commit replaced
// it: the link still shares the live file, which the next scrub's
// BeginScrub must leave intact while it removes the link. (That an apply
// leaves no link and no secret is memscrub's test.)
func TestBeginScrubCleansCrashLeftovers(t *testing.T) {
	m := openTest(t)
	mustIngest(t, m, conv("deploy-1", funes.HarnessChatGPT, "Staging bucket deploy fails", "", day0, "the marmalade pipeline fails", "rotate the key"))
	rel := srcPath(funes.HarnessChatGPT, "deploy-1")
	link, err := m.linkOld(rel)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(m.Dir(), rel))
	m.BeginScrub().Discard()
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
