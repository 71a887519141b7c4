package importers

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ireneo-app/ireneo/conversations"
)

// upgradeDir holds what the importer before issue 12 made of the fixtures
// (written by that build, commit cd8a692^), to stand for an old memory:
// claude-code-before-issue-12 from the Claude Code fixtures, and
// other-sources-before-issue-12 from the ChatGPT, Claude.ai and Codex ones.
var upgradeDir = filepath.Join("testdata", "upgrade")

// Importing the new version over an old memory replaces the old
// conversations in place: no duplicates, the person's tags and stars kept;
// and a second import is a no-op.
func TestImportOverOldMemory(t *testing.T) {
	cases := []struct {
		name     string
		old      string
		inputs   []string
		oldCount int
		newCount int // conversations only the new importer finds
		marked   string
		turns    int // the marked conversation's turns after the upgrade
	}{
		{
			// Six of the seven old conversations changed (the flat-layout
			// session is as it was, but for its times' width); the 1.0.x
			// file's two inline sub-agents are new, and so are the 1.0.105
			// compaction file's session and its summary (a fixture the old
			// importer never saw).
			name:     "claude code",
			old:      "claude-code-before-issue-12.funes.jsonl",
			inputs:   []string{testdata("claudecode-shapes"), testdata("real", "claude-code")},
			oldCount: 7, newCount: 4,
			marked: "e9fb405b-169f-40eb-9396-7e75076f045d-agent-a485154", turns: 27,
		},
		{
			// Claude.ai in time order, ChatGPT citations kept, Codex failed
			// calls, fixed-width times: every old conversation is replaced
			// or the same, none is added beside it.
			name: "chatgpt, claude, codex",
			old:  "other-sources-before-issue-12.funes.jsonl",
			inputs: []string{testdata("chatgpt"), testdata("chatgpt-sharded"), testdata("claude"), testdata("claude-2026"),
				testdata("codex"), testdata("real", "codex"), testdata("real", "claude-ai-conversation-api")},
			oldCount: 12,
			marked:   "c-2", turns: 4,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			fresh := newMemory(t)
			if _, err := Run(ctx, fresh, c.inputs, Options{}); err != nil {
				t.Fatal(err)
			}
			want, _, err := conversations.List(ctx, fresh, conversations.Query{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}

			m := newMemory(t)
			if sum, err := Run(ctx, m, []string{filepath.Join(upgradeDir, c.old)}, Options{}); err != nil || sum.New != c.oldCount {
				t.Fatalf("old memory: %v %+v", err, sum)
			}
			if err := m.Tag(ctx, c.marked, "client-work"); err != nil {
				t.Fatal(err)
			}
			if err := m.Star(ctx, c.marked, true); err != nil {
				t.Fatal(err)
			}

			sum, err := Run(ctx, m, c.inputs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if sum.New != c.newCount || sum.Updated == 0 || sum.Updated+sum.Unchanged < c.oldCount {
				t.Errorf("over the old memory: %+v", sum)
			}
			got, total, err := conversations.List(ctx, m, conversations.Query{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if total != len(want) {
				t.Errorf("%d conversations, a fresh import has %d", total, len(want))
			}
			// Same conversations as a fresh import, with the same turns.
			byID := map[string]int{}
			for _, s := range want {
				byID[s.SessionID] = s.Turns
			}
			for _, s := range got {
				if n, ok := byID[s.SessionID]; !ok || n != s.Turns {
					t.Errorf("%s: %d turns, a fresh import has %d (%v)", s.SessionID, s.Turns, n, ok)
				}
				if s.SessionID == c.marked && (!s.Starred || !slices.Contains(s.Projects, "client-work") || s.Turns != c.turns) {
					t.Errorf("the tagged, starred conversation: %+v", s)
				}
			}
			if sum, err := Run(ctx, m, c.inputs, Options{}); err != nil || sum.New+sum.Updated != 0 {
				t.Errorf("re-import: %v %+v", err, sum)
			}
		})
	}
}
