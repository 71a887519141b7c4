package sync

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/scrub"
	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// Files that are not whole, or not what their name says, and journal lines
// that are not entries change nothing; the status names the files; a file
// made whole later is read again.
func TestBadFilesChangeNothing(t *testing.T) {
	t.Parallel()
	folder := filepath.Join(t.TempDir(), "sync")
	a := newMachine(t, "a", folder)
	b := newMachine(t, "b", folder)
	x := conv("x", funes.HarnessClaude, "Tea", "", "oolong or sencha", "both are fine")
	y := conv("y", funes.HarnessClaude, "Coffee", "", "espresso or filter", "filter")
	a.ingest(x, y)
	a.pass()
	am := a.eng.cfg.Machine
	hx, hy := memory.ConversationHash(funes.HarnessClaude, "x"), memory.ConversationHash(funes.HarnessClaude, "y")
	px, py := conversationPath(folder, am, hx), conversationPath(folder, am, hy)
	whole, _ := readFile(t, px)
	os.WriteFile(px, whole[:len(whole)-10], 0o600) // cut short
	other, _ := readFile(t, py)
	os.WriteFile(py, other, 0o600)
	os.Rename(py, conversationPath(folder, am, memory.ConversationHash(funes.HarnessClaude, "z"))) // named for another
	f, _ := os.OpenFile(journalPath(folder, am), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	f.WriteString("not an entry\n{\"t\":1,\"op\":\"forget\",\"conv\":\"" + hy + "\"\n")
	f.Close()
	rep := b.pass()
	if rep.Imported != 0 || rep.Unreadable != 2 {
		t.Fatalf("b's pass: %+v", rep)
	}
	if ss, _, _ := conversations.List(context.Background(), b.m, conversations.Query{}); len(ss) != 0 {
		t.Fatalf("b stored %d conversations from bad files", len(ss))
	}
	st, err := ReadStatus(b.dir)
	if err != nil || st.Waiting.Unreadable != 2 || len(st.Waiting.Problems) != 2 || st.BadEntries != 2 {
		t.Fatalf("status: %v %+v", err, st)
	}
	for _, want := range []string{hx + convSuffix + ": not whole", "holds another conversation than its name says"} {
		if !slices.ContainsFunc(st.Waiting.Problems, func(p string) bool { return strings.Contains(p, want) }) {
			t.Fatalf("problems %q should say %q", st.Waiting.Problems, want)
		}
	}
	os.WriteFile(px, whole, 0o600) // made whole
	if rep := b.pass(); rep.Imported != 1 || rep.Unreadable != 1 {
		t.Fatalf("after the file is whole: %+v", rep)
	}
}

// A machine's subfolder removed by hand forgets nothing: the others share
// their own copies, and a machine that joins later still gets everything.
func TestRemovedSubfolderHeals(t *testing.T) {
	t.Parallel()
	folder := filepath.Join(t.TempDir(), "sync")
	a := newMachine(t, "a", folder)
	b := newMachine(t, "b", folder)
	a.ingest(conv("x", funes.HarnessChatGPT, "Plants", "", "water the ficus weekly", "ok"))
	a.pass()
	b.pass()
	if err := os.RemoveAll(machineDir(folder, a.eng.cfg.Machine)); err != nil {
		t.Fatal(err)
	}
	if rep := b.pass(); rep.Exported != 1 {
		t.Fatalf("b should share its copy: %+v", rep)
	}
	if rep := a.pass(); rep.Exported != 0 || rep.Forgotten != 0 {
		t.Fatalf("a: %+v", rep)
	}
	c := newMachine(t, "c", folder)
	c.pass()
	if _, ok := c.info("x"); !ok {
		t.Fatal("c should get the conversation from b's subfolder")
	}
}

// A conversation forgotten elsewhere and brought back here on purpose
// (import --include-forgotten) stays here, and is not shared.
func TestRevivedOnPurposeStays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	folder := filepath.Join(t.TempDir(), "sync")
	a := newMachine(t, "a", folder)
	b := newMachine(t, "b", folder)
	x := conv("x", funes.HarnessClaude, "Old plan", "", "the old plan", "noted")
	a.ingest(x)
	a.pass()
	b.pass()
	a.m.Forget(ctx, []string{"x"}, nil)
	a.pass()
	b.pass()
	if _, ok := b.info("x"); ok {
		t.Fatal("b still holds it")
	}
	if rep, err := b.m.Ingest(ctx, []*funes.Session{x}, memory.IngestOptions{IncludeForgotten: true}); err != nil || rep.New != 1 {
		t.Fatalf("%v %+v", err, rep)
	}
	if rep := b.pass(); rep.Forgotten != 0 || rep.Exported != 0 {
		t.Fatalf("b's pass: %+v", rep)
	}
	if _, ok := b.info("x"); !ok {
		t.Fatal("b erased what the person brought back")
	}
	if found := grepFiles(t, "the old plan", folder); len(found) > 0 {
		t.Fatalf("shared again: %v", found)
	}
}

