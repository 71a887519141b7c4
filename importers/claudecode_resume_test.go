package importers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// ccLine is one Claude Code 2.x record, as a resumed session writes them.
func ccLine(session, uuid, parent, role, ts, text string) string {
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	msg := fmt.Sprintf(`{"role":"user","content":%q}`, text)
	if role == "assistant" {
		msg = fmt.Sprintf(`{"id":"msg_%s","type":"message","role":"assistant","content":[{"type":"text","text":%q}]}`, uuid, text)
	}
	return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/ana/src/ireneo","sessionId":%q,"version":"2.1.12","gitBranch":"main","type":%q,"message":%s,"uuid":%q,"timestamp":%q}`+"\n",
		p, session, role, msg, uuid, ts)
}

// resumeChain writes the files of a session (ids[0]) resumed as ids[1],
// that one resumed as ids[2], and so on: each resume copies every record
// before it, old sessionId and all, then goes on. It returns the paths and,
// per turn uuid, the session where the turn first happened.
func resumeChain(t *testing.T, dir string, ids ...string) ([]string, map[string]string) {
	t.Helper()
	var paths []string
	home := map[string]string{}
	history, parent := "", ""
	for i, id := range ids {
		u, a := fmt.Sprintf("r%d-u", i), fmt.Sprintf("r%d-a", i)
		day := fmt.Sprintf("2026-06-%02d", i+1)
		history += ccLine(id, u, parent, "user", day+"T09:00:00.000Z", fmt.Sprintf("Question %d about the recall index", i)) +
			ccLine(id, a, u, "assistant", day+"T09:00:05.000Z", fmt.Sprintf("Answer %d: the FTS query scans every chunk.", i))
		parent = a
		home[u], home[a] = id, id
		p := filepath.Join(dir, id+".jsonl")
		if err := os.WriteFile(p, []byte(history), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths, home
}

// holders maps each stored Claude Code turn uuid to the conversations
// holding it.
func holders(t *testing.T, m *memory.Memory) map[string][]string {
	t.Helper()
	ctx := context.Background()
	infos, _, err := conversations.List(ctx, m, conversations.Query{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, in := range infos {
		s, err := m.LoadSession(ctx, in.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tu := range s.Turns {
			out[tu.TurnUUID] = append(out[tu.TurnUUID], s.ID)
		}
	}
	return out
}

// checkOnce asserts every turn is stored exactly once, in want's session.
func checkOnce(t *testing.T, m *memory.Memory, want map[string]string) {
	t.Helper()
	got := holders(t, m)
	var bad []string
	for u, w := range want {
		if h := got[u]; len(h) != 1 || h[0] != w {
			bad = append(bad, fmt.Sprintf("%s in %v, want [%s]", u, h, w))
		}
	}
	for u := range got {
		if _, ok := want[u]; !ok {
			bad = append(bad, "unexpected turn "+u)
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("turns:\n%s", strings.Join(bad, "\n"))
	}
}

func importAll(t *testing.T, m *memory.Memory, paths ...string) Summary {
	t.Helper()
	sum, err := Run(context.Background(), m, paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// A resume copies the earlier records into the new session's file: each
// turn is stored once, in the session where it first happened, whichever
// file comes first, in one run or in several; and kept where it is when
// its original is never imported (Claude Code deletes old transcripts).
func TestClaudeCodeResumeKeepsTurnsOnce(t *testing.T) {
	// Walks visit files by name: in "forward" the original comes first, in
	// "backward" the last resume does.
	orders := map[string][]string{
		"forward":  {"a0000000-0000-4000-8000-000000000001", "b0000000-0000-4000-8000-000000000002", "c0000000-0000-4000-8000-000000000003"},
		"backward": {"f0000000-0000-4000-8000-000000000001", "e0000000-0000-4000-8000-000000000002", "d0000000-0000-4000-8000-000000000003"},
	}
	for name, ids := range orders {
		t.Run(name+"/one run", func(t *testing.T) {
			dir := t.TempDir()
			_, home := resumeChain(t, dir, ids...)
			// The last resume ran a sub-agent in a sub-folder: it waits with
			// its session, and takes the session's project.
			sub := filepath.Join(dir, ids[2], "subagents")
			if err := os.MkdirAll(sub, 0o700); err != nil {
				t.Fatal(err)
			}
			agent := strings.ReplaceAll(ccLine(ids[2], "s-u", "", "user", "2026-06-03T09:01:00.000Z", "List the assets"), `"isSidechain":false`, `"isSidechain":true,"agentId":"a1b2c3d"`) +
				strings.ReplaceAll(ccLine(ids[2], "s-a", "s-u", "assistant", "2026-06-03T09:01:04.000Z", "logo.svg and tray.png"), `"isSidechain":false`, `"isSidechain":true,"agentId":"a1b2c3d"`)
			agent = strings.ReplaceAll(agent, `"cwd":"/home/ana/src/ireneo"`, `"cwd":"/home/ana/src/ireneo/assets"`)
			if err := os.WriteFile(filepath.Join(sub, "agent-a1b2c3d.jsonl"), []byte(agent), 0o600); err != nil {
				t.Fatal(err)
			}
			agentID := ids[2] + "-agent-a1b2c3d"
			home["s-u"], home["s-a"] = agentID, agentID
			m := newMemory(t)
			// Originals are stored before the sessions that copy them:
			// nothing is written twice.
			if sum := importAll(t, m, dir); sum.New != 4 || sum.Updated != 0 || sum.Inputs != 4 {
				t.Errorf("%+v", sum)
			}
			checkOnce(t, m, home)
			if p, ok, err := m.Project(context.Background(), funes.HarnessClaudeCode, agentID); err != nil || !ok || p != "ireneo" {
				t.Errorf("sub-agent's project %q %v %v", p, ok, err)
			}
			if sum := importAll(t, m, dir); sum.Unchanged != 4 || sum.New+sum.Updated != 0 {
				t.Errorf("re-import: %+v", sum)
			}
		})
		t.Run(name+"/newest first, one file a run", func(t *testing.T) {
			dir := t.TempDir()
			paths, home := resumeChain(t, dir, ids...)
			m := newMemory(t)
			importAll(t, m, paths[2]) // the last resume alone holds every turn
			if err := m.Tag(context.Background(), ids[2], "client-work"); err != nil {
				t.Fatal(err)
			}
			if err := m.Star(context.Background(), ids[2], true); err != nil {
				t.Fatal(err)
			}
			// Each earlier session, once imported, takes its turns back,
			// and the resumed one is rewritten in place.
			if sum := importAll(t, m, paths[1]); sum.New != 1 || sum.Updated != 1 {
				t.Errorf("middle: %+v", sum)
			}
			if sum := importAll(t, m, paths[0]); sum.New != 1 || sum.Updated != 1 {
				t.Errorf("original: %+v", sum)
			}
			checkOnce(t, m, home)
			infos, total, err := conversations.List(context.Background(), m, conversations.Query{Limit: 10})
			if err != nil || total != 3 {
				t.Fatalf("%v: %d conversations", err, total)
			}
			for _, in := range infos {
				if in.SessionID != ids[2] {
					continue
				}
				if !in.Starred || !slices.Contains(in.Projects, "client-work") || in.Turns != 2 || in.Title != "Question 2 about the recall index" {
					t.Errorf("the rewritten resume: %+v", in)
				}
			}
			// What is stored is what a fresh import makes of the files (the
			// same bytes; the tag is the person's own).
			if sum := importAll(t, m, dir); sum.Unchanged != 3 || sum.New+sum.Updated != 0 {
				t.Errorf("re-import: %+v", sum)
			}
			fresh := newMemory(t)
			importAll(t, fresh, dir)
			files := func(snap string) string {
				var out []string
				for _, l := range strings.Split(snap, "\n") {
					if strings.Contains(l, ".funes.jsonl") {
						out = append(out, l)
					}
				}
				return strings.Join(out, "\n")
			}
			if a, b := files(snapshot(t, fresh)), files(snapshot(t, m)); a != b || a == "" {
				t.Errorf("fresh import:\n%s\nover the runs:\n%s", a, b)
			}
		})
		t.Run(name+"/oldest first, one file a run", func(t *testing.T) {
			dir := t.TempDir()
			paths, home := resumeChain(t, dir, ids...)
			m := newMemory(t)
			for _, p := range paths {
				if sum := importAll(t, m, p); sum.New != 1 || sum.Updated != 0 {
					t.Errorf("%s: %+v", p, sum)
				}
			}
			checkOnce(t, m, home)
		})
		t.Run(name+"/original never imported", func(t *testing.T) {
			dir := t.TempDir()
			paths, home := resumeChain(t, dir, ids...)
			m := newMemory(t)
			importAll(t, m, paths[2])
			importAll(t, m, paths[1])
			// The original's turns stay, once, in the first resume imported
			// after them... which is the middle one once it is stored.
			for u, h := range home {
				if h == ids[0] {
					home[u] = ids[2]
				}
			}
			checkOnce(t, m, home)
			m2 := newMemory(t)
			importAll(t, m2, paths[1], paths[2])
			for u, h := range home {
				if h == ids[2] && strings.HasPrefix(u, "r0-") {
					home[u] = ids[1]
				}
			}
			checkOnce(t, m2, home)
		})
	}
}
