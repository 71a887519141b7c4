package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// watchStaged hard-links the staging file of every import batch in the
// memory from a folder outside it: a link sees what is done to the file's
// blocks after the file itself is gone, so it tells a file overwritten
// before removal from one only removed.
func watchStaged(t *testing.T, dir string) []string {
	t.Helper()
	batches, _ := filepath.Glob(filepath.Join(dir, ".staging", "batch-*", "staged.jsonl"))
	if len(batches) == 0 {
		t.Fatalf("no staging file to watch in %s", dir)
	}
	out := t.TempDir()
	var links []string
	for i, p := range batches {
		l := filepath.Join(out, filepath.Base(filepath.Dir(p))+"-"+string(rune('a'+i)))
		if err := os.Link(p, l); err != nil {
			t.Skipf("hard link beside the memory: %v", err)
		}
		links = append(links, l)
	}
	return links
}

// checkZeroedLinks fails unless each watched file held bytes and now holds
// only zeros.
func checkZeroedLinks(t *testing.T, links []string) {
	t.Helper()
	for _, l := range links {
		data, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if left := bytes.Trim(data, "\x00"); len(data) == 0 || len(left) > 0 {
			t.Fatalf("a staging file was removed without being overwritten: %d of its %d bytes left (%.80q)", len(left), len(data), left)
		}
	}
}
