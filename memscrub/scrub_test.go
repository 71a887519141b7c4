package memscrub

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memory/memorytest"
	"github.com/ireneo-app/ireneo/recall"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/scrub"
	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// Scrubbing a memory, with the real scrubber: redaction at import, scan and
// apply over stored conversations and the audit log, the allow-list, and
// that no secret survives in any file. Detection itself is tested in
// package scrub, a text's redaction in package redact.

var (
	conv = funestest.Conv
	day0 = funestest.Day0
)

type planted = scrubtest.Planted

func fakeSecrets() map[string]planted { return scrubtest.Secrets() }

// plantedSessions are three conversations that hold every fake secret among
// ordinary words, as people paste them: a config, a tool result, a key.
func plantedSessions(sec map[string]planted) []*funes.Session {
	t0 := time.Date(2026, 2, 3, 10, 0, 0, 0, time.UTC)
	deploy := conv("deploy-1", funes.HarnessChatGPT, "Staging bucket deploy fails", "", t0,
		"My deploy script to the staging bucket fails with AccessDenied. Here is my config:\n\n"+
			"AWS_ACCESS_KEY_ID="+sec["aws"].Secret+"\nregion=eu-west-1\n\nWhat is wrong with the marmalade pipeline?",
		"The key itself looks well formed. Check that the bucket policy allows s3:PutObject for that user, and rotate the key now that it has been shared in a chat.",
	)
	env := conv("env-2", funes.HarnessClaudeCode, "Wire up the summariser", "", t0.Add(time.Hour),
		"Read my .env and wire the summariser to both providers.",
		"I read the file.",
	)
	env.Turns[1].Blocks = append(env.Turns[1].Blocks,
		funes.Block{Type: funes.BlockToolUse, ToolName: "Read", Text: `{"file_path": ".env"}`},
		funes.Block{Type: funes.BlockToolResult, ToolName: "Read", Text: "GITHUB_TOKEN=" + sec["github"].Secret + "\n" +
			"OPENAI_API_KEY=" + sec["openai"].Secret + "\n" +
			"ANTHROPIC_API_KEY=" + sec["anthropic"].Secret + "\n" +
			"LOG_LEVEL=debug\n"},
	)
	db := conv("db-3", funes.HarnessCodex, "Database migration on the quokka cluster", "", t0.Add(2*time.Hour),
		"The migration on the quokka cluster hangs. DATABASE_URL=postgres://app:"+sec["pgpass"].Secret+"@"+sec["host"].Secret+":5432/prod",
		"Connect with psql first and look at pg_stat_activity for the lock.",
		"Here is the deploy key, in case it matters:\n\n"+sec["privkey"].Secret+"\n\nand the build runs on "+sec["host"].Secret+".",
		"Please never paste private keys; revoke that one. The lock is the migration itself.",
	)
	return []*funes.Session{deploy, env, db}
}

func newTestScrubber(t testing.TB) *scrub.Scrubber {
	t.Helper()
	sc, err := scrub.New([]scrub.Pattern{{Name: scrubtest.HostRule, Regex: scrubtest.HostRegex}})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func filesContaining(t *testing.T, dir, marker string) []string {
	t.Helper()
	return memorytest.FilesContaining(t, dir, marker)
}

// assertNoSecrets fails for every planted secret found in any file under
// dir, the database and its WAL included. It names the file, never the secret.
func assertNoSecrets(t *testing.T, dir string, sec map[string]planted) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(names) == 0 {
		t.Fatalf("nothing under %s", dir)
	}
	for name, p := range sec {
		for i, mk := range p.GrepMarkers() {
			if files := filesContaining(t, dir, mk); len(files) > 0 {
				t.Errorf("secret %s (marker %d) still in %v", name, i, files)
			}
			// The index holds a secret cut into lowercased tokens: grep
			// each random-looking one too.
			for j, tok := range secretTokens(mk) {
				if files := filesContaining(t, dir, tok); len(files) > 0 {
					t.Errorf("secret %s (marker %d, token %d) still in %v", name, i, j, files)
				}
			}
		}
	}
}

// secretTokens are the pieces of a secret the tokenizer makes that only it
// could hold: tokens of 10 characters or more (words like "corp" or "key"
// are anyone's), lowercased as the index keeps them.
func secretTokens(secret string) []string {
	var out []string
	engine.Tokens(secret, func(tok string) {
		if len(tok) >= 10 {
			out = append(out, tok)
		}
	})
	return out
}

