package importers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// A resume copies the earlier records, old sessionId and all, into the new
// session's file: those turns are kept once, in the session where they
// first happened, when the memory holds it; and kept where they are when
// it does not (Claude Code deletes old transcripts).
func TestClaudeCodeResumeKeepsTurnsOnce(t *testing.T) {
	const a, b = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002"
	orig := ccLine(a, "r-u1", "", "user", "2026-06-01T10:00:00.000Z", "Why is recall slow?") +
		ccLine(a, "r-a1", "r-u1", "assistant", "2026-06-01T10:00:05.000Z", "The FTS query scans every chunk.")
	resumed := orig + // copied verbatim by --resume
		ccLine(b, "r-u2", "r-a1", "user", "2026-06-02T09:00:00.000Z", "Add an index then") +
		ccLine(b, "r-a2", "r-u2", "assistant", "2026-06-02T09:00:04.000Z", "Added the index.")
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, a+".jsonl"), filepath.Join(dir, b+".jsonl")
	os.WriteFile(pa, []byte(orig), 0o600)
	os.WriteFile(pb, []byte(resumed), 0o600)
	ctx := context.Background()

	turns := func(m *memory.Memory, id string) string {
		s, err := m.LoadSession(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, tu := range s.Turns {
			ids = append(ids, tu.TurnUUID)
		}
		return strings.Join(ids, " ")
	}

	m := newMemory(t)
	if sum, err := Run(ctx, m, []string{dir}, Options{}); err != nil || sum.New != 2 {
		t.Fatalf("%v %+v", err, sum)
	}
	if got := turns(m, a); got != "r-u1 r-a1" {
		t.Errorf("original: %s", got)
	}
	if got := turns(m, b); got != "r-u2 r-a2" {
		t.Errorf("resumed: %s", got)
	}
	if sum, err := Run(ctx, m, []string{dir}, Options{}); err != nil || sum.Unchanged != 2 || sum.New+sum.Updated != 0 {
		t.Errorf("re-import: %v %+v", err, sum)
	}

	// Without the original stored, nothing is lost.
	m2 := newMemory(t)
	if _, err := Run(ctx, m2, []string{pb}, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := turns(m2, b); got != "r-u1 r-a1 r-u2 r-a2" {
		t.Errorf("resumed alone: %s", got)
	}
}
