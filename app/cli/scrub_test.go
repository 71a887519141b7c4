package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
	"github.com/ireneo-app/ireneo/settings"
)

// Fake secrets, built at run time so this file trips no secret scanner.
var (
	fakePAT  = "gh" + "p_" + "R8xq2LmZ7vTn4KpW9sYb3HcJ6dFg1AeQu0Vi"
	fakeHost = "build-07" + ".corp." + "ireneo-internal" + ".net"
	// fakePATTerm is fakePAT's random part: the tokenizer cuts the token at
	// "_", so the index keeps this piece (lowercased) as a term of its own.
	fakePATTerm = "R8xq2LmZ7vTn4KpW9sYb3HcJ6dFg1AeQu0Vi"
)

// scrubEnv points the settings at a temp dir, saves st there, and writes a
// funes jsonl file holding both fake secrets. It returns the memory dir and
// the file.
func scrubEnv(t *testing.T, scrubOnImport bool) (mem, file string) {
	t.Helper()
	t.Setenv("IRENEO_CONFIG", t.TempDir())
	st := settings.Default()
	st.ScrubOnImport = scrubOnImport
	st.UserPatterns = []settings.Pattern{{Name: "internal-host", Regex: `\b[a-z0-9-]+\.corp\.ireneo-internal\.net\b`}}
	if err := settings.Save(st); err != nil {
		t.Fatal(err)
	}
	s := &funes.Session{ID: "leaky-1", Harness: funes.HarnessCodex, Title: "CI tokens"}
	t0 := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	for i, text := range []string{
		"The CI on " + fakeHost + " fails to push tags. GITHUB_TOKEN=" + fakePAT,
		"That token needs the contents:write scope; regenerate it and revoke the pasted one.",
	} {
		role := funes.RoleUser
		if i == 1 {
			role = funes.RoleAssistant
		}
		s.Turns = append(s.Turns, funes.Turn{TurnUUID: s.ID + "-" + string(rune('a'+i)), Seq: i, TS: t0.Add(time.Duration(i) * time.Minute),
			Role: role, Blocks: []funes.Block{{Type: funes.BlockText, Text: text}}})
	}
	data, err := funes.MarshalSession(s)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file = filepath.Join(dir, "leaky.funes.jsonl")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "mem"), file
}

// holding lists the files under dir that contain s.
func holding(t *testing.T, dir, s string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, err := os.ReadFile(p); err == nil && bytes.Contains(bytes.ToLower(data), bytes.ToLower([]byte(s))) {
				out = append(out, p)
			}
		}
		return nil
	})
	return out
}

func TestImportScrubsByDefault(t *testing.T) {
	mem, file := scrubEnv(t, true)
	code, out, errs := run(t, "--memory", mem, "import", file)
	if code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	if !strings.Contains(out, "secrets redacted: github-pat 1, internal-host 1") {
		t.Fatalf("import summary lacks the redactions:\n%s", out)
	}
	for _, s := range []string{fakePAT, fakePATTerm, fakeHost} {
		if files := holding(t, mem, s); len(files) > 0 {
			t.Errorf("a secret survived the import in %v", files)
		}
	}
	// The original export is never modified.
	if data, _ := os.ReadFile(file); !bytes.Contains(data, []byte(fakePAT)) {
		t.Fatal("the import changed its input file")
	}
	code, out, _ = run(t, "--memory", mem, "scrub")
	if code != 0 || !strings.Contains(out, "0 findings") {
		t.Fatalf("scrub after a scrubbed import: %d\n%s", code, out)
	}
}

func TestScrubCommand(t *testing.T) {
	mem, file := scrubEnv(t, false)
	if code, out, errs := run(t, "--memory", mem, "import", file); code != 0 || strings.Contains(out, "secrets redacted") {
		t.Fatalf("import with scrub off: %d %s %s", code, out, errs)
	}
	if len(holding(t, mem, fakePAT)) == 0 || len(holding(t, mem, fakePATTerm)) == 0 {
		t.Fatal("with scrub on import off, the token should be stored and indexed")
	}

	code, out, errs := run(t, "--memory", mem, "scrub", "--json")
	if code != 0 {
		t.Fatalf("scrub --json: %d %s", code, errs)
	}
	if strings.Contains(out, fakePAT) || strings.Contains(out, fakeHost) {
		t.Fatal("the report shows a secret")
	}
	var rep memscrub.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Scanned != 1 || rep.ByRule["github-pat"] != 1 || rep.ByRule["internal-host"] != 1 || rep.Applied {
		t.Fatalf("scan report: %+v", rep)
	}
	var hostID string
	for _, f := range rep.Findings {
		if f.Rule == "internal-host" {
			hostID = f.ID
		}
	}

	if code, _, errs := run(t, "--memory", mem, "scrub", "--rule", "no-such-rule"); code != ExitUsage {
		t.Fatalf("unknown rule: exit %d, %s", code, errs)
	}
	if code, _, errs := run(t, "--memory", mem, "scrub", "--allow", "000000000000"); code != ExitError || !strings.Contains(errs, "no finding with id 000000000000") {
		t.Fatalf("unknown id: exit %d, %s", code, errs)
	}

	code, out, errs = run(t, "--memory", mem, "scrub", "--allow", hostID)
	if code != 0 || !strings.Contains(out, "allowed 1 finding as false positives") || strings.Contains(out, hostID) {
		t.Fatalf("scrub --allow: %d %s\n%s", code, errs, out)
	}

	code, out, errs = run(t, "--memory", mem, "scrub", "--apply")
	if code != 0 {
		t.Fatalf("scrub --apply: %d %s", code, errs)
	}
	if !strings.HasSuffix(out, "redacted in 1 conversation, per rule:\n  github-pat  1\n") {
		t.Fatalf("the report should end with the redactions per rule:\n%s", out)
	}
	for _, s := range []string{fakePAT, fakePATTerm} {
		if files := holding(t, mem, s); len(files) > 0 {
			t.Errorf("the token survived scrub --apply in %v", files)
		}
	}
	if len(holding(t, mem, fakeHost)) == 0 {
		t.Error("an allowed finding was redacted")
	}
}

// TestScrubCommandAuditLog: a token an agent put in a query, recorded
// before queries were scrubbed, is listed as an audit log finding and
// redacted by --apply.
func TestScrubCommandAuditLog(t *testing.T) {
	mem, file := scrubEnv(t, true)
	if code, out, errs := run(t, "--memory", mem, "import", file); code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	m, err := memory.Open(mem)
	if err != nil {
		t.Fatal(err)
	}
	err = auditlog.Add(context.Background(), m, auditlog.Entry{Client: "codex", Tool: "recall", Args: `{"query":"is ` + fakePAT + ` still valid"}`, Outcome: auditlog.NoMatch})
	m.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "--memory", mem, "scrub")
	if code != 0 || !strings.Contains(out, "scanned 1 conversation and 1 call of the audit log") ||
		!strings.Contains(out, "audit log") || !strings.Contains(out, "call 1") || strings.Contains(out, fakePAT) {
		t.Fatalf("scrub: %d %s\n%s", code, errs, out)
	}
	code, out, errs = run(t, "--memory", mem, "scrub", "--apply")
	if code != 0 || !strings.Contains(out, "redacted in 0 conversations and 1 call of the audit log, per rule:\n  github-pat  1\n") {
		t.Fatalf("scrub --apply: %d %s\n%s", code, errs, out)
	}
	if files := holding(t, mem, fakePAT); len(files) > 0 {
		t.Errorf("the token survived scrub --apply in %v", files)
	}
}
