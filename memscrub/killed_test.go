//go:build unix

package memscrub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memory/memorytest"
	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// A scrub --apply killed at its worst moments, through a real child
// process (this test binary re-executed into TestScrubApplyChild) that
// sends itself SIGKILL at a named step (memory.EnvKillAt). The next open
// must leave the secrets in no file (every file under the memory, grepped
// case-folded, the database, its WAL and free pages included), and the
// redaction all applied or not at all: no conversation lost, no half.
// Before the erase journal covered scrub, a kill after the commit kept the
// old files' bytes in .staging/scrub-old-* for good.

const scrubChildEnv = "IRENEO_SCRUB_CHILD"

// TestScrubApplyChild is the child: it opens the memory named by the
// environment and applies a scrub of everything.
func TestScrubApplyChild(t *testing.T) {
	dir := os.Getenv(scrubChildEnv)
	if dir == "" {
		t.Skip("runs only as the child of TestScrubApplyKilled")
	}
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(context.Background(), m, Options{Finder: newTestScrubber(t)}); err != nil {
		t.Fatal(err)
	}
	m.Close()
}

func TestScrubApplyKilled(t *testing.T) {
	// Before its transaction the scrub is undone; from it on, finished.
	steps := map[string]bool{
		"scrub-journaled": false, "scrub-linked": false,
		"commit-tx": true, "scrub-committed": true, "scrub-shredded": true, "scrub-erased": true,
	}
	for step, applied := range steps {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			sec := fakeSecrets()
			tok := scrubtest.GitHubToken(43)
			dir := t.TempDir()
			m, err := memory.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			memorytest.Ingest(t, m, plantedSessions(sec)...)
			if err := auditlog.Add(ctx, m, auditlog.Entry{Client: "codex", Tool: "recall", Args: `{"query":"why is ` + tok + ` refused"}`, Outcome: auditlog.NoMatch}); err != nil {
				t.Fatal(err)
			}
			m.Close()
			before := srcFiles(t, dir)
			// Positive controls: the grep sees the secrets, and a word of
			// the conversations, before the scrub.
			for name, p := range sec {
				if len(filesContaining(t, dir, p.GrepMarkers()[0])) == 0 {
					t.Fatalf("secret %s was never stored", name)
				}
			}
			if len(filesContaining(t, dir, tok)) == 0 {
				t.Fatal("the audit token was never stored")
			}

			runScrubKilled(t, dir, step)

			m, err = memory.Open(dir) // as any later command does
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if len(filesContaining(t, dir, "QUOKKA")) == 0 {
				t.Fatal("positive control: the grep should find a kept word (case-folded)")
			}
			after := srcFiles(t, dir)
			if len(after) != len(before) {
				t.Fatalf("src/ holds %d files after the open, %d before: a conversation lost", len(after), len(before))
			}
			infos, _, err := conversations.List(ctx, m, conversations.Query{})
			if err != nil || len(infos) != 3 {
				t.Fatalf("%d conversations stored after the open (want 3): %v", len(infos), err)
			}
			db := memorytest.DB(t, dir)
			var left int
			if err := db.QueryRow(`SELECT count(*) FROM erase_journal`).Scan(&left); err != nil || left != 0 {
				t.Errorf("erase journal: %d rows left after the open (%v)", left, err)
			}
			var ic string
			if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ic); err != nil || ic != "ok" {
				t.Errorf("integrity_check %q %v", ic, err)
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, ".staging")); len(ents) != 0 {
				t.Errorf(".staging holds %d entries after the open", len(ents))
			}
			changed := 0
			for rel, data := range after {
				if string(before[rel]) != string(data) {
					changed++
					if !strings.Contains(string(data), "[REDACTED:") {
						t.Errorf("%s changed without a placeholder", rel)
					}
				}
			}
			es, err := auditlog.List(ctx, m, auditlog.Query{})
			if err != nil || len(es) != 1 {
				t.Fatalf("audit: %v %+v", err, es)
			}
			auditDone := !strings.Contains(es[0].Args, tok)
			hist, err := History(ctx, m, 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 1, false: 0}[applied]; len(hist) != want {
				t.Errorf("%d scrub history rows after the open, want %d (the row goes in with the redactions)", len(hist), want)
			}
			if applied {
				if changed != 3 || !auditDone {
					t.Fatalf("the scrub killed at %s was not finished: %d of 3 files rewritten, audit redacted %v", step, changed, auditDone)
				}
				assertNoSecrets(t, dir, sec) // while open: the WAL too
				if files := filesContaining(t, dir, tok); len(files) > 0 {
					t.Errorf("the audit token is still in %v", files)
				}
				assertNoSecretTerms(t, m, sec, "quokka")
			} else {
				if changed != 0 || auditDone {
					t.Fatalf("the scrub killed at %s, before its transaction, is half applied: %d files rewritten, audit redacted %v", step, changed, auditDone)
				}
				// Not applied: the secrets are where they were (the
				// conversation's file and the index), in no copy beside.
				for name, p := range sec {
					for _, f := range filesContaining(t, dir, p.GrepMarkers()[0]) {
						if !strings.HasPrefix(f, memory.SrcDir+string(filepath.Separator)) && !strings.HasPrefix(f, memory.DBName) {
							t.Errorf("secret %s has a copy in %s", name, f)
						}
					}
				}
			}
			// Either way a scrub now leaves nothing.
			if _, err := Apply(ctx, m, Options{Finder: newTestScrubber(t)}); err != nil {
				t.Fatal(err)
			}
			assertNoSecrets(t, dir, sec)
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			assertNoSecrets(t, dir, sec)
			if files := filesContaining(t, dir, tok); len(files) > 0 {
				t.Errorf("the audit token is still in %v after close", files)
			}
		})
	}
}

