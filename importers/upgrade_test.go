package importers

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ireneo-app/ireneo/memory"
)

// upgradeDir holds what the importer before issue 12 made of the Claude Code
// fixtures (written by that build), to stand for an old memory.
var upgradeDir = filepath.Join("testdata", "upgrade")

// Importing the new version over an old memory replaces the old
// conversations in place: no duplicates, the person's tags and stars kept;
// and a second import is a no-op.
func TestImportOverOldMemory(t *testing.T) {
	ctx := context.Background()
	inputs := []string{testdata("claudecode-shapes"), testdata("real", "claude-code")}

	fresh := newMemory(t)
	if _, err := Run(ctx, fresh, inputs, Options{}); err != nil {
		t.Fatal(err)
	}
	want, _, err := fresh.Sessions(ctx, memory.SessionQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}

	m := newMemory(t)
	if sum, err := Run(ctx, m, []string{filepath.Join(upgradeDir, "claude-code-before-issue-12.funes.jsonl")}, Options{}); err != nil || sum.New != 7 {
		t.Fatalf("old memory: %v %+v", err, sum)
	}
	const parallel = "e9fb405b-169f-40eb-9396-7e75076f045d-agent-a485154"
	if err := m.Tag(ctx, parallel, "client-work"); err != nil {
		t.Fatal(err)
	}
	if err := m.Star(ctx, parallel, true); err != nil {
		t.Fatal(err)
	}

	sum, err := Run(ctx, m, inputs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Six of the seven old conversations changed (the flat-layout session
	// is as it was, but for its times' width); the 1.0.x file's two inline
	// sub-agents are new, and so are the 1.0.105 compaction file's session
	// and its summary (a fixture the old importer never saw).
	if sum.Updated+sum.Unchanged != 7 || sum.New != 4 {
		t.Errorf("over the old memory: %+v", sum)
	}
	got, total, err := m.Sessions(ctx, memory.SessionQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if total != len(want) {
		t.Errorf("%d conversations, a fresh import has %d", total, len(want))
	}
	for _, s := range got {
		if s.SessionID != parallel {
			continue
		}
		if !s.Starred || !slices.Contains(s.Projects, "client-work") || s.Turns != 27 {
			t.Errorf("the tagged, starred conversation: %+v", s)
		}
	}
	if sum, err := Run(ctx, m, inputs, Options{}); err != nil || sum.New+sum.Updated != 0 {
		t.Errorf("re-import: %v %+v", err, sum)
	}
}
