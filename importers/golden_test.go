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

	"github.com/ireneo-app/ireneo/memory"
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

// sharedReal is the project's folder of real sample files, when it is there
// (beside the repository, not in it). Its golden outputs live in the repo.
const sharedReal = "../../shared/fixtures/real"

// TestGolden pins what every fixture imports as: the funes jsonl of each
// conversation a parser finds in it, byte for byte. An importer change shows
// up as a diff of these files; `go test ./importers -run Golden -update`
// rewrites them once the change is meant.
func TestGolden(t *testing.T) {
	roots := []struct{ dir, golden string }{{"testdata", goldenDir}}
	if fi, err := os.Stat(sharedReal); err == nil && fi.IsDir() {
		roots = append(roots, struct{ dir, golden string }{sharedReal, filepath.Join(goldenDir, "shared-real")})
	}
	seen := 0
	for _, root := range roots {
		err := filepath.WalkDir(root.dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path == goldenDir || path == upgradeDir {
					return fs.SkipDir
				}
				return nil
			}
			rel, _ := filepath.Rel(root.dir, path)
			fi, err := d.Info()
			if err != nil {
				return err
			}
			ins, err := detectFile(path, fi, true)
			if err != nil || len(ins) != 1 || ins[0].Archive != "" {
				return nil // not a conversation file (README, users.json, …)
			}
			seen++
			got := goldenOutput(t, ins[0])
			checkGolden(t, filepath.Join(root.golden, rel+".funes.jsonl"), got)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if seen < 20 {
		t.Errorf("only %d fixtures found", seen)
	}
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
		Session: func(s *memory.Session) error { return memory.WriteSession(&buf, s) },
		Skip:    func(what, why string) { notes = append(notes, "skipped "+what+": "+why) },
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
