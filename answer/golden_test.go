package answer

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the renderers")

func TestMain(m *testing.M) {
	time.Local = time.UTC // audit's table shows local time
	os.Exit(m.Run())
}

// golden compares got with testdata/golden/name, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGoldenForms -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from its golden:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestGoldenForms: every form of every answer, current and earlier, is
// rendered as its golden says, known again for Ireneo's, and a forget of
// the conversation it quotes (as memory's forget calls Erase: with the
// forgotten conversation's passages) leaves [forgotten] where the quote
// was, the kept conversation's quotes and the rest as they were (the
// erased golden holds the bytes), still known for Ireneo's.
func TestGoldenForms(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range append(forms(), edgeForms()...) {
		t.Run(f.name, func(t *testing.T) {
			if seen[f.name] {
				t.Fatal("two forms of one name")
			}
			seen[f.name] = true
			golden(t, f.name, f.text)
			known := func(text string) bool {
				if f.after {
					return !Is(text) && Within(text) > 0
				}
				return Is(text)
			}
			if f.none {
				if Is(f.text) || Within(f.text) > 0 {
					t.Fatalf("read as Ireneo's: %s", f.text)
				}
				return
			}
			if !known(f.text) {
				t.Fatalf("not known for Ireneo's (after other output: %v):\n%s", f.after, f.text)
			}
			if got := MayQuote(f.text, goneOnly); got != (f.quotes > 0) {
				t.Errorf("MayQuote = %v, want %v", got, f.quotes > 0)
			}
			out, n := Erase(f.text, goneOnly, gonePassages())
			if n != f.quotes {
				t.Errorf("%d quotes erased, want %d:\n%s", n, f.quotes, out)
			}
			if f.quotes == 0 {
				if out != f.text {
					t.Errorf("nothing to erase, yet it changed:\n%s", out)
				}
				return
			}
			golden(t, strings.TrimSuffix(f.name, filepath.Ext(f.name))+".erased"+filepath.Ext(f.name), out)
			low := strings.ToLower(out)
			if strings.Contains(low, goneToken) || strings.Contains(low, "gone-1") {
				t.Errorf("the forgotten conversation is still quoted:\n%s", out)
			}
			if f.keeps && !strings.Contains(out, keptToken) {
				t.Errorf("the kept conversation's quote went too:\n%s", out)
			}
			if !strings.Contains(out, ForgottenText) {
				t.Errorf("no %s where the quote was:\n%s", ForgottenText, out)
			}
			if !known(out) {
				t.Errorf("no longer known for Ireneo's:\n%s", out)
			}
			if strings.Contains(f.text, "AGENTOUTPUT") && strings.Count(out, "AGENTOUTPUT") != strings.Count(f.text, "AGENTOUTPUT") {
				t.Errorf("the shell's own output went too:\n%s", out)
			}
			// What is no quote stays: the answers' closing hints, the
			// envelope's lines, the kept lines of a report.
			for _, line := range strings.Split(f.text, "\n") {
				if staysWhole(line) && strings.Count(out, line) < strings.Count(f.text, line) {
					t.Errorf("%q went with the quote:\n%s", line, out)
				}
			}
			if json.Valid([]byte(f.text)) && !json.Valid([]byte(out)) {
				t.Errorf("valid JSON became invalid:\n%s", out)
			}
			// Erasing again finds nothing.
			if again, k := Erase(out, goneOnly, gonePassages()); k != 0 || again != out {
				t.Errorf("a second erase found %d more", k)
			}
		})
	}
}

// The text forms keep everything but the forgotten unit byte for byte: the
// expected text is the rendered answer with the unit the renderer wrote
// for the forgotten conversation replaced.
func TestEraseKeepsTheRest(t *testing.T) {
	hits := formHits()
	cli := FitRecall(query, hits, 4000, countTokens)
	_, mcpText := MCPRecall(query, cli, nil, 4000, countTokens)
	convs := []Conversation{keptConversation(), goneConversation()}
	_, sessText := MCPSessions(convs, 2, 0, nil, 4000, countTokens)
	gone := briefOf(goneConversation(), nil)
	cliSess := CLISessions(convs, 2)
	cliGoneLine := strings.Split(CLISessions([]Conversation{goneConversation()}, 1), "\n")[1] + "\n"
	for _, c := range []struct {
		name, text, unit, with string
	}{
		{"mcp recall", mcpText, hitText(1, hitOf(cli.Hits[0], nil)), "[1] " + ForgottenText + "\n"},
		{"cli recall", CLIRecall(cli), hitEntry(1, cli.Hits[0]), "[1] " + ForgottenText + "\n"},
		{"mcp sessions", sessText, sessionLine(gone), sessionLineHead + ForgottenText + "\n"},
		{"cli sessions", cliSess, cliGoneLine, cliIndent + ForgottenText + "\n"},
		{"cli get between output", "Already up to date.\n" + CLIGet(goneWindow()) + "PASS\n", CLIGet(goneWindow()), Marker + " " + ForgottenText + "\n"},
	} {
		if !strings.Contains(c.text, c.unit) {
			t.Fatalf("%s: the unit is not in the answer", c.name)
		}
		want := strings.Replace(c.text, c.unit, c.with, 1)
		if got, n := Erase(c.text, goneOnly, nil); n != 1 || got != want {
			t.Errorf("%s: %d erased\n%s\nwant\n%s", c.name, n, got, want)
		}
	}
	// The last of two hits, with the closing hint after it.
	hits[0], hits[1] = hits[1], hits[0]
	cli = FitRecall(query, hits, 4000, countTokens)
	_, mcpText = MCPRecall(query, cli, nil, 4000, countTokens)
	want := strings.Replace(mcpText, hitText(2, hitOf(cli.Hits[1], nil)), "[2] "+ForgottenText+"\n", 1)
	if got, _ := Erase(mcpText, goneOnly, nil); got != want || !strings.HasSuffix(got, "\n\n"+readAroundHint+"\n") {
		t.Errorf("the last hit:\n%s\nwant\n%s", got, want)
	}
}

// staysWhole reports a line no erasure may take: an answer's closing hint
// or paging line, a harness envelope's line, a line of the shell's own.
func staysWhole(line string) bool {
	if strings.Contains(line, goneToken) || strings.Contains(line, "gone-1") || strings.TrimSpace(line) == "" {
		return false
	}
	for _, p := range []string{readAroundHint, "more: call sessions again", scanMoreHead, scanEvery, untrustedClose, "<untrusted_context>",
		"Process Group PGID", "Exit Code:", "Stderr:", "Output:", "Wall time:", "Chunk ID:", "AGENTOUTPUT", "forgot claude_code", "erased "} {
		if strings.Contains(line, p) {
			return true
		}
	}
	return false
}
