package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/settings"
)

// dirSums maps every file under dir to its sha256.
func dirSums(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(data)
		out[p] = hex.EncodeToString(s[:])
		return nil
	})
	return out
}

func TestBackupRestoreCommands(t *testing.T) {
	t.Setenv("IRENEO_CONFIG", filepath.Join(t.TempDir(), "config"))
	src := seed(t)
	if code, _, errs := run(t, "--memory", src, "tag", "conv-01", "falcon"); code != 0 {
		t.Fatal(errs)
	}
	archive := filepath.Join(t.TempDir(), "memory.zip")
	code, out, errs := run(t, "--memory", src, "backup", archive)
	if code != 0 {
		t.Fatalf("backup: exit %d: %s", code, errs)
	}
	for _, want := range []string{"backed up 12 conversations (12 files", "tags", "settings included", "not included: token secrets", "keyring"} {
		if !strings.Contains(out, want) {
			t.Errorf("backup output lacks %q:\n%s", want, out)
		}
	}

	dst := filepath.Join(t.TempDir(), "restored")
	code, out, errs = run(t, "--memory", dst, "restore", archive)
	if code != 0 {
		t.Fatalf("restore: exit %d: %s", code, errs)
	}
	for _, want := range []string{"restored 12 conversations", "rebuilt the index", "settings kept as they were (the backup's are the same)", "token secrets were not in the backup"} {
		if !strings.Contains(out, want) {
			t.Errorf("restore output lacks %q:\n%s", want, out)
		}
	}
	_, a, _ := run(t, "--memory", src, "recall", "--json", "N-11 decision")
	_, b, _ := run(t, "--memory", dst, "recall", "--json", "N-11 decision")
	if a != b || !strings.Contains(a, "conv-01") {
		t.Errorf("recall differs after restore:\n%s\n%s", a, b)
	}

	// Into a memory with conversations: refused, then merged.
	code, _, errs = run(t, "--memory", dst, "restore", archive)
	if code != ExitUsage || !strings.Contains(errs, "--merge") {
		t.Errorf("restore into a full memory: exit %d %s", code, errs)
	}
	code, out, errs = run(t, "--memory", dst, "restore", "--merge", archive)
	if code != 0 || !strings.Contains(out, "merged") || !strings.Contains(out, "0 new, 0 updated, 12 unchanged") || !strings.Contains(out, "settings kept") {
		t.Errorf("merge: exit %d %s\n%s", code, errs, out)
	}

	// A damaged archive: one line, exit 1, nothing changed.
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.zip")
	os.WriteFile(bad, data[:len(data)*2/3], 0o600)
	empty := filepath.Join(t.TempDir(), "empty")
	for _, target := range []string{dst, empty} {
		before := dirSums(t, target)
		code, out, errs = run(t, "--memory", target, "restore", bad)
		if code != ExitError || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "nothing was changed") || !strings.Contains(errs, bad) || out != "" {
			t.Errorf("damaged archive: exit %d, stderr %q, stdout %q", code, errs, out)
		}
		if after := dirSums(t, target); !reflect.DeepEqual(before, after) {
			t.Errorf("a damaged archive changed %s", target)
		}
	}
	if _, err := os.Stat(empty); err == nil {
		t.Errorf("a damaged archive created the memory folder %s", empty)
	}
}

// TestRestoreLeavesSettings: a restore into a scratch memory leaves the
// settings every memory shares alone and lists how the backup's differ
// (it replaced them: a backup with scrub on import off turned redaction
// off for the main memory); --settings takes them and says what changed;
// --settings-only takes only them.
func TestRestoreLeavesSettings(t *testing.T) {
	cfgA := filepath.Join(t.TempDir(), "config-a")
	t.Setenv("IRENEO_CONFIG", cfgA)
	src := seed(t)
	off := settings.Default()
	off.ScrubOnImport = false
	off.ServerAddr = "127.0.0.1:47200"
	if err := settings.SaveTo(cfgA, off); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "memory.zip")
	if code, _, errs := run(t, "--memory", src, "backup", archive); code != 0 {
		t.Fatal(errs)
	}

	// The person's own settings, elsewhere: scrub on import on.
	cfgB := filepath.Join(t.TempDir(), "config-b")
	t.Setenv("IRENEO_CONFIG", cfgB)
	if err := settings.SaveTo(cfgB, settings.Default()); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(settings.PathIn(cfgB))
	code, out, errs := run(t, "--memory", filepath.Join(t.TempDir(), "scratch"), "restore", archive)
	if code != 0 {
		t.Fatalf("restore: %d %s", code, errs)
	}
	if after, _ := os.ReadFile(settings.PathIn(cfgB)); string(after) != string(before) {
		t.Fatalf("a restore into a scratch memory rewrote the settings:\n%s", after)
	}
	for _, want := range []string{"settings kept as they were", "scrub_on_import true → false", `server_addr "127.0.0.1:47119" → "127.0.0.1:47200"`, "--settings-only"} {
		if !strings.Contains(out, want) {
			t.Errorf("restore output lacks %q:\n%s", want, out)
		}
	}

	code, out, errs = run(t, "--memory", filepath.Join(t.TempDir(), "scratch2"), "restore", "--settings", archive)
	if got, _ := settings.LoadFrom(cfgB); code != 0 || got.ScrubOnImport || !strings.Contains(out, "settings restored, for every memory: ") || !strings.Contains(out, "scrub_on_import true → false") {
		t.Fatalf("restore --settings: %d %s\n%s (scrub on import %v)", code, errs, out, got.ScrubOnImport)
	}

	settings.SaveTo(cfgB, settings.Default())
	code, out, errs = run(t, "restore", "--settings-only", archive)
	if got, _ := settings.LoadFrom(cfgB); code != 0 || got.ServerAddr != "127.0.0.1:47200" || !strings.Contains(out, "server_addr") {
		t.Fatalf("restore --settings-only: %d %s\n%s", code, errs, out)
	}
}
