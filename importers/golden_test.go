package importers

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

var update = flag.Bool("update", false, "rewrite the golden .funes.jsonl outputs under testdata/golden")

// goldenDir holds the golden outputs. It is no input: tests that import
// "all the fixtures" take fixtureDirs, which leaves it out.
var goldenDir = filepath.Join("testdata", "golden")

// fixtureDirs is every fixture folder under testdata/, the golden outputs
// excepted.
func fixtureDirs(t testing.TB) []string {
	t.Helper()
	ents, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if p := filepath.Join("testdata", e.Name()); e.IsDir() && p != goldenDir && p != upgradeDir {
			out = append(out, p)
		}
	}
	return out
}

// TestGolden pins what every fixture imports as: the funes jsonl of each
// conversation a parser finds in it, byte for byte. An importer change shows
// up as a diff of these files; `go test ./importers -run Golden -update`
// rewrites them once the change is meant. Every golden must be checked: one
// whose input is gone, or no longer detected as one conversation file,
// fails.
func TestGolden(t *testing.T) {
	// The real sample files (../shared/fixtures/real) are copied byte for
	// byte into testdata/real, provenance in testdata/README.md, so their
	// goldens are checked on every machine, CI's clean clone included.
	checkGoldens(t, "testdata", goldenDir)
}

// checkGoldens compares every conversation file under dir with its golden
// under golden, and fails for a golden left unchecked.
func checkGoldens(t *testing.T, dir, golden string) {
	checked := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == goldenDir || path == upgradeDir {
				return fs.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		gold := filepath.Join(golden, rel+".funes.jsonl")
		fi, err := d.Info()
		if err != nil {
			return err
		}
		ins, err := detectFile(path, fi, true)
		if err != nil || len(ins) != 1 || ins[0].Archive != "" {
			// Not a conversation file (README, users.json, …); if it has a
			// golden, that golden is left unchecked, and fails below.
			if _, statErr := os.Stat(gold); statErr == nil {
				t.Errorf("%s has a golden but is not detected as one conversation file (%d inputs, %v)", path, len(ins), err)
				checked[gold] = true
			}
			return nil
		}
		checked[gold] = true
		checkGolden(t, gold, goldenOutput(t, ins[0]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	goldens := goldenFiles(t, golden)
	if !*update && len(checked) < max(len(goldens), 3) {
		// Every golden names a fixture; fewer fixtures than goldens is a
		// folder only partly there, not a passing run.
		t.Errorf("only %d fixtures found under %s for %d goldens under %s", len(checked), dir, len(goldens), golden)
	}
	if *update {
		return
	}
	for _, g := range goldens {
		if !checked[g] {
			t.Errorf("golden %s was left unchecked: its input is gone from %s", g, dir)
		}
	}
}

// goldenFiles lists the golden outputs under dir.
func goldenFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(p, ".funes.jsonl") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// goldenOutput is every conversation parsed from one input as funes jsonl,
// and a final comment-free line per skip or error so those are pinned too.
func goldenOutput(t *testing.T, in Input) []byte {
	t.Helper()
	f, err := os.Open(in.file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	var notes []string
	err = parsers[in.Format](context.Background(), f, in.Path, Handler{
		Session: func(s *funes.Session) error { return funes.WriteSession(&buf, s) },
		Skip:    func(what, why string) { notes = append(notes, "skipped "+what+": "+why) },
		Path:    in.file,
	})
	if err != nil && !errors.Is(err, errNoConversation) {
		notes = append(notes, "error: "+err.Error())
	}
	if errors.Is(err, errNoConversation) {
		notes = append(notes, "no conversation")
	}
	for _, n := range notes {
		fmt.Fprintf(&buf, "// %s\n", n)
	}
	return buf.Bytes()
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v (run with -update to create it)", path, err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update if the change is meant):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the lines that differ, up to a few, as -want/+got.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 6; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			continue
		}
		shown++
		fmt.Fprintf(&b, "line %d:\n-%s\n+%s\n", i+1, clip(wl), clip(gl))
	}
	if len(w) != len(g) {
		fmt.Fprintf(&b, "(%d lines, want %d)\n", len(g), len(w))
	}
	return b.String()
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}
