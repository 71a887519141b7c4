package memory

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/plumbing"
)

// The facts of the scenario in issue 20: each said once, in a conversation
// of its own, then asked about by agents that call recall.
// The agents are asked in other words than the person used, and answer as
// agents do, quoting the date; the passage Ireneo returned repeats the
// fact's own words.
var plumbingFacts = []struct{ id, query, ask, said, agentAsk, answer string }{
	{"fact-mt", "MT-4471 K-2 compressor", "Any news on the compressor ticket?", "MT-4471 is still open: the K-2 compressor trips on start, and Priya owns it.",
		"Is MT-4471 still open? Who has it?", "Yes: per your notes of 1 March, MT-4471 is still open and Priya owns it."},
	{"fact-px", "PX-208 valve supplier", "Did purchasing decide on the valves?", "For PX-208 we switched the valve supplier to Hallberg; Tomasz signed it off.",
		"What did we decide for PX-208?", "On 2 March you settled PX-208 with Hallberg, signed off by Tomasz."},
	{"fact-qa", "QA-93 firmware rollback", "When does the rollback happen?", "QA-93: the firmware rollback to 4.2.1 is set for Friday and Ines runs it.",
		"When is QA-93 happening, and who runs it?", "Your notes of 3 March say QA-93 is on Friday and Ines runs it."},
}

// agentCopy is an agent's session as Claude Code records it: the question,
// a call to Ireneo's recall under server, Ireneo's answer, the agent's own.
func agentCopy(id, server, query, result, ask, answer string, at time.Time) *Session {
	return &Session{ID: id, Harness: HarnessClaudeCode, Title: ask, Turns: []Turn{
		{TurnUUID: id + "-0", Seq: 0, TS: at, Role: RoleUser, Blocks: []Block{{Type: BlockText, Text: ask}}},
		{TurnUUID: id + "-1", Seq: 1, TS: at.Add(time.Second), Role: RoleAssistant, Blocks: []Block{
			{Type: BlockToolUse, ToolName: "mcp__" + server + "__recall", Text: fmt.Sprintf(`{"query":%q}`, query)}}},
		{TurnUUID: id + "-2", Seq: 2, TS: at.Add(2 * time.Second), Role: RoleTool, Blocks: []Block{
			{Type: BlockToolResult, ToolName: "mcp__" + server + "__recall", Text: result}}},
		{TurnUUID: id + "-3", Seq: 3, TS: at.Add(3 * time.Second), Role: RoleAssistant, Blocks: []Block{{Type: BlockText, Text: answer}}},
	}}
}

