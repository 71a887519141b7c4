//go:build unix

package memory

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// Every file in the memory is 0600 and every folder 0700, WAL and SHM
// included, even with a permissive umask in an existing 0755 folder.
func TestMemoryFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "mem")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	mustIngest(t, m, conv("p1", funes.HarnessCodex, "", "", day0, "private words", "ok"))
	addAuditRow(t, m, auditRow{Client: "x", Tool: "recall", Args: `{"query":"private"}`})
	b, err := m.NewBatch(IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Discard()
	b.Add(ctx, conv("p2", funes.HarnessCodex, "", "", day0, "staged words", "ok"))
	seen := map[string]bool{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := d.Info()
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s is %v, want %v", p, fi.Mode().Perm(), want)
		}
		seen[filepath.Base(p)] = true
		return nil
	})
	for _, f := range []string{DBName + "-wal", DBName + "-shm", stagedName} {
		if !seen[f] {
			t.Errorf("%s not made: the test checks nothing", f)
		}
	}
}