// runScrubKilled runs the child's scrub apply of dir, killed at step; it
// fails the test unless SIGKILL ended it.
func runScrubKilled(t *testing.T, dir, step string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestScrubApplyChild$")
	cmd.Env = append(os.Environ(), scrubChildEnv+"="+dir, memory.EnvKillAt+"="+step)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child at %s was not killed: %v\n%s", step, err, out)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child at %s ended otherwise: %v\n%s", step, err, out)
	}
}

// srcFiles reads every file under src/, by path relative to the memory.
func srcFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(filepath.Join(dir, memory.SrcDir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScrubApplyKilledManyChunks: a scrub that rewrites more
// conversations than one import transaction takes (commitChunk, 250) is
// still one transaction: killed before it, none is redacted; killed after
// it, before the files are in place, the next open redacts all 260 and no
// token is left in any file.
func TestScrubApplyKilledManyChunks(t *testing.T) {
	for _, step := range []string{"scrub-linked", "commit-tx"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			const n = 260
			dir := t.TempDir()
			m, err := memory.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			var toks []string
			for i := range n {
				tok := scrubtest.GitHubToken(uint64(5000 + i))
				toks = append(toks, tok)
				memorytest.Ingest(t, m, conv(fmt.Sprintf("chunk-%03d", i), funes.HarnessCodex, "talk", "", day0,
					"the pump seals leak, token "+tok, "replace the seals"))
			}
			m.Close()
			if len(filesContaining(t, dir, toks[n-1])) == 0 {
				t.Fatal("positive control: the last token was never stored")
			}
			runScrubKilled(t, dir, step)
			m, err = memory.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			redacted := 0
			for rel, data := range srcFiles(t, dir) {
				switch {
				case strings.Contains(string(data), "[REDACTED:"):
					redacted++
				case !strings.Contains(string(data), "token gh"):
					t.Errorf("%s holds neither its token nor a placeholder", rel)
				}
			}
			if step == "commit-tx" {
				if redacted != n {
					t.Fatalf("killed after its transaction: %d of %d redacted after the open", redacted, n)
				}
				for i, tok := range toks {
					if files := filesContaining(t, dir, tok); len(files) > 0 {
						t.Fatalf("token %d is still in %v", i, files)
					}
				}
			} else if redacted != 0 {
				t.Fatalf("killed before its transaction: %d of %d redacted", redacted, n)
			}
			if infos, total, err := conversations.List(context.Background(), m, conversations.Query{}); err != nil || total != n {
				t.Fatalf("%d (%d listed) conversations after the open, want %d: %v", total, len(infos), n, err)
			}
		})
	}
}

// TestScrubKilledFinishedByNextStep: a process that opened the memory
// before another's scrub --apply was killed (the app, the server) finishes
// that scrub at its next import, reindex, forget or scrub, not only at an
// open: the secrets are then in no file.
func TestScrubKilledFinishedByNextStep(t *testing.T) {
	for _, next := range []string{"import", "reindex", "forget", "scrub"} {
		t.Run(next, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			sec := fakeSecrets()
			dir := t.TempDir()
			m, err := memory.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			memorytest.Ingest(t, m, plantedSessions(sec)...)
			memorytest.Ingest(t, m, conv("other-1", funes.HarnessCodex, "Tea", "", day0, "which tea is best", "green tea"))
			runScrubKilled(t, dir, "commit-tx")
			if len(filesContaining(t, dir, sec["aws"].Secret)) == 0 {
				t.Fatal("positive control: killed at commit-tx, the old files still hold the secrets")
			}
			switch next {
			case "import":
				memorytest.Ingest(t, m, conv("new-1", funes.HarnessCodex, "Coffee", "", day0, "which coffee", "a flat white"))
			case "reindex":
				if _, err := m.Reindex(ctx, nil); err != nil {
					t.Fatal(err)
				}
			case "forget":
				if _, err := m.Forget(ctx, []string{"other-1"}, nil); err != nil {
					t.Fatal(err)
				}
			case "scrub":
				if _, err := Apply(ctx, m, Options{Finder: newTestScrubber(t)}); err != nil {
					t.Fatal(err)
				}
			}
			var left int
			if err := memorytest.DB(t, dir).QueryRow(`SELECT count(*) FROM erase_journal`).Scan(&left); err != nil || left != 0 {
				t.Errorf("erase journal: %d rows left after the %s (%v)", left, next, err)
			}
			assertNoSecrets(t, dir, sec)
			redacted := 0
			for _, data := range srcFiles(t, dir) {
				if strings.Contains(string(data), "[REDACTED:") {
					redacted++
				}
			}
			if redacted != 3 {
				t.Errorf("%d of the 3 conversations redacted after the %s", redacted, next)
			}
		})
	}
}