// downgradeIndex rewrites m's index as layout 2 wrote it, before plumbing
// was told apart: every block of every session searched. (The searched
// column, all 1, lets this build's recall read it before the upgrade, to
// show the copies the old index returned.)
func downgradeIndex(t *testing.T, m *Memory, ss []*Session) {
	t.Helper()
	ctx := context.Background()
	err := m.withTx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			`DROP TABLE chunks`,
			`CREATE TABLE chunks(id INTEGER PRIMARY KEY, sess INTEGER NOT NULL, seq INTEGER NOT NULL, block INTEGER NOT NULL, part INTEGER NOT NULL, block_type TEXT NOT NULL, tokens INTEGER NOT NULL, searched INTEGER NOT NULL DEFAULT 1)`,
			`CREATE INDEX chunks_sess ON chunks(sess, seq)`,
			`DELETE FROM chunks_fts`,
			`UPDATE meta SET value = '2' WHERE key = 'index_layout'`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		for _, s := range ss {
			var sess int64
			if err := tx.QueryRowContext(ctx, `SELECT id FROM sessions WHERE harness=? AND session_id=?`, s.Harness, s.ID).Scan(&sess); err != nil {
				return err
			}
			for _, tn := range s.Turns {
				for bi, b := range tn.Blocks {
					for pi, piece := range splitChunks(b.Text) {
						r, err := tx.ExecContext(ctx, `INSERT INTO chunks(sess,seq,block,part,block_type,tokens) VALUES(?,?,?,?,?,?)`, sess, tn.Seq, bi, pi, b.Type, CountTokens(piece))
						if err != nil {
							return err
						}
						id, _ := r.LastInsertId()
						if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_fts(rowid,body,title,ids,date) VALUES(?,?,?,?,?)`,
							id, piece, s.Title, strings.Join(identifiers(piece), " "), dateWords(tn.TS)); err != nil {
							return err
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyHit reports whether a hit is an agent's call to Ireneo or Ireneo's
// answer, not anyone's own words.
func copyHit(h Hit) bool {
	return h.Role == RoleTool || strings.Contains(h.Text, `{"query"`) || strings.Contains(h.Text, "receipt: session_id=") ||
		strings.Contains(h.Text, plumbing.ResultMarker)
}

// TestOldMemoryWithCopiesHeals: a memory whose index (layout 2) searched
// the agents' recall calls and Ireneo's answers — here the answers of the
// server before ResultMarker, known by their shape — returns copies in its
// top five; on the next open the index is rebuilt, the original turn comes
// back first or second, no copy is in the top five, and src/ still holds
// every copy verbatim.
func TestOldMemoryWithCopiesHeals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var all []*Session
	add := func(s *Session) {
		all = append(all, s)
		mustIngest(t, m, s)
	}
	for i, f := range plumbingFacts {
		add(conv(f.id, HarnessChatGPT, "Plant notes "+f.id, "", day0.AddDate(0, 0, i), f.ask, f.said))
	}
	for i := range 12 { // other talk, so the words are not all rare
		add(conv(fmt.Sprintf("other-%d", i), HarnessClaude, "Other work", "", day0.AddDate(0, 0, 5+i),
			fmt.Sprintf("Can you review the compressor pricing sheet %d for the supplier meeting?", i),
			"The firmware and valve numbers look fine; the owner of the sheet is still open to change."))
	}
	n := 0
	for _, f := range plumbingFacts {
		for _, server := range []string{"ireneo", "memory", "ireneo"} {
			res, err := m.Recall(ctx, RecallOptions{Query: f.query})
			if err != nil {
				t.Fatal(err)
			}
			// The server before ResultMarker wrote the same block unmarked.
			old := strings.TrimPrefix(res.ContextBlock, plumbing.ResultMarker+" ")
			n++
			add(agentCopy(fmt.Sprintf("agent-%d", n), server, f.query, old, f.agentAsk, f.answer, day0.AddDate(0, 1, n)))
		}
	}
	downgradeIndex(t, m, all)
	copies := 0
	for _, f := range plumbingFacts {
		res, err := m.Recall(ctx, RecallOptions{Query: f.query, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if copyHit(h) {
				copies++
			}
		}
	}
	if copies == 0 {
		t.Fatal("the layout 2 index returned no copies: the test does not reproduce the old memory")
	}
	t.Logf("layout 2: %d copies in the top fives", copies)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	m, err = Open(dir) // the upgrade
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, f := range plumbingFacts {
		res, err := m.Recall(ctx, RecallOptions{Query: f.query, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		rank := 0
		for i, h := range res.Hits {
			t.Logf("%q %d: %s %s %.4f %q", f.query, i+1, h.SessionID, h.Role, h.Score, h.Text)
			if copyHit(h) {
				t.Errorf("%q: hit %d is a copy: %s %s %q", f.query, i+1, h.SessionID, h.Role, h.Text)
			}
			if h.SessionID == f.id && h.Text == f.said && rank == 0 {
				rank = i + 1
			}
		}
		if rank == 0 || rank > 2 {
			t.Errorf("%q: the original turn is at rank %d of %d, want 1 or 2", f.query, rank, len(res.Hits))
		}
		// The agent's own answer stays searchable.
		if !hasTurnText(t, m, f.answer) {
			t.Errorf("%q: the agents' answer is not found", f.answer)
		}
	}
	var plumbed int
	if err := m.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE NOT searched`).Scan(&plumbed); err != nil {
		t.Fatal(err)
	}
	if want := 2 * n; plumbed < want {
		t.Errorf("%d chunks marked not searched, want at least %d (a call and a result per agent session)", plumbed, want)
	}
	for i := 1; i <= n; i++ {
		data, err := os.ReadFile(srcFileOf(t, m, fmt.Sprintf("agent-%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `receipt: session_id=`) || !strings.Contains(string(data), `mcp__`) {
			t.Errorf("agent-%d: src/ lost the call or the result", i)
		}
	}
}

// hasTurnText reports whether recall finds a turn with exactly text.
func hasTurnText(t *testing.T, m *Memory, text string) bool {
	t.Helper()
	res, err := m.Recall(context.Background(), RecallOptions{Query: text, K: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Text == text {
			return true
		}
	}
	return false
}

func srcFileOf(t *testing.T, m *Memory, id string) string {
	t.Helper()
	var rel string
	if err := m.db.QueryRow(`SELECT path FROM sessions WHERE session_id=?`, id).Scan(&rel); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(m.Dir(), rel)
}
