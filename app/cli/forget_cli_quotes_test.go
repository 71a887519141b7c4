package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers/transcripttest"
	"github.com/ireneo-app/ireneo/plumbing"
)

// An agent that runs `ireneo get` or `ireneo sessions` through its shell
// has the CLI's answer in its transcript as the shell's output, as it has
// recall's. End to end: the real CLI answers (text and --json), the answers
// are written into a Claude Code 2.1 transcript as its Bash tool records
// them and a Codex 0.104 rollout as its exec_command does, the real
// importers bring them in; the answers are not searchable, and `ireneo
// forget` erases the forgotten conversation's text from them.

const (
	// In the conversations' titles and texts, so get and sessions both
	// quote them.
	cliGoneToken = "meridianclianswergone"
	cliKeptToken = "solsticeclianswerkept"
	cliAgentOwn  = "The seal is on order and the spare is in stock. CLIAGENTWORDS"
)

func cliQuotesSeed(t *testing.T, dir string) {
	t.Helper()
	ts := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	ss := []*funes.Session{
		chatSession("conv-gone", "Seal "+cliGoneToken, "plant", ts, "The K-2 seal code is "+cliGoneToken+"; Priya orders it.", "Noted: "+cliGoneToken+" goes on the order."),
		chatSession("conv-kept", "Spare "+cliKeptToken, "plant", ts.AddDate(0, 0, 1), "The K-2 spare is "+cliKeptToken+", in stock.", "Good, "+cliKeptToken+" it is."),
	}
	storeSessions(t, dir, ss...)
}

// shellRun is one Bash call and what it printed.
type shellRun struct{ command, stdout string }

// ccBashTranscript is an agent session as Claude Code 2.1.7 records it:
// the person's question, then for each run a Bash tool_use and its
// tool_result, and the agent's own answer.
func ccBashTranscript(t *testing.T, dir, sid string, runs []shellRun, at time.Time) string {
	c := transcripttest.NewClaudeCode(t, sid, "/home/ana/plant", at)
	c.User("Which seal and spare did we settle on for the K-2?", nil)
	for i, r := range runs {
		bashRun(c, fmt.Sprintf("msg_%02d", i+1), fmt.Sprintf("toolu_%02d", i+1), r, "Read memory")
	}
	c.Assistant("msg_99", transcripttest.Text(cliAgentOwn))
	return c.Write(filepath.Join(dir, "claude", "projects"), "-home-ana-plant")
}

// codexExecRollout is an agent session as a Codex 0.104 rollout, each run
// an exec_command call whose output is the command's stdout behind
// Codex's envelope.
func codexExecRollout(t *testing.T, dir, sid string, runs []shellRun, at time.Time) string {
	c := transcripttest.NewCodex(t, sid, "/home/ana/plant", at, nil)
	c.Ask("Which seal and spare did we settle on for the K-2?")
	c.Line("turn_context", map[string]any{"cwd": "/home/ana/plant", "approval_policy": "on-request", "model": "gpt-5-codex"})
	for i, r := range runs {
		args := transcripttest.JSONLine(t, map[string]any{"cmd": r.command, "workdir": "/home/ana/plant", "yield_time_ms": 10000, "max_output_tokens": 10000})
		out := fmt.Sprintf("Chunk ID: %06x\nWall time: 0.0513 seconds\nProcess exited with code 0\nOriginal token count: %d\nOutput:\n%s", 0x7be1c0+i, len(r.stdout)/4, r.stdout)
		c.Call(fmt.Sprintf("call_%02d", i+1), "exec_command", strings.TrimSpace(args), out)
	}
	c.Answer(cliAgentOwn)
	return c.Write(filepath.Join(dir, "codex", "sessions", "2026", "04", "02", "rollout-2026-04-02T10-00-00-"+sid+".jsonl"))
}

