package sync

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ireneo-app/ireneo/memory"
)

// Two machines on one folder (a network disk): what one imports and
// chooses, the other gets.
func TestSharedFolderConverges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	folder := filepath.Join(t.TempDir(), "sync")
	a := newMachine(t, "a", folder)
	b := newMachine(t, "b", folder)
	a.ingest(conv("x1", memory.HarnessClaude, "Heron migration", "atlas", "how do we move the heronbase cluster", "drain it first, then move"))
	a.m.Star(ctx, "x1", true)
	if rep := a.pass(); rep.Exported != 1 || rep.Journaled != 0 {
		t.Fatalf("a's first pass: %+v", rep)
	}
	if rep := b.pass(); rep.Imported != 1 {
		t.Fatalf("b's first pass: %+v", rep)
	}
	if !b.finds("heronbase cluster", "x1") {
		t.Fatal("b does not find what a imported")
	}
	if s, ok := b.info("x1"); !ok || !s.Starred || !slices.Equal(s.Projects, []string{"atlas"}) {
		t.Fatalf("b's copy: %+v", s)
	}
	if err := b.m.Tag(ctx, "x1", "infra"); err != nil {
		t.Fatal(err)
	}
	if err := b.m.Untag(ctx, "x1", "atlas"); err != nil {
		t.Fatal(err)
	}
	b.pass()
	if rep := a.pass(); rep.Applied != 1 {
		t.Fatalf("a's pass after b's tags: %+v", rep)
	}
	if s, _ := a.info("x1"); !slices.Equal(s.Projects, []string{"infra"}) || !s.Starred {
		t.Fatalf("a after b's tags: %+v", s)
	}
	if err := a.m.RenameProject(ctx, "infra", "platform"); err != nil {
		t.Fatal(err)
	}
	a.pass()
	b.pass()
	if s, _ := b.info("x1"); !slices.Equal(s.Projects, []string{"platform"}) {
		t.Fatalf("b after a's rename: %+v", s)
	}
	// Nothing changed: a pass reads nothing and writes nothing.
	if rep := a.pass(); rep != (Report{}) {
		t.Fatalf("an idle pass did %+v", rep)
	}
}
