package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/memory"
)

// A turn holding an OSC 52 clipboard write and a screen clear (ESC[2J): get
// and recall print it escaped, not for the terminal to run; --json holds it
// as stored, escaped by JSON; the stored text is unchanged.
func TestGetAndRecallPrintControlSequencesEscaped(t *testing.T) {
	payload := "flamingo rollout notes \x1b]52;c;cm0gLXJmIH4=\x07 then \x1b[2J\x1b[H and \r overwritten"
	dir := t.TempDir()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	storeSessions(t, dir, chatSession("conv-esc", "Escapes \x1b[31mred", "", at, payload, "ok"))
	for _, args := range [][]string{{"get", "conv-esc"}, {"recall", "flamingo rollout"}, {"sessions"}} {
		code, out, errs := run(t, append([]string{"--memory", dir}, args...)...)
		if code != 0 {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
		if strings.ContainsAny(out, "\x1b\x07\r") {
			t.Errorf("%v prints control characters raw:\n%q", args, out)
		}
		if args[0] != "sessions" && !strings.Contains(out, `\x1b]52;c;cm0gLXJmIH4=\a then \x1b[2J\x1b[H and \r overwritten`) {
			t.Errorf("%v does not show the turn escaped:\n%s", args, out)
		}
		if !strings.Contains(out, `Escapes \x1b[31mred`) {
			t.Errorf("%v does not show the title escaped:\n%s", args, out)
		}
	}
	code, out, _ := run(t, "--memory", dir, "get", "--json", "conv-esc")
	var tr struct {
		Turns []struct {
			Blocks []struct{ Text string } `json:"blocks"`
		} `json:"turns"`
	}
	if err := json.Unmarshal([]byte(out), &tr); code != 0 || err != nil || tr.Turns[0].Blocks[0].Text != payload {
		t.Fatalf("get --json: %d %v %q", code, err, out)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("get --json holds control characters raw:\n%q", out)
	}
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s, err := m.LoadSession(context.Background(), "conv-esc")
	if err != nil || s.Turns[0].Blocks[0].Text != payload {
		t.Fatalf("the stored turn changed: %v %q", err, s.Turns[0].Blocks[0].Text)
	}
}
