package recall

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/plumbing"
)

// The facts of the scenario in issue 20: each said once, in a conversation
// of its own, then asked about by agents that call recall. The agents ask in
// other words than the person used and answer as agents do; the passage
// Ireneo returned repeats the fact's own words.
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
func agentCopy(id, server, query, result, ask, answer string, at time.Time) *funes.Session {
	tool := "mcp__" + server + "__recall"
	return &funes.Session{ID: id, Harness: funes.HarnessClaudeCode, Title: ask, Turns: []funes.Turn{
		{TurnUUID: id + "-0", Seq: 0, TS: at, Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: ask}}},
		{TurnUUID: id + "-1", Seq: 1, TS: at.Add(time.Second), Role: funes.RoleAssistant, Blocks: []funes.Block{
			{Type: funes.BlockToolUse, ToolName: tool, Text: fmt.Sprintf(`{"query":%q}`, query)}}},
		{TurnUUID: id + "-2", Seq: 2, TS: at.Add(2 * time.Second), Role: funes.RoleTool, Blocks: []funes.Block{
			{Type: funes.BlockToolResult, ToolName: tool, Text: result}}},
		{TurnUUID: id + "-3", Seq: 3, TS: at.Add(3 * time.Second), Role: funes.RoleAssistant, Blocks: []funes.Block{{Type: funes.BlockText, Text: answer}}},
	}}
}

// copyText reports whether a passage is an agent's call to Ireneo or
// Ireneo's answer, not anyone's own words.
func copyText(role, text string) bool {
	return role == funes.RoleTool || strings.Contains(text, `{"query"`) || strings.Contains(text, "receipt: session_id=") ||
		strings.Contains(text, plumbing.ResultMarker)
}

// downgradeToLayout2 rewrites the memory's index as the release before
// issue 20 wrote it: FTS5's chunks_fts over every chunk, plumbing included,
// and index layout 2. It returns how many of each fact query's FTS5 top five
// (the old release's candidates) are copies.
func downgradeToLayout2(t *testing.T, dir string) int {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", filepath.Join(dir, "ireneo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{}
	for _, tb := range engine.Tables {
		stmts = append(stmts, "DROP TABLE IF EXISTS "+tb)
	}
	stmts = append(stmts,
		`CREATE VIRTUAL TABLE chunks_fts USING fts5(body, title, ids, date, tokenize = 'porter unicode61 remove_diacritics 2')`,
		`INSERT INTO chunks_fts(rowid, body, title) SELECT c.id, c.body, s.title FROM chunks c JOIN sessions s ON s.id = c.sess`,
		`UPDATE chunks SET searched = 1`,
		`UPDATE meta SET value = '2' WHERE key = 'index_layout'`)
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	copies := 0
	for _, f := range plumbingFacts {
		var terms []string
		for _, w := range strings.FieldsFunc(f.query, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			terms = append(terms, `"`+w+`"`)
		}
		rows, err := db.QueryContext(ctx, `SELECT t.role, c.body FROM (SELECT rowid AS id, bm25(chunks_fts) AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r LIMIT 5) x
			JOIN chunks c ON c.id = x.id JOIN turns t ON t.sess = c.sess AND t.seq = c.seq`, strings.Join(terms, " OR "))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var role, body string
			if err := rows.Scan(&role, &body); err != nil {
				t.Fatal(err)
			}
			if copyText(role, body) {
				copies++
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return copies
}

// TestOldMemoryWithCopiesHeals: a memory whose index (layout 2, FTS5)
// searched the agents' recall calls and Ireneo's answers — here the answers
// of the server before ResultMarker, known by their shape — had copies in its
// top fives; on the next open the index is rebuilt, the original turn comes
// back first or second, no copy is in the top five, and src/ still holds
// every copy verbatim.
func TestOldMemoryWithCopiesHeals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range plumbingFacts {
		mustIngest(t, m, conv(f.id, funes.HarnessChatGPT, "Plant notes "+f.id, "", day0.AddDate(0, 0, i), f.ask, f.said))
	}
	for i := range 12 { // other talk, so the words are not all rare
		mustIngest(t, m, conv(fmt.Sprintf("other-%d", i), funes.HarnessClaude, "Other work", "", day0.AddDate(0, 0, 5+i),
			fmt.Sprintf("Can you review the compressor pricing sheet %d for the supplier meeting?", i),
			"The firmware and valve numbers look fine; the owner of the sheet is still open to change."))
	}
	n := 0
	for _, f := range plumbingFacts {
		for _, server := range []string{"ireneo", "memory", "ireneo"} {
			res, err := Recall(ctx, m, Options{Query: f.query})
			if err != nil {
				t.Fatal(err)
			}
			// The server before ResultMarker wrote the same block unmarked.
			old := strings.TrimPrefix(res.ContextBlock, plumbing.ResultMarker+" ")
			n++
			mustIngest(t, m, agentCopy(fmt.Sprintf("agent-%d", n), server, f.query, old, f.agentAsk, f.answer, day0.AddDate(0, 1, n)))
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	copies := downgradeToLayout2(t, dir)
	if copies == 0 {
		t.Fatal("the layout 2 index returned no copies: the test does not reproduce the old memory")
	}
	t.Logf("layout 2 (FTS5): %d copies in the top fives", copies)

	m, err = memory.Open(dir) // the upgrade
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, f := range plumbingFacts {
		res, err := Recall(ctx, m, Options{Query: f.query, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		rank := 0
		for i, h := range res.Hits {
			if copyText(h.Role, h.Text) {
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
		found := false
		all, err := Recall(ctx, m, Options{Query: f.answer, K: 20})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range all.Hits {
			found = found || h.Text == f.answer
		}
		if !found {
			t.Errorf("%q: the agents' answer is not found", f.answer)
		}
	}
	// src/ keeps every call and result verbatim.
	kept := 0
	err = filepath.WalkDir(filepath.Join(dir, memory.SrcDir), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), `receipt: session_id=`) && strings.Contains(string(data), `mcp__`) {
			kept++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if kept != n {
		t.Errorf("%d agent transcripts in src/ keep their call and result, want %d", kept, n)
	}
}
