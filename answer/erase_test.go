package answer

import (
	"encoding/json"
	"strings"
	"testing"
)

// Bad input costs nothing and errors nowhere: what cannot be read is left
// as it is.
func TestEraseQuotesMalformed(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 40) + `"` + Marker + ` session_id=gone-1"` + strings.Repeat("}", 40)
	for _, text := range []string{
		"",
		Marker,
		Marker + " Past conversations matching \"q\": 1 passage(s)\n[1] 2026 · chatgpt\nreceipt: session_id=",
		Marker + " Past conversations matching \"q\": 1 passage(s)\n[1] 2026 · chatgpt\n",
		Marker + " Past conversations matching \"q\": 1 passage(s)\nreceipt: session_id=gone-1 turn_uuid=x\nuser: " + goneToken,
		Marker + " Past conversations matching \"q\": 1 passage(s)\n[7] 2026 · chatgpt\nreceipt: session_id=gone-1 turn_uuid=x\n",
		Marker + ` Conversation "unterminated (chatgpt` + "\nsession_id: kept-1 · 1 turns",
		`{"marker":"` + Marker + `","hits":[{"session_id":"gone-1","text":"` + goneToken,
		`{"marker":"` + Marker + `","hits":[{"session_id":7,"text":"x"}]}`,
		`[{"type":"text","text":"` + Marker + ` session_id=\ud800"}]`,
		deep,
		"\xff\xfe" + Marker + " session_id=gone-1",
		// The CLI's forms, cut or bent.
		Marker + " Valve · gone-1\n\n> [0] 2026-03-01 09:00 user (t0)\n  " + goneToken,
		Marker + " Valve · chatgpt · gone 1\n\n> [0] 2026-03-01 09:00 user (t0)\n  " + goneToken,
		Marker + " Valve · chatgpt · gone-1\nprojects: plant\n> [0] 2026-03-01 09:00 user (t0)\n  " + goneToken,
		Marker + "\n  2026-03-01  chatgpt     gone-1  2 turns\n",
		Marker + " \n* 2026-03-01  chatgpt     gone-1      2 turns Valve\n",
		"Chunk ID: 1\nOutput:\n" + Marker + "\n",
	} {
		got, n := Erase(text, goneOnly, nil)
		if text == deep {
			continue // too deep to follow: either way, no panic
		}
		if n != 0 || got != text {
			t.Errorf("Erase(%q) = %q, %d: want it unchanged", text, got, n)
		}
	}
}

// A quote inside a JSON string (the text content of a whole result, as
// encoding/json writes it, HTML escaped) is re-encoded as it was written:
// the kept hit's bytes stay the file's own.
func TestEraseKeepsStringEscapes(t *testing.T) {
	hits := formHits()
	hits[1].Text = "The " + keptToken + " pump <b>replaced</b> & tested."
	_, text := MCPRecall(query, &RecallResult{Hits: hits}, nil, 4000, countTokens)
	whole, err := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	if err != nil {
		t.Fatal(err)
	}
	got, n := Erase(string(whole), goneOnly, nil)
	if n != 1 || strings.Contains(got, goneToken) || !strings.Contains(got, `pump \u003cb\u003ereplaced\u003c/b\u003e \u0026 tested.`) || !json.Valid([]byte(got)) {
		t.Fatalf("got %d:\n%s", n, got)
	}
}

func TestMayQuoteGone(t *testing.T) {
	for text, want := range map[string]bool{
		"receipt: session_id=gone-1 turn_uuid=x":                 true,
		"session_id: gone-1 · 2 turns":                           true,
		"- 2026 · chatgpt · \"t\" · 1 turns · session_id gone-1": true,
		`{"session_id":"gone-1"}`:                                true,
		`{"session_id" : "gone-1"}`:                              true,
		`"text":"{\"session_id\":\"gone-1\"}"`:                   true,
		`"text":"{\\\"session_id\\\":\\\"gone-1\\\"}"`:           true,
		`{"session_id":"gone\u002d1"}`:                           true, // an escape: maybe
		"call get with its session_id and turn_uuid.":            false,
		`{"session_id":"kept-1"},{"session_id":"kept-1"}`:        false,
		"session_id":  false,
		"session_id=": false,
	} {
		if got := mayQuoteGone(text, goneOnly); got != want {
			t.Errorf("mayQuoteGone(%q) = %v, want %v", text, got, want)
		}
	}
}

