package importers

import (
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// Compactions before Claude Code 2.1 (issue 12, item 6): the summary is a
// user record with isCompactSummary in the session file itself. It is kept
// as a conversation of its own, labelled like a 2.1 compaction agent's
// (title "Compaction summary: …", the summary an assistant turn), not as a
// message of the person and not as a sub-agent.

const shapesCompact = "2b0c1d2e-3f4a-4b5c-8d9e-000000000105"

// 1.0.105: a compact_boundary with logicalParentUuid, then the summary.
func TestClaudeCode1xCompactionSummary(t *testing.T) {
	p := parseFile(t, ParseClaudeCode, testdata("claudecode-shapes", shapesCompact+".jsonl"))
	if p.err != nil || len(p.sessions) != 2 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	main := p.sessions[0]
	if main.ID != shapesCompact || main.Title != "Why does ireneo watch miss files that rsync writes?" {
		t.Errorf("main: %s %q", main.ID, main.Title)
	}
	checkTurns(t, main, []want{
		{"k-u1", "2026-04-02T08:00:00Z", "user", []funes.Block{txt("Why does ireneo watch miss files that rsync writes?")}},
		{"k-a1", "2026-04-02T08:00:04Z", "assistant", []funes.Block{
			txt("rsync writes a temporary file and renames it into place; let me check the event mask."),
			use("Grep", `{"pattern":"fsnotify\\.Write"}`)}},
		{"k-r1", "2026-04-02T08:00:05Z", "tool", []funes.Block{result("Grep", "importers/watch.go:57: if ev.Op&fsnotify.Write == 0 {")}},
		{"k-a2", "2026-04-02T08:00:09Z", "assistant", []funes.Block{txt("The watcher listens for Write only; a rename arrives as Create.")}},
		{"k-m1", "2026-04-02T08:30:01Z", "user", []funes.Block{txt("<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args></command-args>")}},
		{"k-m2", "2026-04-02T08:30:01.1Z", "user", []funes.Block{txt("<local-command-stdout>Compacted. ctrl+r to see full summary</local-command-stdout>")}},
		{"k-u2", "2026-04-02T08:31:00Z", "user", []funes.Block{txt("Now add a test for it")}},
		{"k-a3", "2026-04-02T08:31:06Z", "assistant", []funes.Block{txt("Added TestWatchRename: it renames a file into the watched folder.")}},
	})
	sum := p.sessions[1]
	if sum.ID != shapesCompact+"-compact-k-s1" || sum.Project != "ireneo" || sum.Workdir != "/home/ana/src/ireneo" {
		t.Errorf("summary: %s project %q workdir %q", sum.ID, sum.Project, sum.Workdir)
	}
	if want := "Compaction summary: 1. Primary Request and Intent: Make ireneo watch notice files that rsync renames into place.…"; !strings.HasPrefix(sum.Title, "Compaction summary: 1. Primary Request and Intent: Make ireneo watch") {
		t.Errorf("summary title %q, want %q", sum.Title, want)
	}
	checkTurns(t, sum, []want{
		{"k-s1", "2026-04-02T08:30:00.5Z", "assistant", []funes.Block{txt("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis:\nThe user reported that the watcher misses files rsync writes; the cause is the event mask.\n\nSummary:\n1. Primary Request and Intent:\n   Make ireneo watch notice files that rsync renames into place.\n2. Key Technical Concepts:\n   - fsnotify Create and Rename events")}},
	})
}

// ccRecord1x is one record of an older 1.0.x transcript.
func ccRecord1x(version, uuid, parent, typ, ts, content, extra string) string {
	p := `null`
	if parent != "" {
		p = `"` + parent + `"`
	}
	msg := `{"role":"user","content":` + content + `}`
	if typ == "assistant" {
		msg = `{"id":"msg_` + uuid + `","type":"message","role":"assistant","content":` + content + `}`
	}
	return `{"parentUuid":` + p + `,"isSidechain":false,"userType":"external","cwd":"/home/ana/src/ireneo","sessionId":"3c1d2e3f-4a5b-4c6d-8e9f-000000000024","version":"` + version +
		`","type":"` + typ + `","message":` + msg + `,"uuid":"` + uuid + `","timestamp":"` + ts + `"` + extra + "}\n"
}

// Earlier 1.0.x wrote the summary as a new root, with no boundary record
// and no link back: the turns before it in the file are still kept, and
// so is the summary. From 2.1 the same record is not kept again (the
// compaction agent's transcript holds the summary).
func TestClaudeCodeRootedCompactionSummary(t *testing.T) {
	file := func(version string) string {
		return ccRecord1x(version, "o-u1", "", "user", "2026-02-01T10:00:00.000Z", `"Rename the flag to --memory"`, "") +
			ccRecord1x(version, "o-a1", "o-u1", "assistant", "2026-02-01T10:00:03.000Z", `[{"type":"text","text":"Renamed in main.go and the README."}]`, "") +
			ccRecord1x(version, "o-s1", "", "user", "2026-02-01T11:00:00.000Z", `"This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nThe flag was renamed to --memory."`, `,"isCompactSummary":true`) +
			ccRecord1x(version, "o-u2", "o-s1", "user", "2026-02-01T11:01:00.000Z", `"Update the man page too"`, "") +
			ccRecord1x(version, "o-a2", "o-u2", "assistant", "2026-02-01T11:01:05.000Z", `[{"type":"text","text":"Updated ireneo.1."}]`, "")
	}
	const id = "3c1d2e3f-4a5b-4c6d-8e9f-000000000024"
	p := parseString(t, ParseClaudeCode, id+".jsonl", file("1.0.24"))
	if p.err != nil || len(p.sessions) != 2 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	checkTurns(t, p.sessions[0], []want{
		{"o-u1", "", "user", []funes.Block{txt("Rename the flag to --memory")}},
		{"o-a1", "", "assistant", []funes.Block{txt("Renamed in main.go and the README.")}},
		{"o-u2", "", "user", []funes.Block{txt("Update the man page too")}},
		{"o-a2", "", "assistant", []funes.Block{txt("Updated ireneo.1.")}},
	})
	if s := p.sessions[1]; s.ID != id+"-compact-o-s1" || s.Title != "Compaction summary: The flag was renamed to --memory." {
		t.Errorf("summary %s %q", s.ID, s.Title)
	} else {
		checkTurns(t, s, []want{{"o-s1", "2026-02-01T11:00:00Z", "assistant", []funes.Block{
			txt("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nThe flag was renamed to --memory.")}}})
	}

	p = parseString(t, ParseClaudeCode, id+".jsonl", file("2.1.12"))
	if p.err != nil || len(p.sessions) != 1 || len(p.sessions[0].Turns) != 4 {
		t.Fatalf("2.1: err %v, %d sessions", p.err, len(p.sessions))
	}
}
