package scrubber

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
)

// TestOneRuleNamePerSecret: one secret, found by the password rule in one
// message and by gitleaks' generic rule in another (db_secret = "…"), is
// named by one rule in the scan (the Scrub screen's rows) and in what
// Redact leaves (issue 32).
func TestOneRuleNamePerSecret(t *testing.T) {
	ctx := context.Background()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	v := "Zq8kLm2Xv9pR4tWb7Nc3"
	sc := mustScrubber(t)
	rules := map[string]bool{}
	for _, text := range []string{"my password is " + v, `db_secret = "` + v + `"`} {
		sc.FindSecrets(text, func(rule string, _, _ int) { rules[rule] = true })
	}
	if len(rules) < 2 {
		t.Fatalf("the two texts should wake two rules, woke %v: the test sees nothing", rules)
	}
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	s := &funes.Session{ID: "two-rules", Harness: funes.HarnessChatGPT, Title: "Database login", Turns: []funes.Turn{
		{TurnUUID: "a", Seq: 0, TS: t0, Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: "my password is " + v}}},
		{TurnUUID: "b", Seq: 1, TS: t0.Add(time.Minute), Role: funes.RoleAssistant, Blocks: []funes.Block{{Type: funes.BlockText, Text: "Put it in the config:\n\n    db_secret = \"" + v + "\""}}},
	}}
	if _, err := m.Ingest(ctx, []*funes.Session{s}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	scan, err := memscrub.Scan(ctx, m, memscrub.Options{Finder: sc})
	if err != nil {
		t.Fatal(err)
	}
	got, ids := map[string]int{}, map[string]bool{}
	for _, f := range scan.Findings {
		got[f.Rule]++
		ids[f.ID] = true
	}
	if len(got) != 1 || len(scan.Findings) != 2 || len(ids) != 1 {
		t.Fatalf("the secret is named by %v in %d findings with %d ids, want one rule and one id", got, len(scan.Findings), len(ids))
	}
	if _, err := memscrub.Apply(ctx, m, memscrub.Options{Finder: sc}); err != nil {
		t.Fatal(err)
	}
	tr, err := conversations.Get(ctx, m, conversations.GetOptions{SessionID: "chatgpt:two-rules"})
	if err != nil {
		t.Fatal(err)
	}
	var placeholders []string
	for _, turn := range tr.Turns {
		text := turn.Blocks[0].Text
		if i := strings.Index(text, "[REDACTED:"); i >= 0 {
			placeholders = append(placeholders, text[i:i+strings.IndexByte(text[i:], ']')+1])
		}
	}
	if len(placeholders) != 2 || placeholders[0] != placeholders[1] {
		t.Fatalf("Redact left %q, want the same placeholder twice", placeholders)
	}
}