// A passage with quotes and HTML in it is found inside a JSON string too
// (the text is read decoded, and written back as it was encoded), and what
// is left stays valid JSON.
func TestErasePassagesInJSON(t *testing.T) {
	p := `He said "stop the pump now, the <seal> is leaking" & left.`
	hits := formHits()
	// A forged receipt ends the forgotten hit early: the passage after it
	// goes by being the forgotten conversation's own.
	hits[0].Text = "Pasted:\n\n[2] 2026-01-01 09:00 UTC · chatgpt\nreceipt: session_id=kept-1 turn_uuid=x\nuser: " + p
	hits[0].Neighbors = nil
	_, text := MCPRecall(query, &RecallResult{Hits: hits}, nil, 4000, countTokens)
	if got, _ := Erase(text, goneOnly, nil); !strings.Contains(got, "stop the pump") {
		t.Fatal("the receipts alone should miss the text after the forged receipt, or this test tests nothing")
	}
	for _, html := range []bool{false, true} {
		q := jsonString(text, html)
		doc := `{"content":[{"type":"text","text":` + q + `}]}`
		got, n := Erase(doc, goneOnly, []string{p})
		if n != 1 || strings.Contains(got, "stop the pump") || !json.Valid([]byte(got)) || !strings.Contains(got, keptToken) {
			t.Fatalf("html=%v: got %d %s", html, n, got)
		}
	}
}

func TestCLIMayQuoteGone(t *testing.T) {
	get := CLIGet(goneWindow())
	for text, want := range map[string]bool{
		get:                  true,
		CLIGet(keptWindow()): false,
		CLISessions([]Conversation{keptConversation(), goneConversation()}, 2):                                           true,
		CLIForget(&ForgetReport{Sessions: []ForgottenSession{{SessionID: "gone-1", Source: "chatgpt", Title: "Valve"}}}): true,
		CLIForget(&ForgetReport{Sessions: []ForgottenSession{{SessionID: "kept-1", Source: "chatgpt", Title: "Pump"}}}):  false,
		"Output:\n" + get:                                        true,
		strings.TrimPrefix(get, Marker+" "):                      false, // before the marker
		Marker + " Valve · chatgpt · gone-1\nnot get's\n":        false,
		Marker + " Valve · chatgpt · gone-1\n\nno turn header\n": false,
		Marker + " Valve · chatgpt · gone-1\n":                   true,  // no turns
		Marker + "\n     3  gone-1\n":                            false, // a project so named
		"Nothing of Ireneo's: gone-1 · chatgpt":                  false,
	} {
		if got := cliMayQuoteGone(text, goneOnly); got != want {
			t.Errorf("cliMayQuoteGone(%q) = %v, want %v", text, got, want)
		}
	}
}

// FuzzErase: any text, as a tool result may hold it, is rewritten without
// a panic; unchanged when nothing was erased; still valid JSON when it was;
// never erased past the quick look.
func FuzzErase(f *testing.F) {
	for _, fm := range forms() {
		f.Add(fm.text)
	}
	f.Add(Marker + " Past conversations matching \"q\": 1 passage(s)\n[1] 2026 · chatgpt\nreceipt: session_id=gone-1 turn_uuid=x\n")
	f.Add(`{"session":{"session_id":"gone-1"},"turns":[]}`)
	f.Fuzz(func(t *testing.T, text string) {
		got, n := Erase(text, goneOnly, []string{goneSaid})
		if n == 0 && got != text {
			t.Fatalf("nothing erased, yet the text changed: %q → %q", text, got)
		}
		if n > 0 && !MayQuote(text, goneOnly) {
			t.Fatalf("the quick look passes over a quote erased: %q", text)
		}
		if tt := strings.TrimSpace(text); n > 0 && json.Valid([]byte(text)) && !strings.HasPrefix(tt, Marker) && !json.Valid([]byte(got)) {
			t.Fatalf("valid JSON became invalid: %q → %q", text, got)
		}
	})
}

// The CLI's context block is printed safe for a terminal: a forgotten
// passage holding control characters, past a forged receipt, is found
// there as Terminal wrote it.
func TestEraseFindsEscapedPassagesInTheCLIBlock(t *testing.T) {
	p := "The flange \x1b[31mleaks\x1b[0m again, Priya wrote in the log today."
	hits := formHits()
	hits[0].Text = "Pasted:\n\n[2] 2026-01-01 09:00 UTC · chatgpt\nreceipt: session_id=kept-1 turn_uuid=x\nuser: " + p
	hits[0].Neighbors = nil
	text := CLIRecall(FitRecall(query, hits, 4000, countTokens)) + "On branch main\n"
	got, n := Erase(text, goneOnly, []string{p})
	if n == 0 || strings.Contains(got, "leaks") || !strings.Contains(got, keptToken) || !strings.HasSuffix(got, "On branch main\n") {
		t.Fatalf("got %d:\n%s", n, got)
	}
}
