package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// `echo checking && ireneo recall 'flamingo rollout'`, run by an agent's
// shell, printed the shell's line and then the CLI's no-match answer,
// which carried no marker and no newline: imported, the answer read as
// the shell's words, and recall returned it as a hit. End to end: today's
// answer (marked, ended) and the earlier build's (as it printed it), each
// after other output and with output after, in a Claude Code 2.1 Bash
// tool_result and a Codex 0.104 exec_command output, imported by the real
// importers into a memory holding nothing else: the query's words are
// found nowhere, the shell's own output and the agent's words are.
func TestNoMatchAnswerAfterShellOutputIsNotIndexed(t *testing.T) {
	_, mem := mcpEnv(t)
	m := "--memory=" + mem
	code, answer, errs := ireneo(t, m, "recall", "flamingo rollout")
	if code != 0 || !strings.Contains(answer, "No past conversation matches") {
		t.Fatalf("recall in an empty memory: %d %q %s", code, answer, errs)
	}
	if !strings.HasPrefix(answer, "[ireneo-result] ") || !strings.HasSuffix(answer, "\n") {
		t.Fatalf("the no-match answer is not marked and ended: %q", answer)
	}
	earlier := strings.TrimSuffix(strings.TrimPrefix(answer, "[ireneo-result] "), "\n")
	runs := []shellRun{
		{"echo CHECKINGWORDS && ireneo recall 'flamingo rollout'", "CHECKINGWORDS\n" + answer},
		{"echo CHECKINGWORDS && ireneo recall 'flamingo rollout'; echo DONEWORDS", "CHECKINGWORDS\n" + answer + "DONEWORDS\n"},
		{"echo CHECKINGWORDS && ireneo recall 'flamingo rollout'", "CHECKINGWORDS\n" + earlier},
		{"echo CHECKINGWORDS && ireneo recall 'flamingo rollout'; echo DONEWORDS", "CHECKINGWORDS\n" + earlier + "DONEWORDS\n"},
	}
	harness := t.TempDir()
	at := time.Date(2026, 4, 2, 10, 0, 0, 0, time.UTC)
	ccSID, cxSID := "3c9a1f20-aaaa-4bbb-8ccc-0123456789ab", "019c8a72-1f4c-7d32-8b6e-3c7f9d5e2a19"
	paths := []string{ccBashTranscript(t, harness, ccSID, runs, at), codexExecRollout(t, harness, cxSID, runs, at)}
	if code, out, errs := ireneo(t, append([]string{m, "import", "--no-scrub"}, paths...)...); code != 0 || !strings.Contains(out, "imported 2 new") {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	if len(grepMemory(t, mem, "flamingo")) == 0 {
		t.Fatal("flamingo is in no file of the memory: the transcripts did not carry the answers")
	}
	for _, q := range []string{"flamingo rollout", "flamingo", "rollout"} {
		if _, out, _ := ireneo(t, m, "recall", q); !strings.Contains(out, "No past conversation matches") {
			t.Errorf("recall %q finds the no-match answer:\n%s", q, out)
		}
		if _, out, _ := ireneo(t, m, "sessions", "--query", q); !strings.Contains(out, "0 conversations of 0") {
			t.Errorf("sessions --query %q finds the agents' transcripts by the answer:\n%s", q, out)
		}
	}
	// The positive controls: the shell's output before it stays searched,
	// and so do the agents' own words.
	// Both agents said the same words: recall shows them once, with the
	// other conversation counted in its copies.
	for _, q := range []string{"CHECKINGWORDS", "CLIAGENTWORDS"} {
		_, out, _ := ireneo(t, m, "recall", "--json", q)
		var res struct{ Hits []struct{ Copies int } }
		json.Unmarshal([]byte(out), &res)
		n := 0
		for _, h := range res.Hits {
			n += 1 + h.Copies
		}
		if n < 2 {
			t.Errorf("recall %s should find both agents' transcripts:\n%s", q, out)
		}
	}
}
