package sync

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
	"github.com/ireneo-app/ireneo/scrub"
	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// Import on A, recall on B finds it; a tag on B shows on A; a star on A
// while B is stopped shows on B once it starts; a third machine that
// joins last, paired with B only, while A is off, gets it all.
func TestSyncthingTwoMachinesThenAThird(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newHost(t, "a")
	b := newHost(t, "b", a)
	a.ingest(conv("heron", funes.HarnessClaude, "Heron migration", "atlas", "how do we move the heronbase cluster to the new racks", "drain heronbase first, then move it"))
	eventually(t, "b should find what a imported", func() (bool, string) {
		return b.finds("heronbase racks", "heron"), "recall on b does not find it"
	})
	if err := b.m.Tag(ctx, "heron", "infra"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a should show b's tag", a.has("heron", func(s answer.Conversation) bool {
		return slices.Equal(s.Projects, []string{"atlas", "infra"})
	}))

	b.down()
	if err := a.m.Star(ctx, "heron", true); err != nil {
		t.Fatal(err)
	}
	a.ingest(conv("later", funes.HarnessChatGPT, "Sourdough", "", "my sourdough starter smells of acetone", "feed it more often"))
	time.Sleep(2 * time.Second) // a's engine exports while b is away
	b.up()
	eventually(t, "b should show the star made while it was off", b.has("heron", func(s answer.Conversation) bool { return s.Starred }))
	eventually(t, "b should get what a imported while it was off", b.has("later", nil))

	a.down()
	c := newHost(t, "c", b)
	eventually(t, "c, paired with b only, should get a's conversations and choices through b", c.has("heron", func(s answer.Conversation) bool {
		return s.Starred && slices.Equal(s.Projects, []string{"atlas", "infra"})
	}))
	eventually(t, "c should get a's later conversation", c.has("later", nil))
	if !c.finds("acetone starter", "later") {
		t.Fatal("c does not find a's later conversation")
	}
	st, err := ReadStatus(c.dir)
	if err != nil || len(st.Machines) != 3 {
		t.Fatalf("c's status: %v %+v", err, st)
	}
}

// The same Claude Code session imported on A (shorter) and on B (longer):
// one conversation, the longer copy, on all three machines.
func TestSyncthingSameSessionTwoCopies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newHost(t, "a")
	b := newHost(t, "b", a)
	const session = "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
	turns := []string{"the release build fails on the linker step", "it is the missing cgo flag", "fixed, what about the docs?", "the docs need the quillfeather section"}
	short := claudeCodeLog(t, t.TempDir(), session, "/home/ana/ireneo", turns[:2]...)
	long := claudeCodeLog(t, t.TempDir(), session, "/home/ana/ireneo", turns...)
	if _, err := importers.Run(ctx, a.m, []string{short}, importers.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := importers.Run(ctx, b.m, []string{long}, importers.Options{}); err != nil {
		t.Fatal(err)
	}
	c := newHost(t, "c", a, b)
	for _, h := range []*host{a, b, c} {
		eventually(t, h.name+" should hold the longer copy", h.has(session, func(s answer.Conversation) bool { return s.Turns == 4 }))
		if !h.finds("quillfeather docs", session) {
			t.Fatalf("%s does not find the longer copy's words", h.name)
		}
		if ss, _, _ := conversations.List(ctx, h.m, conversations.Query{}); len(ss) != 1 {
			t.Fatalf("%s holds %d conversations", h.name, len(ss))
		}
	}
	// Importing the shorter copy again changes nothing anywhere.
	if rep, err := importers.Run(ctx, a.m, []string{short}, importers.Options{}); err != nil || rep.Older != 1 {
		t.Fatalf("a's re-import of the shorter copy: %v %+v", err, rep)
	}
}

