package scrubber

import (
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/scrub/scrubtest"
	"github.com/ireneo-app/ireneo/settings"
)

func TestImportRedactor(t *testing.T) {
	st := settings.Default()
	st.UserPatterns = []settings.Pattern{{Name: scrubtest.HostRule, Regex: scrubtest.HostRegex}}
	st.ScrubOnImport = false
	if h, err := ImportRedactor(st); h != nil || err != nil {
		t.Fatalf("scrub on import off: hook %v, err %v", h != nil, err)
	}
	st.ScrubOnImport = true
	h, err := ImportRedactor(st)
	if err != nil || h == nil {
		t.Fatalf("scrub on import on: %v", err)
	}
	tok, host := scrubtest.GitHubToken(5), scrubtest.Secrets()["host"].Secret
	s := &funes.Session{ID: "s", Harness: funes.HarnessCodex, Workdir: "/w/" + tok, Turns: []funes.Turn{
		{TurnUUID: "t", Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: "build on " + host}}}}}
	counts := h(s)
	if counts["github-pat"] != 1 || counts[scrubtest.HostRule] != 1 || strings.Contains(s.Workdir, tok) {
		t.Fatalf("counts %v, workdir %q", counts, s.Workdir)
	}
	a, _ := For(st.UserPatterns)
	b, _ := For(append([]settings.Pattern(nil), st.UserPatterns...))
	if a != b {
		t.Error("the same patterns built a second scrubber")
	}
	st.UserPatterns = []settings.Pattern{{Name: "broken", Regex: "(unclosed"}}
	if _, err := ImportRedactor(st); err == nil || !strings.Contains(err.Error(), `"broken"`) {
		t.Fatalf("bad pattern: %v", err)
	}
}
