package redact

import (
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"
	"github.com/ireneo-app/ireneo/scrub"
	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// A conversation's and a text's redaction and masks, with the real
// scrubber. A stored memory's scrub is tested in package memscrub.

func newTestScrubber(t testing.TB) *scrub.Scrubber {
	t.Helper()
	sc, err := scrub.New([]scrub.Pattern{{Name: scrubtest.HostRule, Regex: scrubtest.HostRegex}})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestRedactSessionCountsAndTitle(t *testing.T) {
	sc := newTestScrubber(t)
	sec := scrubtest.Secrets()
	s := funestest.Conv("t", funes.HarnessClaude, "token "+sec["github"].Secret, "", funestest.Day0, "plain words", "and "+sec["aws"].Secret)
	counts := RedactSession(sc, s)
	if counts["github-pat"] != 1 || counts["aws-access-token"] != 1 {
		t.Fatalf("counts %v", counts)
	}
	if s.Title != "token [REDACTED:github-pat]" || s.Turns[0].Blocks[0].Text != "plain words" {
		t.Fatalf("redacted session: %q %q", s.Title, s.Turns[0].Blocks[0].Text)
	}
	if RedactSession(sc, s) != nil || RedactSession(sc, nil) != nil {
		t.Fatal("a second redaction found more")
	}
}

func TestMaskTextShowsOnlyMaskedPreviews(t *testing.T) {
	sc := newTestScrubber(t)
	sec := scrubtest.Secrets()
	gh := sec["github"].Secret
	title := "Deploy fails, my token is " + gh + " and nothing else"
	got := MaskText(sc, title)
	if strings.Contains(got, gh[:6]) || strings.Contains(got, gh[6:]) {
		t.Fatalf("masked title still shows the token: %q", got)
	}
	if want := "Deploy fails, my token is " + MaskSecret(gh) + " and nothing else"; got != want {
		t.Fatalf("MaskText = %q, want %q", got, want)
	}
	if got := MaskText(sc, "no secret here"); got != "no secret here" {
		t.Fatalf("clean text changed: %q", got)
	}
	if got := MaskText(nil, title); got != title {
		t.Fatalf("nil finder changed the text")
	}
}

// FuzzCutSecret: a title cut anywhere, with any secrets found elsewhere,
// gets spans inside it that do not overlap, and loses no text but theirs.
func FuzzCutSecret(f *testing.F) {
	f.Add("Deploy fails. My key is AKIA… and secret wJalrXUtnF…", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8KDh3Lm2", 0)
	f.Add("…", "x", 0)
	f.Add("a\xff\xfe…", "\xfe\xfe\xfe\xfe\xfe", 1)
	f.Fuzz(func(t *testing.T, title, secret string, pre int) {
		var spans []Span
		if pre > 0 && pre < len(title) {
			spans = []Span{{"x", 0, pre}}
		}
		got := WithCutSecret(title, spans, map[string]string{secret: "r"})
		last := 0
		for _, sp := range got {
			if sp.Start < last || sp.End < sp.Start || sp.End > len(title) {
				t.Fatalf("bad span %+v in %q (after %d)", sp, title, last)
			}
			last = sp.End
		}
	})
}
