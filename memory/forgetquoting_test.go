package memory

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// An agent's transcript grows (a new turn is imported) while a forget
// rewrites its old copy: the forget's commit must not put the old copy back.
func TestForgetRacingAnImportKeepsTheNewTurns(t *testing.T) {
	ctx := context.Background()
	m, agent := quotedMemory(t)
	grown := *agent
	grown.Turns = append(append([]funes.Turn{}, agent.Turns...), funes.Turn{TurnUUID: "agent-1-4", Seq: 4, TS: agent.Turns[3].TS.Add(1e9), Role: funes.RoleUser,
		Blocks: []funes.Block{{Type: funes.BlockText, Text: "NEWTURNWORDS my own later message"}}})
	beforeQuoteCommit = func() { beforeQuoteCommit = nil; mustIngest(t, m, &grown) }
	defer func() { beforeQuoteCommit = nil }()
	indexedBefore(t, m, true)
	if _, err := m.Forget(ctx, []string{"gone-1"}, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(srcFileOf(t, m, "agent-1"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("NEWTURNWORDS")) {
		t.Errorf("the turn imported meanwhile is gone from src/:\n%s", data)
	}
	if found := forgottenIn(t, m, true); len(found) > 0 {
		t.Errorf("the forgotten quote survives in %v", found)
	}
}

// A forget that reads an agent's transcript after an import committed a
// grown copy but before it renamed the file into place sees a file that is
// not the stored copy: it neither rolls the copy back nor leaves the quote,
// it stops with nothing forgotten, and runs once the import is done.
func TestForgetInAnImportsRenameWindow(t *testing.T) {
	ctx := context.Background()
	m, agent := quotedMemory(t)
	grown := *agent
	grown.Turns = append(append([]funes.Turn{}, agent.Turns...), funes.Turn{TurnUUID: "agent-1-4", Seq: 4, TS: agent.Turns[3].TS.Add(1e9), Role: funes.RoleUser,
		Blocks: []funes.Block{{Type: funes.BlockText, Text: "NEWTURNWORDS my own later message"}}})
	indexedBefore(t, m, true)
	var ferr error
	afterCommitTx = func() {
		afterCommitTx = nil
		_, ferr = m.Forget(ctx, []string{"gone-1"}, nil)
	}
	defer func() { afterCommitTx = nil }()
	mustIngest(t, m, &grown)
	if ferr == nil || !strings.Contains(ferr.Error(), "run the forget again") {
		t.Fatalf("forget in the window: %v, want it to ask to be run again", ferr)
	}
	if _, err := m.LoadSession(ctx, "gone-1"); err != nil {
		t.Fatalf("the failed forget forgot: %v", err)
	}
	if _, err := m.Forget(ctx, []string{"gone-1"}, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(srcFileOf(t, m, "agent-1"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("NEWTURNWORDS")) {
		t.Errorf("the grown copy's new turn is gone from src/:\n%s", data)
	}
	if found := forgottenIn(t, m, true); len(found) > 0 {
		t.Errorf("the forgotten quote survives in %v", found)
	}
}

// Minified structured answer with CJK passages (no spaces): a chunk cut
// falls inside the id.
func TestForgetFindsAnIdSplitAcrossChunks(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	head := `{"marker":"[ireneo-result]","hits":[{"source":"chatgpt","text":"` + goneToken
	tail := `","session_id":"gone-1","turn_uuid":"t0"}]}`
	idAt := strings.Index(tail, "gone-1")
	pad := ""
	for len(head)+len(pad)+idAt < 1597 {
		pad += "あ"
	}
	for len(head)+len(pad)+idAt > 1597 || len(head)+len(pad)+idAt < 1595 {
		head += "x"
		pad = pad[:len(pad)-3]
	}
	answer := head + pad + tail
	mustIngest(t, m, conv("gone-1", funes.HarnessChatGPT, "Valve", "", day0, goneSaid), agentSession("agent-1", answer))
	indexedBefore(t, m, false)
	if _, err := m.Forget(ctx, []string{"gone-1"}, nil); err != nil {
		t.Fatal(err)
	}
	if found := forgottenIn(t, m, false); len(found) > 0 {
		t.Fatalf("the forgotten quote survives in %v", found)
	}
}

// Import of agent transcripts that each hold one recall answer, into a
// memory with many tombstones (the reviewer's measure; a log, not a timed
// test).
func TestImportCostWithTombstones(t *testing.T) {
	ctx := context.Background()
	for _, ntomb := range []int{0, 20000} {
		m := openTest(t)
		for i := 0; i < ntomb; i++ {
			if _, err := m.db.Exec(`INSERT INTO tombstones(hash, forgotten) VALUES(?, ?)`, tombstoneHash(funes.HarnessChatGPT, fmt.Sprint("t", i)), i+1); err != nil {
				t.Fatal(err)
			}
		}
		b, err := m.NewBatch(IngestOptions{})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for i := 0; i < 500; i++ {
			if err := b.Add(ctx, agentSession(fmt.Sprint("agent-", i), mcpRecallText(quoteHits()))); err != nil {
				t.Fatal(err)
			}
		}
		add := time.Since(start)
		start = time.Now()
		if _, err := b.Commit(ctx, nil); err != nil {
			t.Fatal(err)
		}
		t.Logf("tombstones %d: Add x500 %v, commit %v", ntomb, add, time.Since(start))
	}
}

// With more tombstones than are read whole, each id is looked up: a
// re-imported quote of a forgotten conversation is still erased, a kept
// one stays.
func TestImportErasesQuotesAmongManyTombstones(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	for i := 0; i < 2*fewTombstones; i++ {
		if _, err := m.db.Exec(`INSERT INTO tombstones(hash, forgotten) VALUES(?, ?)`, tombstoneHash(funes.HarnessChatGPT, fmt.Sprint("t", i)), i+1); err != nil {
			t.Fatal(err)
		}
	}
	mustIngest(t, m, conv("gone-1", funes.HarnessChatGPT, "Valve", "", day0, goneSaid), conv("kept-1", funes.HarnessChatGPT, "Pump", "", day0, keptSaid))
	indexedBefore(t, m, true)
	if _, err := m.Forget(ctx, []string{"gone-1"}, nil); err != nil {
		t.Fatal(err)
	}
	mustIngest(t, m, agentSession("agent-1", mcpRecallText(quoteHits())))
	if found := forgottenIn(t, m, true); len(found) > 0 {
		t.Fatalf("the forgotten quote came back in %v", found)
	}
	if data, _ := os.ReadFile(srcFileOf(t, m, "agent-1")); !bytes.Contains(data, []byte(keptToken)) {
		t.Fatalf("the kept hit went:\n%s", data)
	}
}

// The agent's transcript grows (the watcher re-reads the harness's file,
// which still holds Ireneo's answer whole) between forget's sweep and its
// tombstones: the late sweep must find the new copy, though it is stored
// under the row id its old copy had (the newest row's id is taken again).
func TestForgetSweepsAGrownCopyStoredUnderItsOldId(t *testing.T) {
	ctx := context.Background()
	m, agent := quotedMemory(t)
	grown := *agent
	grown.Turns = append(append([]funes.Turn{}, agent.Turns...), funes.Turn{TurnUUID: "agent-1-4", Seq: 4, TS: agent.Turns[3].TS.Add(1e9), Role: funes.RoleUser,
		Blocks: []funes.Block{{Type: funes.BlockText, Text: "NEWTURNWORDS my own later message"}}})
	var before, after int64
	afterQuoteSweep = func() {
		afterQuoteSweep = nil
		m.db.QueryRow(`SELECT id FROM sessions WHERE session_id='agent-1'`).Scan(&before)
		mustIngest(t, m, &grown)
		m.db.QueryRow(`SELECT id FROM sessions WHERE session_id='agent-1'`).Scan(&after)
	}
	defer func() { afterQuoteSweep = nil }()
	indexedBefore(t, m, true)
	if _, err := m.Forget(ctx, []string{"gone-1"}, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("agent-1's row id %d, then %d", before, after)
	data, err := os.ReadFile(srcFileOf(t, m, "agent-1"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("NEWTURNWORDS")) {
		t.Errorf("the grown copy's new turn is gone from src/:\n%s", data)
	}
	if found := forgottenIn(t, m, true); len(found) > 0 {
		t.Errorf("the forgotten quote survives in %v", found)
	}
}
