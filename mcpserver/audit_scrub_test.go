package mcpserver

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/scrub"
	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// TestRecallQueryScrubbedInAudit: a recall whose query holds a GitHub
// token is audited with the token redacted — in the audit log, in what the
// activity view is shown, and in no file of the memory.
func TestRecallQueryScrubbedInAudit(t *testing.T) {
	var mu sync.Mutex
	var shown []auditlog.Entry
	ts := startTestServer(t, Options{OnCall: func(e auditlog.Entry) {
		mu.Lock()
		shown = append(shown, e)
		mu.Unlock()
	}})
	c := connect(t, ts.url, ts.full)
	tok := scrubtest.GitHubToken(77)
	callTool(t, c, ToolRecall, map[string]any{"query": "why does the deploy bot reject " + tok})
	// A long query: the token sits across the point where args are cut.
	long := strings.Repeat("w", maxAuditArgs-30) + " " + tok
	callTool(t, c, ToolRecall, map[string]any{"query": long})
	ts.FlushAudit()
	es, err := auditlog.List(context.Background(), ts.mem, auditlog.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 {
		t.Fatalf("audit has %d entries, want 2", len(es))
	}
	for _, e := range es {
		if strings.Contains(e.Args, tok[:12]) {
			t.Errorf("audit args keep the token: %.80s…", e.Args)
		}
	}
	if !strings.Contains(es[1].Args, "why does the deploy bot reject [REDACTED:github-pat]") {
		t.Errorf("audit args %q: want the query with the token redacted", es[1].Args)
	}
	mu.Lock()
	for _, e := range shown {
		if strings.Contains(e.Args, tok[:12]) {
			t.Errorf("the activity view was shown the token")
		}
	}
	mu.Unlock()
	if files := holdingBytes(t, ts.mem.Dir(), tok[:12]); len(files) > 0 {
		t.Errorf("token in %v", files)
	}
}

// holdingBytes lists the files under dir that hold s.
func holdingBytes(t *testing.T, dir, s string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(s)) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLazySecretsRedactFirstCall: the rules a process builds only after
// initialize (LazySecrets, the person's own pattern among them) redact the
// very first call, however soon it follows.
func TestLazySecretsRedactFirstCall(t *testing.T) {
	built := 0
	ts := startTestServer(t, Options{LazySecrets: func() redact.SecretFinder {
		built++
		sc, err := scrub.New([]scrub.Pattern{{Name: "acme-badge", Regex: `ACME-[0-9]{6}`}})
		if err != nil {
			t.Error(err)
			return nil
		}
		return sc
	}})
	c := connect(t, ts.url, ts.full)
	callTool(t, c, ToolRecall, map[string]any{"query": "badge ACME-314159 refused"})
	ts.FlushAudit()
	es, err := auditlog.List(context.Background(), ts.mem, auditlog.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || !strings.Contains(es[0].Args, "badge [REDACTED:acme-badge] refused") {
		t.Fatalf("audit %+v: want the badge redacted by the lazily built rule", es)
	}
	if built != 1 {
		t.Errorf("rules built %d times, want once", built)
	}
}
