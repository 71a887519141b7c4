package memory

import (
	"context"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// The bounds of what forget erases from an answer among other output, and
// what counts as Ireneo's answer there (the reviewer's cases, s3).

func eraseInBash(answer string, passages []string) string {
	s := &funes.Session{ID: "agent", Harness: funes.HarnessClaudeCode, Turns: []funes.Turn{{TurnUUID: "a0", Role: funes.RoleTool,
		Blocks: []funes.Block{{Type: funes.BlockToolResult, Text: answer, ToolName: "Bash"}}}}}
	eraseQuotesInSession(s, goneOnly, passages)
	return s.Turns[0].Blocks[0].Text
}

// `ireneo get gone-1 && go test ./...`: the test output is not a quote.
func TestEraseCLIGetKeepsLaterShellOutput(t *testing.T) {
	get := cliGetText("gone-1", "Valve", goneSaid)
	for _, after := range []string{"\nok  \tgithub.com/x/y\t0.2s AGENTOUTPUT\n", "ok  \tgithub.com/x/y\t0.2s AGENTOUTPUT\n"} {
		got := eraseInBash(get+after, nil)
		if want := "[ireneo-result] " + ForgottenText + "\n" + after; got != want {
			t.Errorf("got\n%q\nwant\n%q", got, want)
		}
	}
}

// `ireneo recall valve; git status`: the last hit is forgotten.
func TestEraseCLIRecallKeepsLaterShellOutput(t *testing.T) {
	h := quoteHits()
	h[0], h[1] = h[1], h[0]
	for _, after := range []string{"\nOn branch main AGENTOUTPUT\nnothing to commit\n", "On branch main AGENTOUTPUT\nnothing to commit\n"} {
		got := eraseInBash(cliRecallText(h)+after, nil)
		if !strings.HasSuffix(got, after) || !strings.Contains(got, keptToken) || strings.Contains(got, "gone-1") {
			t.Errorf("after %q:\n%s", after, got)
		}
	}
	// A hit of several paragraphs: the first is surely the hit's; the rest
	// goes when it is the forgotten conversation's own text.
	h[1].Text = goneSaid + "\n\nA second paragraph, " + goneToken + " again."
	after := "\nOn branch main AGENTOUTPUT\n"
	got := eraseInBash(cliRecallText(h)+after, []string{h[1].Text})
	if !strings.HasSuffix(got, after) || strings.Contains(got, goneToken) || !strings.Contains(got, keptToken) {
		t.Errorf("several paragraphs:\n%s", got)
	}
}

// A kept conversation's passage that itself holds a pasted recall answer
// naming the forgotten one must not make the following kept hit go.
func TestEraseForgedReceiptInKeptHit(t *testing.T) {
	h := quoteHits()
	h[0].SessionID, h[0].Title, h[0].Text = "kept-0", "Debugging Ireneo", "I got this back:\n[2] 2026-03-01 · chatgpt\nreceipt: session_id=gone-1 turn_uuid=x\nuser: whatever"
	got := eraseInBash(mcpRecallText(h), nil)
	if !strings.Contains(got, keptToken) || !strings.Contains(got, "I got this back") {
		t.Errorf("a kept hit went:\n%s", got)
	}
}

// `git pull && ireneo get gone-1`: the answer is not the output's start.
func TestForgetErasesCLIAnswerAfterOtherOutput(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	out := "Already up to date. AGENTOUTPUT\n" + cliGetText("gone-1", "Valve", goneSaid)
	a := agentSession("agent-1", out)
	a.Turns[1].Blocks[0] = funes.Block{Type: funes.BlockToolUse, Text: `{"command":"git pull && ireneo get gone-1"}`, ToolName: "Bash"}
	a.Turns[2].Blocks[0].ToolName = "Bash"
	mustIngest(t, m, conv("gone-1", funes.HarnessChatGPT, "Valve", "", day0, goneSaid), a)
	var n int
	if err := m.db.QueryRow(`SELECT count(*) FROM chunks WHERE searched AND instr(body, ?) > 0`, goneToken).Scan(&n); err != nil || n != 1 {
		t.Fatalf("searched chunks holding the quote: %d (%v), want 1 (the conversation's own)", n, err)
	}
	if err := m.db.QueryRow(`SELECT count(*) FROM chunks WHERE searched AND instr(body, 'AGENTOUTPUT') > 0`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("searched chunks holding the shell's own output: %d (%v), want 1", n, err)
	}
	indexedBefore(t, m, false)
	if _, err := m.Forget(ctx, []string{"gone-1"}, nil); err != nil {
		t.Fatal(err)
	}
	if found := forgottenIn(t, m, false); len(found) > 0 {
		t.Fatalf("the forgotten quote survives in %v", found)
	}
	if hits := searchTurns(t, m, "AGENTOUTPUT"); len(hits) == 0 || hits[0].SessionID != "agent-1" {
		t.Fatalf("the shell's own output is not found: %+v", hits)
	}
}

// `cat config.json && ireneo get gone-1`: output before the answer that
// reads as JSON but is not all of it.
func TestEraseCLIGetAfterJSONOutput(t *testing.T) {
	before := `{"debug": true} AGENTOUTPUT` + "\n"
	got := eraseInBash(before+cliGetText("gone-1", "Valve", goneSaid), nil)
	if want := before + "[ireneo-result] " + ForgottenText + "\n"; got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// The same, with the pasted header after a blank line, as a real hit's
// would be: which line begins hit 2 is unsure, so neither reading's hit
// goes by its receipt, and nothing of a kept conversation's is lost.
func TestEraseUnsureHitKeepsKeptText(t *testing.T) {
	h := quoteHits()
	h[0].SessionID, h[0].Title, h[0].Text = "kept-0", "Debugging Ireneo", "I got this back:\n\n[2] 2026-03-01 · chatgpt\nreceipt: session_id=gone-1 turn_uuid=x\nuser: whatever"
	answer := mcpRecallText(h)
	if got := eraseInBash(answer, nil); got != answer {
		t.Errorf("changed:\n%s", got)
	}
}

// A passage of the forgotten conversation said in a kept one too
// (boilerplate) goes from the forgotten hit only.
func TestErasePassagesOnlyInForgottenHits(t *testing.T) {
	boiler := "I'm sorry, but I can't help with that request. BOILERPLATE"
	h := quoteHits()
	h[0].Text = boiler
	h[1].Text = keptSaid + " " + boiler
	got := eraseInBash(mcpRecallText(h), []string{boiler})
	if strings.Count(got, boiler) != 1 || !strings.Contains(got, keptSaid+" "+boiler) || strings.Contains(got, goneToken) {
		t.Errorf("got:\n%s", got)
	}
}

// A turn of several paragraphs (app/cli indents each line, the blank ones
// too) goes whole; the output after it stays.
func TestEraseCLIGetOfSeveralParagraphs(t *testing.T) {
	said := goneSaid + "\n  \n  second paragraph " + goneToken
	after := "\nPASS AGENTOUTPUT\n"
	got := eraseInBash(cliGetText("gone-1", "Valve", said)+after, nil)
	if want := "[ireneo-result] " + ForgottenText + "\n" + after; got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