// A forget on B while A is stopped: once A starts, the conversation is
// gone from every memory and every sync folder (the sync engine's
// versions, temporary and conflict files included), index terms too, and
// a re-import on A does not bring it back.
func TestSyncthingForgetWhileAway(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newHost(t, "a")
	b := newHost(t, "b", a)
	for _, h := range []*host{a, b} { // old versions kept, as many people set it
		h.st.rest(http.MethodPatch, "/rest/config/folders/"+SyncthingFolderID, map[string]any{
			"versioning": map[string]any{"type": "simple", "params": map[string]string{"keep": "5", "cleanoutDays": "0"}}}, nil)
	}
	const marker = "ZanzibarQuokka"
	const session = "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
	log := claudeCodeLog(t, t.TempDir(), session, "/home/ana/plans", "my plan for "+marker+" is ready", "the "+marker+" plan looks fine")
	if _, err := importers.Run(ctx, a.m, []string{log}, importers.Options{}); err != nil {
		t.Fatal(err)
	}
	a.ingest(conv("keep", funes.HarnessClaude, "Tea", "", "an unrelated talk about oolong", "oolong is good"))
	eventually(t, "b should hold both", func() (bool, string) {
		_, x := b.info(session)
		_, y := b.info("keep")
		return x && y, "not yet"
	})
	eventually(t, "a's folder should hold b's copies' records", func() (bool, string) {
		return len(grepFiles(t, marker, a.folder)) > 0 && len(grepFiles(t, marker, b.folder)) > 0, "not yet in both folders"
	})

	a.down()
	// What Syncthing leaves beside a file when it is stopped while writing
	// one, or when two machines changed it at once.
	h := memory.ConversationHash(funes.HarnessClaudeCode, session)
	mine := conversationPath(a.folder, a.cfg().Machine, h)
	data, _ := readFile(t, mine)
	writeOld(t, filepath.Join(filepath.Dir(mine), ".syncthing."+h+".funes.jsonl.tmp"), data)
	writeOld(t, filepath.Join(filepath.Dir(mine), h+".funes.sync-conflict-20261201-101500-ABCDEFG.jsonl"), data)
	if _, err := b.m.Forget(ctx, []string{session}, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b should have erased it from its memory and folder", func() (bool, string) {
		found := grepFiles(t, marker, b.dir, b.folder)
		return len(found) == 0, "still in " + join(found)
	})
	// A's Syncthing starts first (at login, before the tray app): it takes
	// B's deletion of A's copy and keeps the old file among its versions.
	a.st.start()
	eventually(t, "a's Syncthing should keep the deleted copy as an old version", func() (bool, string) {
		found := grepFiles(t, marker, filepath.Join(a.folder, versionsDir))
		return len(found) > 0, "no version in " + filepath.Join(a.folder, versionsDir)
	})
	a.run()
	all := []string{a.dir, b.dir, a.folder, b.folder, a.st.home, b.st.home}
	eventually(t, "the forgotten conversation should be gone from every file", func() (bool, string) {
		found := grepFiles(t, marker, all...)
		return len(found) == 0, "still in " + join(found)
	})
	for _, x := range []*host{a, b} {
		if indexHas(t, x.dir, marker) || !indexHas(t, x.dir, "oolong") {
			t.Fatalf("%s: the index should hold the kept conversation's terms and none of the forgotten one's", x.name)
		}
		if _, ok := x.info(session); ok {
			t.Fatalf("%s still lists it", x.name)
		}
	}
	for _, d := range []string{a.dir, b.dir, a.folder, b.folder} {
		if len(grepFiles(t, "oolong", d)) == 0 {
			t.Fatalf("the kept conversation should be in %s", d)
		}
	}
	if rep, err := importers.Run(ctx, a.m, []string{log}, importers.Options{}); err != nil || rep.Forgotten != 1 {
		t.Fatalf("a's re-import: %v %+v", err, rep)
	}
	time.Sleep(3 * time.Second) // a pass or two on each machine
	if found := grepFiles(t, marker, all...); len(found) > 0 {
		t.Fatalf("back in %v", found)
	}
}