// A project name in which the person's rules find a secret is never
// journaled, and the tag stays where it was made.
func TestSecretProjectNameStaysHome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	finder, err := scrub.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(t.TempDir(), "sync")
	a := newMachine(t, "a", folder)
	a.obs = Attach(a.m, func() redact.SecretFinder { return finder })
	b := newMachine(t, "b", folder)
	a.ingest(conv("x", funes.HarnessClaude, "Deploy", "", "deploy it", "done"))
	secret := scrubtest.Shapes["github-pat"](5)
	if err := a.m.Tag(ctx, "x", "deploy-"+secret, "ops"); err != nil {
		t.Fatal(err)
	}
	e, err := Open(a.m, Options{Finder: finder})
	if err != nil {
		t.Fatal(err)
	}
	a.eng = e
	a.pass()
	a.pass()
	b.pass()
	if found := grepFiles(t, secret, folder, b.dir); len(found) > 0 {
		t.Fatalf("the secret travelled: %v", found)
	}
	if s, _ := b.info("x"); !slices.Equal(s.Projects, []string{"ops"}) {
		t.Fatalf("b: %v", s.Projects)
	}
	if s, _ := a.info("x"); !slices.Equal(s.Projects, []string{"deploy-" + secret, "ops"}) {
		t.Fatalf("a lost its tag: %v", s.Projects)
	}
}

// A rename reaches a conversation that arrives after it.
func TestRenameReachesLaterArrivals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	folder := filepath.Join(t.TempDir(), "sync")
	a := newMachine(t, "a", folder)
	b := newMachine(t, "b", folder)
	a.ingest(conv("x", funes.HarnessCodex, "Build", "ledger", "the build", "ok"))
	a.pass()
	b.pass()
	if err := b.m.RenameProject(ctx, "ledger", "ledgerline"); err != nil {
		t.Fatal(err)
	}
	b.pass()
	a.pass()
	a.ingest(conv("y", funes.HarnessCodex, "Tests", "ledger", "the tests", "green"))
	a.pass()
	b.pass()
	a.pass()
	for _, mc := range []*machine{a, b} {
		for _, id := range []string{"x", "y"} {
			if s, _ := mc.info(id); !slices.Equal(s.Projects, []string{"ledgerline"}) {
				t.Fatalf("%s: %s has %v", mc.name, id, s.Projects)
			}
		}
	}
}

// With the folder out of reach (a disk not attached) a choice waits in the
// outbox, and reaches the journal once the folder is back.
func TestOutboxWhileFolderAway(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	folder := filepath.Join(t.TempDir(), "sync")
	a := newMachine(t, "a", folder)
	b := newMachine(t, "b", folder)
	a.ingest(conv("x", funes.HarnessClaude, "Tea", "", "oolong", "yes"))
	a.pass()
	b.pass()
	away := folder + ".away"
	if err := os.Rename(folder, away); err != nil {
		t.Fatal(err)
	}
	if err := a.m.Star(ctx, "x", true); err != nil {
		t.Fatal(err)
	}
	if _, err := a.eng.Pass(ctx); err == nil || !strings.Contains(err.Error(), "is not there") {
		t.Fatalf("a pass without the folder: %v", err)
	}
	if st, _ := ReadStatus(a.dir); st.Waiting.Outbox != 1 {
		t.Fatalf("outbox %d", st.Waiting.Outbox)
	}
	os.RemoveAll(folder) // what the star's journal write may have made
	if err := os.Rename(away, folder); err != nil {
		t.Fatal(err)
	}
	a.pass()
	b.pass()
	if s, _ := b.info("x"); !s.Starred {
		t.Fatal("the star waiting in the outbox did not arrive")
	}
}

// A memory emptied under a kept sync state (a restore into it, a hand
// reset) gets every conversation back from the folder.
func TestEmptiedMemoryGetsAllBack(t *testing.T) {
	t.Parallel()
	folder := filepath.Join(t.TempDir(), "sync")
	a := newMachine(t, "a", folder)
	b := newMachine(t, "b", folder)
	a.ingest(conv("x", funes.HarnessClaude, "Tea", "", "oolong", "yes"), conv("y", funes.HarnessClaude, "Coffee", "", "filter", "yes"))
	a.pass()
	b.pass()
	b.close()
	os.RemoveAll(filepath.Join(b.dir, memory.SrcDir))
	for _, n := range []string{memory.DBName, memory.DBName + "-wal", memory.DBName + "-shm"} {
		os.Remove(filepath.Join(b.dir, n))
	}
	m, err := memory.Open(b.dir)
	if err != nil {
		t.Fatal(err)
	}
	b.m = m
	if rep := b.pass(); rep.Imported != 2 {
		t.Fatalf("b's pass: %+v", rep)
	}
}
