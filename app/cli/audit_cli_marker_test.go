package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/insights"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/plumbing"
)

// `ireneo audit` prints agents' queries, `ireneo insights` project names,
// `ireneo forget` the titles it forgot: run through an agent's shell, each
// lands in its transcript. End to end, as for get and sessions
// (forget_cli_quotes_test.go): the real CLI output (text and --json) in a
// Claude Code 2.1 Bash tool_result and a Codex 0.104 exec_command output,
// imported by the real importers into a memory holding nothing else, is
// not searchable, and the agent's own words are.

const (
	auditQueryToken = "cassiopeiaauditquery"
	auditProjToken  = "andromedaauditproject"
	auditTitleToken = "perseusaudittitle"
)

func auditSeed(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var ss []*funes.Session
	for _, id := range []string{"conv-a", "conv-b", "conv-c"} {
		ss = append(ss, chatSession(id, "Talk "+auditTitleToken+" "+id, auditProjToken, at, "pumps and seals"))
	}
	if _, err := m.Ingest(ctx, ss, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"query": auditQueryToken + " K-2 seal"})
	if err := auditlog.Add(ctx, m, auditlog.Entry{TS: at, Client: "agent", Tool: "recall", Args: string(args), Hits: 2, Duration: 3 * time.Millisecond, Outcome: auditlog.OK},
		auditlog.Entry{TS: at.Add(time.Minute), Client: "agent", Tool: "get", Args: `{"session_id":"conv-a"}`, Hits: 1, Outcome: auditlog.OK},
	); err != nil {
		t.Fatal(err)
	}
}

func TestAuditInsightsForgetOutputRunThroughAShellIsNotIndexed(t *testing.T) {
	_, mem := mcpEnv(t)
	auditSeed(t, mem)
	m := "--memory=" + mem
	cli := func(args ...string) string {
		t.Helper()
		code, out, errs := ireneo(t, append([]string{m}, args...)...)
		if code != 0 {
			t.Fatalf("ireneo %v: %d %s", args, code, errs)
		}
		return out
	}
	var runs []shellRun
	for _, c := range []struct {
		args []string
		has  string
	}{
		{[]string{"audit"}, auditQueryToken},
		{[]string{"audit", "--json"}, auditQueryToken},
		{[]string{"audit", "--tool", "sessions"}, "No calls recorded."},
		{[]string{"audit", "--tool", "sessions", "--json"}, "[]"},
		{[]string{"insights"}, auditProjToken},
		{[]string{"insights", "--json"}, auditProjToken},
		{[]string{"forget", "--yes", "conv-a"}, auditTitleToken},
		{[]string{"forget", "--yes", "--json", "conv-b"}, auditTitleToken},
	} {
		out := cli(c.args...)
		if !strings.Contains(out, c.has) {
			t.Fatalf("ireneo %v should print %s:\n%s", c.args, c.has, out)
		}
		empty := strings.TrimSpace(out) == "[]" // nothing of the memory in it
		if !empty && !strings.HasPrefix(out, plumbing.ResultMarker+"\n") && !strings.Contains(out, `"marker": "`+plumbing.ResultMarker+`"`) {
			t.Fatalf("ireneo %v: the answer carries no marker:\n%s", c.args, out)
		}
		runs = append(runs, shellRun{"ireneo " + strings.Join(c.args, " "), out})
	}
	// The JSON answers still read as they did: audit's an array of entries.
	var es []auditlog.Entry
	if err := json.Unmarshal([]byte(runs[1].stdout), &es); err != nil || len(es) != 2 || es[1].Tool != "recall" || !strings.Contains(es[1].Args, auditQueryToken) {
		t.Fatalf("audit --json no longer an array of entries (%v):\n%s", err, runs[1].stdout)
	}
	var in insights.Insights
	if err := json.Unmarshal([]byte(runs[5].stdout), &in); err != nil || in.Headline.Conversations != 3 {
		t.Fatalf("insights --json (%v):\n%s", err, runs[5].stdout)
	}
	var fr memory.ForgetReport
	if err := json.Unmarshal([]byte(runs[7].stdout), &fr); err != nil || len(fr.Sessions) != 1 {
		t.Fatalf("forget --json (%v):\n%s", err, runs[7].stdout)
	}
	// Two answers in one output.
	runs = append(runs, shellRun{"ireneo audit --limit 1; ireneo insights", cli("audit", "--limit", "1") + cli("insights")})

	harness := t.TempDir()
	ccSID, cxSID := "5b1e8d20-aaaa-4bbb-8ccc-ddddeeeeffff", "019c8a71-0e3b-7c21-9a5d-2b6f8e4c1e18"
	at := time.Date(2026, 4, 2, 10, 0, 0, 0, time.UTC)
	paths := []string{ccBashTranscript(t, harness, ccSID, runs, at), codexExecRollout(t, harness, cxSID, runs, at)}

	_, alone := mcpEnv(t)
	a := "--memory=" + alone
	if code, out, errs := ireneo(t, append([]string{a, "import", "--no-scrub"}, paths...)...); code != 0 || !strings.Contains(out, "imported 2 new") {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	for _, tok := range []string{auditQueryToken, auditProjToken, auditTitleToken} {
		if len(grepMemory(t, alone, tok)) == 0 {
			t.Fatalf("%s is in no file of the memory: the transcripts did not carry the answers", tok)
		}
		if _, out, _ := ireneo(t, a, "recall", tok); !strings.Contains(out, "No past conversation matches") {
			t.Fatalf("recall %s in a memory holding only the agents' transcripts finds the CLI's answers:\n%s", tok, out)
		}
		if _, out, _ := ireneo(t, a, "sessions", "--query", tok); !strings.Contains(out, "0 conversations of 0") {
			t.Fatalf("sessions --query %s finds the agents' transcripts by the CLI's answers:\n%s", tok, out)
		}
	}
	if _, out, _ := ireneo(t, a, "recall", "CLIAGENTWORDS"); strings.Count(out, "CLIAGENTWORDS") < 2 {
		t.Fatalf("recall of the agents' own words:\n%s", out)
	}
}