// Tags and stars chosen on A and B while they are cut off from each other
// converge, once they meet, to the same value on both.
func TestSyncthingConflictingTagsConverge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newHost(t, "a")
	b := newHost(t, "b", a)
	a.ingest(conv("budget", funes.HarnessChatGPT, "Budget", "home", "the household budget for june", "rent, food, savings"))
	eventually(t, "b should hold it", b.has("budget", nil))
	pause := func(on bool) {
		a.st.rest(http.MethodPatch, "/rest/config/devices/"+b.st.id, map[string]any{"paused": on}, nil)
		b.st.rest(http.MethodPatch, "/rest/config/devices/"+a.st.id, map[string]any{"paused": on}, nil)
	}
	pause(true)
	for _, step := range []func() error{
		func() error { return a.m.Tag(ctx, "budget", "money") },
		func() error { return b.m.Tag(ctx, "budget", "family") },
		func() error { return b.m.Untag(ctx, "budget", "home") },
		func() error { return a.m.Untag(ctx, "budget", "family") },
		func() error { return b.m.Star(ctx, "budget", true) },
		func() error { return a.m.RenameProject(ctx, "money", "finance") },
		func() error { return a.m.Star(ctx, "budget", false) },
		func() error { return b.m.Tag(ctx, "budget", "finance") },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // wall clocks move on between choices
	}
	pause(false)
	want := []string{"finance"} // home untagged by b, family untagged later by a, money renamed
	for _, h := range []*host{a, b} {
		eventually(t, h.name+" should agree", h.has("budget", func(s answer.Conversation) bool {
			return slices.Equal(s.Projects, want) && !s.Starred
		}))
	}
}

func join(ps []string) string {
	out := ""
	for i, p := range ps {
		if i > 0 {
			out += ", "
		}
		out += p
	}
	if out == "" {
		return "nothing"
	}
	return out
}

func (mc *machine) cfg() Config {
	mc.t.Helper()
	c, err := LoadConfig(mc.dir)
	if err != nil {
		mc.t.Fatal(err)
	}
	return c
}

// A scrub on A reaches B: its memory, every copy in both folders, and the
// old version B's Syncthing keeps of the file it replaced; no journal
// holds the secret.
func TestSyncthingScrubTravels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	finder, err := scrub.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := newHost(t, "a")
	b := newHost(t, "b", a)
	for _, h := range []*host{a, b} {
		h.st.rest(http.MethodPatch, "/rest/config/folders/"+SyncthingFolderID, map[string]any{
			"versioning": map[string]any{"type": "simple", "params": map[string]string{"keep": "5", "cleanoutDays": "0"}}}, nil)
	}
	secret := scrubtest.Shapes["github-pat"](91)
	a.ingest(conv("deploy", funes.HarnessClaude, "Deploy", "", "my token is "+secret+" for the deploy", "rotate "+secret+" now", "done"))
	eventually(t, "b should hold it", func() (bool, string) {
		return len(grepFiles(t, secret, b.dir, b.folder)) >= 2, "not yet in b's memory and folder"
	})
	if rep, err := memscrub.Apply(ctx, a.m, memscrub.Options{Finder: finder, Sessions: []string{"deploy"}}); err != nil || rep.Changed != 1 {
		t.Fatalf("scrub: %v %+v", err, rep)
	}
	all := []string{a.dir, b.dir, a.folder, b.folder, a.st.home, b.st.home}
	eventually(t, "the secret should be gone from every file", func() (bool, string) {
		found := grepFiles(t, secret, all...)
		return len(found) == 0, "still in " + join(found)
	})
	for _, h := range []*host{a, b} {
		if indexHas(t, h.dir, secret) {
			t.Fatalf("%s: the secret is in the index", h.name)
		}
		s, err := h.m.LoadSession(ctx, "deploy")
		if err != nil || !strings.Contains(s.Turns[0].Blocks[0].Text, "[REDACTED:github-pat] for the deploy") {
			t.Fatalf("%s: %v %+v", h.name, err, s)
		}
	}
}
