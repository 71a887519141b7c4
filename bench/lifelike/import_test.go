package lifelike

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
)

// TestImportEndToEnd imports a small history with the real importers and
// checks every gold conversation and turn is in the memory, and that the
// stored gold turn holds the answer.
func TestImportEndToEnd(t *testing.T) {
	exp := t.TempDir()
	d := Generate(Config{N: 60, Seed: 42})
	if err := d.WriteExports(exp); err != nil {
		t.Fatal(err)
	}
	memDir := filepath.Join(t.TempDir(), "memory")
	m, err := memory.Open(memDir)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := importers.Run(context.Background(), m, []string{exp}, importers.Options{})
	if cerr := m.Close(); cerr != nil {
		t.Error(cerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed > 0 || len(sum.Skipped) > 0 {
		t.Fatalf("import: %d failed %v, skipped %v", sum.Failed, sum.Failures, sum.Skipped)
	}
	if sum.New != d.cfg.N+d.SubAgents {
		t.Errorf("import: %d new conversations, want %d and %d sub-agents", sum.New, d.cfg.N, d.SubAgents)
	}
	// Read what was stored, straight from the funes jsonl files.
	turns := map[string]map[string]string{} // harness/session → turn uuid → text
	err = filepath.WalkDir(filepath.Join(memDir, "src"), func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(p, ".funes.jsonl") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		ss, _, err := funes.ReadSessions(f)
		if err != nil {
			return err
		}
		for _, s := range ss {
			k := s.Harness + "/" + s.ID
			if turns[k] == nil {
				turns[k] = map[string]string{}
			}
			for _, tu := range s.Turns {
				turns[k][tu.TurnUUID] = tu.Text()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for k := range turns {
		per[strings.SplitN(k, "/", 2)[0]]++
	}
	for h, n := range d.Conversations {
		if h == hClaudeCode {
			n += d.SubAgents
		}
		if per[h] != n {
			t.Errorf("%s: %d sessions stored, want %d", h, per[h], n)
		}
	}
	for _, q := range d.Questions {
		sess := turns[q.Harness+"/"+q.SessionID]
		if sess == nil {
			t.Errorf("%s: gold session %s/%s not stored", q.ID, q.Harness, q.SessionID)
			continue
		}
		for _, u := range q.TurnUUIDs {
			txt, ok := sess[u]
			if !ok {
				t.Errorf("%s: gold turn %s not stored in %s/%s", q.ID, u, q.Harness, q.SessionID)
				continue
			}
			if !strings.Contains(txt, q.Answer) {
				t.Errorf("%s: stored gold turn lacks %q", q.ID, q.Answer)
			}
		}
	}
}