func TestForgetErasesQuotesInCLIAnswersRunThroughAShell(t *testing.T) {
	_, mem := mcpEnv(t)
	cliQuotesSeed(t, mem)
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
	for _, args := range [][]string{
		{"get", "conv-gone", "conv-gone-0"},
		{"get", "--json", "conv-gone"},
		{"sessions"},
		{"sessions", "--json"},
		{"projects"},
	} {
		runs = append(runs, shellRun{"ireneo " + strings.Join(args, " "), cli(args...)})
	}
	// Two answers in one output, the second of a kept conversation.
	runs = append(runs, shellRun{"ireneo sessions --limit 5; ireneo get conv-kept", cli("sessions", "--limit", "5") + cli("get", "conv-kept")})
	for _, r := range runs {
		if !strings.HasPrefix(r.stdout, plumbing.ResultMarker) && !strings.Contains(r.stdout, `"marker": "`+plumbing.ResultMarker+`"`) {
			t.Fatalf("%s: the answer carries no marker:\n%s", r.command, r.stdout)
		}
		if r.command != "ireneo projects" && !strings.Contains(r.stdout, cliGoneToken) {
			t.Fatalf("%s should quote the conversation to forget:\n%s", r.command, r.stdout)
		}
	}

	harness := t.TempDir()
	ccSID, cxSID := "7a2e9c41-1111-4222-8333-444455556666", "019c8a71-0e3b-7c21-9a5d-2b6f8e4c1d07"
	at := time.Date(2026, 4, 2, 10, 0, 0, 0, time.UTC)
	paths := []string{ccBashTranscript(t, harness, ccSID, runs, at), codexExecRollout(t, harness, cxSID, runs, at)}

	// Imported alone into a memory that holds nothing else, the answers
	// are not searchable: a token only they hold is found nowhere, the
	// agent's own words are.
	_, alone := mcpEnv(t)
	a := "--memory=" + alone
	if code, out, errs := ireneo(t, append([]string{a, "import", "--no-scrub"}, paths...)...); code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	for _, tok := range []string{cliGoneToken, cliKeptToken} {
		if _, out, _ := ireneo(t, a, "recall", tok); !strings.Contains(out, "No past conversation matches") {
			t.Fatalf("recall %s in a memory holding only the agent's transcript finds the CLI's answers:\n%s", tok, out)
		}
		if _, out, _ := ireneo(t, a, "sessions", "--query", tok); !strings.Contains(out, "0 conversations of 0") {
			t.Fatalf("sessions --query %s finds the agent's transcript by the CLI's answers:\n%s", tok, out)
		}
	}
	if _, out, _ := ireneo(t, a, "recall", "CLIAGENTWORDS"); !strings.Contains(out, "CLIAGENTWORDS") {
		t.Fatalf("recall of the agent's words:\n%s", out)
	}

	if code, out, errs := ireneo(t, append([]string{m, "import", "--no-scrub"}, paths...)...); code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	var agentFiles []string
	for _, sid := range []string{ccSID, cxSID} {
		for _, p := range grepMemory(t, mem, cliGoneToken) {
			if strings.Contains(filepath.Base(p), sid[:8]) {
				agentFiles = append(agentFiles, p)
			}
		}
	}
	if len(agentFiles) != 2 {
		t.Fatalf("before the forget both agents' files should quote the conversation: %v", agentFiles)
	}

	out := cli("forget", "--yes", "conv-gone")
	// In each agent's file: get's text and --json answers whole, a line of
	// each sessions table (two), an entry of sessions --json.
	if !strings.Contains(out, "erased 10 quotes of them from 2 other conversations") {
		t.Fatalf("forget output does not say what it erased from other conversations:\n%s", out)
	}
	if found := grepMemory(t, mem, cliGoneToken); len(found) > 0 {
		t.Fatalf("the forgotten conversation's text is still in %v", found)
	}
	// The positive control: the same grep finds the kept conversation's
	// token in the agent's file, in the same answers, and the agent's own
	// words are there.
	for _, f := range agentFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(cliKeptToken)) {
			t.Errorf("the kept conversation's quotes went from %s too", f)
		}
		if !bytes.Contains(data, []byte(cliAgentOwn)) {
			t.Errorf("%s lost the agent's own words", f)
		}
	}
	if _, out, _ := ireneo(t, m, "recall", "CLIAGENTWORDS"); !strings.Contains(out, "CLIAGENTWORDS") {
		t.Fatalf("recall of the agent's words after the forget:\n%s", out)
	}

	// The watcher imports the transcript again as Claude Code keeps it,
	// with the original answers: the quotes stay erased.
	if code, out, errs := ireneo(t, append([]string{m, "import", "--no-scrub"}, paths...)...); code != 0 {
		t.Fatalf("re-import: %d %s %s", code, out, errs)
	}
	if found := grepMemory(t, mem, cliGoneToken); len(found) > 0 {
		t.Fatalf("a re-import brought the forgotten text back in %v", found)
	}
}