// assertNoSecretTerms checks the engine's own term dictionary (and its
// posting and document tables) for every index term of the planted secrets,
// after proving with control, a word of a kept conversation, that the
// check can see a term that is there.
func assertNoSecretTerms(t *testing.T, m *memory.Memory, sec map[string]planted, control string) {
	t.Helper()
	db := memorytest.DB(t, m.Dir())
	ctx := context.Background()
	if ok, err := engine.HasTerm(ctx, db, engine.Term(control)); err != nil || !ok {
		t.Fatalf("positive control: the index should hold %q (%v)", control, err)
	}
	checked := 0
	for name, p := range sec {
		for i, mk := range p.GrepMarkers() {
			for _, tok := range secretTokens(mk) {
				checked++
				if ok, err := engine.HasTerm(ctx, db, engine.Stem(tok)); err != nil || ok {
					t.Errorf("secret %s (marker %d): the index still holds one of its terms (%v)", name, i, err)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no secret term checked")
	}
}

func TestScrubOnImportLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sec := fakeSecrets()
	sc := newTestScrubber(t)
	rep, err := m.Ingest(ctx, plantedSessions(sec), memory.IngestOptions{Redact: redact.Redactor(sc)})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sec {
		if rep.Redacted[p.Rule] == 0 {
			t.Errorf("import redacted nothing for %s: %v", p.Rule, rep.Redacted)
		}
	}
	if rep.Redacted["internal-host"] != 2 {
		t.Errorf("internal-host redactions: %d, want 2", rep.Redacted["internal-host"])
	}
	assertNoSecrets(t, dir, sec) // while open: the WAL holds recent pages
	assertNoSecretTerms(t, m, sec, "marmalade")

	if files := filesContaining(t, filepath.Join(dir, memory.SrcDir), "GITHUB_TOKEN=[REDACTED:github-pat]"); len(files) != 1 {
		t.Errorf("the placeholder is in %v of src/, want env-2's file", files)
	}
	after, err := Scan(ctx, m, Options{Finder: sc})
	if err != nil || len(after.Findings) != 0 || after.Scanned != 3 {
		t.Fatalf("scan after a scrubbed import: %v %+v", err, after)
	}
	if hits := recallHits(t, m, "marmalade pipeline staging bucket"); len(hits) == 0 || hits[0].SessionID != "deploy-1" {
		t.Fatalf("search around a redacted secret: %+v", hits)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	assertNoSecrets(t, dir, sec)
}

func TestScrubApplyRemovesSecretsFromEveryFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	sec := fakeSecrets()
	sc := newTestScrubber(t)
	if _, err := m.Ingest(ctx, plantedSessions(sec), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, p := range sec { // the test would prove nothing if they were never there
		if len(filesContaining(t, dir, p.GrepMarkers()[0])) == 0 {
			t.Fatalf("secret %s was never stored", name)
		}
		for _, tok := range secretTokens(p.GrepMarkers()[0]) {
			if !memorytest.HasTerm(t, dir, engine.Stem(tok)) {
				t.Fatalf("secret %s was never indexed", name)
			}
		}
	}

	scan, err := Scan(ctx, m, Options{Finder: sc})
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range sec {
		if scan.ByRule[p.Rule] == 0 {
			t.Errorf("scan missed %s (%s): %v", name, p.Rule, scan.ByRule)
		}
	}
	for _, f := range scan.Findings {
		if len(f.ID) != FindingIDLen || f.SessionID == "" || f.Preview == "" || f.End <= f.Start {
			t.Errorf("incomplete finding %+v", f)
		}
		if utf8.RuneCountInString(f.Preview) > 5 {
			t.Errorf("preview %q shows too much", f.Preview)
		}
	}
	if scan.Applied || len(scan.Redacted) != 0 {
		t.Fatalf("a scan redacted: %+v", scan)
	}
	if len(filesContaining(t, dir, sec["aws"].Secret)) == 0 {
		t.Fatal("a scan changed the memory")
	}

	rep, err := Apply(ctx, m, Options{Finder: sc})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Applied || rep.Changed != 3 || len(rep.Findings) != len(scan.Findings) {
		t.Fatalf("apply: changed %d, %d findings (scan had %d)", rep.Changed, len(rep.Findings), len(scan.Findings))
	}
	for rule, n := range scan.ByRule {
		if rep.Redacted[rule] != n {
			t.Errorf("redacted %d for %s, scan found %d", rep.Redacted[rule], rule, n)
		}
	}
	assertNoSecrets(t, dir, sec)
	assertNoSecretTerms(t, m, sec, "quokka")
	if ls, _ := filepath.Glob(filepath.Join(dir, ".staging", "scrub-old-*")); len(ls) != 0 {
		t.Fatalf("apply left its links to the old files: %v", ls)
	}

	again, err := Scan(ctx, m, Options{Finder: sc})
	if err != nil || len(again.Findings) != 0 {
		t.Fatalf("scan after apply: %v %+v", err, again.Findings)
	}
	hist, err := History(ctx, m, 0)
	if err != nil || len(hist) != 1 || hist[0].Counts["github-pat"] != 1 {
		t.Fatalf("history: %v %+v", err, hist)
	}
	// The conversation is still found by its other words, and the
	// catalog (a star) survives the rewrite.
	hits := recallHits(t, m, "quokka cluster migration")
	if len(hits) == 0 || hits[0].SessionID != "db-3" {
		t.Fatalf("search after apply: %+v", hits)
	}
	var around strings.Builder
	around.WriteString(hits[0].Text)
	for _, n := range hits[0].Neighbors {
		around.WriteString(n.Text)
	}
	if !strings.Contains(around.String(), "[REDACTED:") {
		t.Errorf("the turns around the redacted secrets show no [REDACTED: placeholder: %q", around.String())
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	assertNoSecrets(t, dir, sec)
}

func TestScrubFiltersByRuleAndSession(t *testing.T) {
	ctx := context.Background()
	m := memorytest.Open(t)
	sec := fakeSecrets()
	sc := newTestScrubber(t)
	if _, err := m.Ingest(ctx, plantedSessions(sec), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Scan(ctx, m, Options{Finder: sc, Rules: []string{"no-such-rule"}}); err == nil {
		t.Fatal("unknown rule accepted")
	}
	if _, err := Scan(ctx, m, Options{Finder: sc, Sessions: []string{"nope"}}); err == nil {
		t.Fatal("unknown session accepted")
	}
	rep, err := Apply(ctx, m, Options{Finder: sc, Rules: []string{"github-pat"}, Sessions: []string{"env-2"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scanned != 1 || rep.Changed != 1 || len(rep.Redacted) != 1 || rep.Redacted["github-pat"] != 1 {
		t.Fatalf("filtered apply: %+v", rep)
	}
	rest, err := Scan(ctx, m, Options{Finder: sc})
	if err != nil {
		t.Fatal(err)
	}
	if rest.ByRule["github-pat"] != 0 || rest.ByRule["openai-api-key"] != 1 || rest.ByRule["aws-access-token"] != 1 {
		t.Fatalf("after a filtered apply: %v", rest.ByRule)
	}
	// By finding id: exactly the chosen ones.
	var pick []string
	for _, f := range rest.Findings {
		if f.Rule == "openai-api-key" || f.Rule == "private-key" {
			pick = append(pick, f.ID)
		}
	}
	rep, err = Apply(ctx, m, Options{Finder: sc, IDs: pick})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Redacted) != 2 || rep.Redacted["openai-api-key"] != 1 || rep.Redacted["private-key"] != 1 || rep.Changed != 2 {
		t.Fatalf("apply by id: %+v", rep)
	}
	if rest, _ = Scan(ctx, m, Options{Finder: sc}); rest.ByRule["aws-access-token"] != 1 || len(rest.ByRule) != 4 {
		t.Fatalf("after an apply by id: %v", rest.ByRule)
	}
}

func TestScrubAllowList(t *testing.T) {
	ctx := context.Background()
	m := memorytest.Open(t)
	sec := fakeSecrets()
	sc := newTestScrubber(t)
	if _, err := m.Ingest(ctx, plantedSessions(sec), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	scan, err := Scan(ctx, m, Options{Finder: sc})
	if err != nil {
		t.Fatal(err)
	}
	var host []Finding
	for _, f := range scan.Findings {
		if f.Rule == "internal-host" {
			host = append(host, f)
		}
	}
	// The hostname appears twice in one conversation: one finding id.
	if len(host) != 2 || host[0].ID != host[1].ID {
		t.Fatalf("hostname findings: %+v", host)
	}
	if _, err := Scan(ctx, m, Options{Finder: sc, Allow: []string{"0123456789ab"}}); err == nil {
		t.Fatal("an unknown id was accepted")
	}
	if l, _ := AllowList(ctx, m); len(l) != 0 {
		t.Fatalf("a failed allow stored %+v", l)
	}
	allowed, err := Scan(ctx, m, Options{Finder: sc, Allow: []string{strings.ToUpper(host[0].ID)}})
	if err != nil {
		t.Fatal(err)
	}
	if allowed.NewlyAllowed != 1 || allowed.Allowed != 2 || allowed.ByRule["internal-host"] != 0 || len(allowed.Findings) != len(scan.Findings)-2 {
		t.Fatalf("allow: %+v", allowed)
	}
	// Remembered: a later scan does not report it, and apply leaves it.
	rep, err := Apply(ctx, m, Options{Finder: sc})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Allowed != 2 || rep.Redacted["internal-host"] != 0 || rep.Redacted["aws-access-token"] != 1 {
		t.Fatalf("apply with an allowed finding: %+v", rep)
	}
	if len(filesContaining(t, m.Dir(), sec["host"].Secret)) == 0 {
		t.Fatal("an allowed finding was redacted")
	}
	list, err := AllowList(ctx, m)
	if err != nil || len(list) != 1 || list[0].ID != host[0].ID || list[0].Rule != "internal-host" {
		t.Fatalf("allow list: %v %+v", err, list)
	}
	// The catalog keeps a hash, not the secret.
	var hash, rule string
	if err := memorytest.DB(t, m.Dir()).QueryRow(`SELECT hash, rule FROM scrub_allow`).Scan(&hash, &rule); err != nil {
		t.Fatal(err)
	}
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" || rule != "internal-host" {
		t.Fatalf("scrub_allow row: %q %q", hash, rule)
	}
	if err := Unallow(ctx, m, host[0].ID); err != nil {
		t.Fatal(err)
	}
	back, err := Scan(ctx, m, Options{Finder: sc})
	if err != nil || back.ByRule["internal-host"] != 2 || back.Allowed != 0 {
		t.Fatalf("after unallow: %v %+v", err, back)
	}
	if err := Unallow(ctx, m, host[0].ID); err == nil {
		t.Fatal("unallowing twice succeeded")
	}
}

// TestScrubMetadataFields: a secret in a conversation's working directory,
// title, project or a tool name is redacted at import, and one stored
// before is found by a scan and redacted by apply, leaving no file with it.
func TestScrubMetadataFields(t *testing.T) {
	ctx := context.Background()
	sc := newTestScrubber(t)
	tok := scrubtest.GitHubToken(31)
	host := fakeSecrets()["host"].Secret
	leaky := func() *funes.Session {
		s := conv("meta-1", funes.HarnessCodex, "clone with "+tok, "", day0, "clone the repository", "done")
		s.Workdir = "/home/ana/clones/x-access-token:" + tok + "/ireneo"
		s.Project = "ireneo-" + host
		s.Turns[1].Blocks = append(s.Turns[1].Blocks, funes.Block{Type: funes.BlockToolUse, ToolName: "shell " + tok, Text: "git status"})
		return s
	}

	// At import.
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := leaky()
	rep, err := m.Ingest(ctx, []*funes.Session{s}, memory.IngestOptions{Redact: redact.Redactor(sc)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Redacted["github-pat"] != 3 || rep.Redacted[scrubtest.HostRule] != 1 {
		t.Errorf("import redacted %v, want github-pat 3 (title, workdir, tool name) and %s 1", rep.Redacted, scrubtest.HostRule)
	}
	if s.Workdir != "/home/ana/clones/x-access-token:[REDACTED:github-pat]/ireneo" {
		t.Errorf("workdir %q", s.Workdir)
	}
	for _, mk := range []string{tok, host} {
		if files := filesContaining(t, dir, mk); len(files) > 0 {
			t.Errorf("%.6s… still in %v after a scrubbed import", mk, files)
		}
	}
	m.Close()

	// Stored before scrub on import: scan finds it, apply redacts it.
	m = memorytest.Open(t)
	if _, err := m.Ingest(ctx, []*funes.Session{leaky()}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	scan, err := Scan(ctx, m, Options{Finder: sc})
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]int{}
	for _, f := range scan.Findings {
		fields[f.Field]++
		if f.Field != redact.FieldText && f.Field != redact.FieldToolName && (f.Seq != -1 || f.Block != -1) {
			t.Errorf("a session field's finding has turn %d block %d", f.Seq, f.Block)
		}
	}
	if fields[redact.FieldTitle] != 1 || fields[redact.FieldWorkdir] != 1 || fields[redact.FieldProject] != 1 || fields[redact.FieldProjectTag] != 1 || fields[redact.FieldToolName] != 1 {
		t.Fatalf("findings per field %v", fields)
	}
	if _, err := Apply(ctx, m, Options{Finder: sc}); err != nil {
		t.Fatal(err)
	}
	for _, mk := range []string{tok, host} {
		if files := filesContaining(t, m.Dir(), mk); len(files) > 0 {
			t.Errorf("%.6s… still in %v after apply", mk, files)
		}
	}
	if again, _ := Scan(ctx, m, Options{Finder: sc}); len(again.Findings) != 0 {
		t.Errorf("scan after apply: %+v", again.Findings)
	}
	// The project tag derived from the project is renamed, not dropped.
	ps, _, err := conversations.Projects(ctx, m, nil)
	if err != nil || len(ps) != 1 || ps[0].Name != "[REDACTED:"+scrubtest.HostRule+"]" {
		t.Errorf("projects after apply: %v %+v", err, ps)
	}
}

// TestScrubAuditLog: a secret in a recorded query (written before queries
// were scrubbed) is found by scan and redacted by apply, and then is in no
// file of the memory, database and WAL included.
func TestScrubAuditLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	sc := newTestScrubber(t)
	tok := scrubtest.GitHubToken(41)
	if _, err := m.Ingest(ctx, plantedSessions(fakeSecrets())[:1], memory.IngestOptions{Redact: redact.Redactor(sc)}); err != nil {
		t.Fatal(err)
	}
	err = auditlog.Add(ctx, m, auditlog.Entry{Client: "claude-code", Tool: "recall", Args: `{"query":"deploy bot"}`, Outcome: auditlog.OK},
		auditlog.Entry{Client: "claude-code", Tool: "recall", Args: `{"query":"why is ` + tok + ` refused"}`, Outcome: auditlog.NoMatch},
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(filesContaining(t, dir, tok)) == 0 {
		t.Fatal("the token was never stored")
	}
	// A scan limited to conversations leaves the audit log out.
	only, err := Scan(ctx, m, Options{Finder: sc, Sessions: []string{"deploy-1"}})
	if err != nil || only.AuditScanned != 0 || len(only.Findings) != 0 {
		t.Fatalf("scan of one conversation: %v %+v", err, only)
	}
	scan, err := Scan(ctx, m, Options{Finder: sc})
	if err != nil {
		t.Fatal(err)
	}
	if scan.AuditScanned != 2 || len(scan.Findings) != 1 {
		t.Fatalf("scan: %d audit rows, findings %+v", scan.AuditScanned, scan.Findings)
	}
	f := scan.Findings[0]
	if f.Field != FieldAudit || f.AuditID == 0 || f.Rule != "github-pat" || f.SessionID != "" || f.Preview != redact.MaskSecret(tok) {
		t.Fatalf("audit finding %+v", f)
	}
	rep, err := Apply(ctx, m, Options{Finder: sc, IDs: []string{f.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.AuditChanged != 1 || rep.Changed != 0 || rep.Redacted["github-pat"] != 1 {
		t.Fatalf("apply: %+v", rep)
	}
	es, err := auditlog.List(ctx, m, auditlog.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Args != `{"query":"why is [REDACTED:github-pat] refused"}` {
		t.Fatalf("audit after apply: %+v", es)
	}
	if files := filesContaining(t, dir, tok); len(files) > 0 {
		t.Errorf("token still in %v", files)
	}
	if again, _ := Scan(ctx, m, Options{Finder: sc}); len(again.Findings) != 0 {
		t.Errorf("scan after apply: %+v", again.Findings)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if files := filesContaining(t, dir, tok); len(files) > 0 {
		t.Errorf("token in %v after close", files)
	}
}

// recallHits recalls query from m as an agent would, best first.
func recallHits(t *testing.T, m *memory.Memory, query string) []answer.Hit {
	t.Helper()
	res, err := recall.Recall(context.Background(), m, recall.Options{Query: query})
	if err != nil {
		t.Fatal(err)
	}
	return res.Hits
}
