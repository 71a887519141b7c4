package importers

import (
	"context"
	"fmt"
	"slices"

	"github.com/ireneo-app/ireneo/memory"
)

// groupCommit holds the staged batches of small inputs (one transcript a
// file) until they make a transaction's worth, then commits them together
// (memory.CommitBatches). A transaction per Codex rollout or Claude Code
// file made the engine rewrite its dictionary 4,400 times in the heavy
// import. Each input is still read to the end before anything of it is
// stored, and fails alone.
//
// Parsers ask the memory what it holds (Lookup); groupCommit answers for
// the conversations it holds back too, so nothing changes for them: turns
// and projects from the held conversations, and for anything else it
// commits first and asks the memory.
type groupCommit struct {
	m        *memory.Memory
	sum      *Summary
	progress func(Progress)
	held     []heldBatch
	sessions int                            // conversations staged in held
	convs    map[string]*memory.Session     // harness\x00id → held copy
	turns    map[string]map[string][]string // harness → turn uuid → held session ids
}

type heldBatch struct {
	b       *memory.Batch
	name    string
	skipped []Failure
}

// groupAt is how many staged conversations make group commit flush: a
// transaction's worth (memory commits 250 to a transaction).
const groupAt = 250

func newGroupCommit(m *memory.Memory, sum *Summary, progress func(Progress)) *groupCommit {
	g := &groupCommit{m: m, sum: sum, progress: progress}
	g.reset()
	return g
}

func (g *groupCommit) reset() {
	g.held, g.sessions = nil, 0
	g.convs = map[string]*memory.Session{}
	g.turns = map[string]map[string][]string{}
}

func convKey(harness, id string) string { return harness + "\x00" + id }

// add takes a parsed input's batch; staged are the conversations it will
// store.
func (g *groupCommit) add(ctx context.Context, b *memory.Batch, name string, skipped []Failure, staged []*memory.Session) error {
	g.held = append(g.held, heldBatch{b, name, skipped})
	for _, s := range staged {
		g.hold(s)
	}
	g.sessions += b.Staged()
	if g.sessions >= groupAt {
		return g.flush(ctx)
	}
	return nil
}

// hold notes a held conversation and its turns; a later copy of the same
// conversation (in the same input) replaces the earlier.
func (g *groupCommit) hold(s *memory.Session) {
	k := convKey(s.Harness, s.ID)
	byTurn := g.turns[s.Harness]
	if byTurn == nil {
		byTurn = map[string][]string{}
		g.turns[s.Harness] = byTurn
	}
	if old := g.convs[k]; old != nil {
		for _, t := range old.Turns {
			byTurn[t.TurnUUID] = slices.DeleteFunc(byTurn[t.TurnUUID], func(o string) bool { return o == s.ID })
		}
	}
	g.convs[k] = s
	for _, t := range s.Turns {
		if !slices.Contains(byTurn[t.TurnUUID], s.ID) {
			byTurn[t.TurnUUID] = append(byTurn[t.TurnUUID], s.ID)
		}
	}
}

// discard drops every held batch uncommitted (the import was cancelled).
func (g *groupCommit) discard() {
	for _, h := range g.held {
		h.b.Discard()
	}
	g.reset()
}

// holds reports whether a held batch stages the conversation.
func (g *groupCommit) holds(harness, id string) bool { return g.convs[convKey(harness, id)] != nil }

// flush commits every held batch and records what each did. It returns an
// error only when ctx ends.
func (g *groupCommit) flush(ctx context.Context) error {
	if len(g.held) == 0 {
		return nil
	}
	held := g.held
	g.reset()
	bs := make([]*memory.Batch, len(held))
	for i, h := range held {
		bs[i] = h.b
	}
	var progress func(done, total int)
	if g.progress != nil {
		progress = func(done, total int) {
			g.progress(Progress{Input: held[0].name, Phase: PhaseCommit, Done: int64(done), Total: int64(total)})
		}
	}
	errs := memory.CommitBatches(ctx, bs, progress)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for i, h := range held {
		if errs[i] != nil {
			g.sum.fail(h.name, fmt.Errorf("cannot store the import: %w", errs[i]))
			continue
		}
		g.sum.add(h.b.Report())
		g.sum.Skipped = append(g.sum.Skipped, h.skipped...)
	}
	return nil
}

// StoredTurns answers for the memory and the held conversations: a held
// conversation stands for its stored copy, as it will once committed.
func (g *groupCommit) StoredTurns(ctx context.Context, harness, except string, turnIDs []string) (map[string][]string, error) {
	out, err := g.m.StoredTurns(ctx, harness, except, turnIDs)
	if err != nil || len(g.convs) == 0 {
		return out, err
	}
	for turn, owners := range out {
		kept := owners[:0]
		for _, o := range owners {
			if !g.holds(harness, o) {
				kept = append(kept, o)
			}
		}
		if len(kept) == 0 {
			delete(out, turn)
		} else {
			out[turn] = kept
		}
	}
	byTurn := g.turns[harness]
	for _, t := range turnIDs {
		for _, o := range byTurn[t] {
			if o != except {
				out[t] = append(out[t], o)
			}
		}
	}
	return out, nil
}

// StoredSession commits first when the conversation is held: parsers ask
// for it rarely (a resumed session imported before its original).
func (g *groupCommit) StoredSession(ctx context.Context, harness, id string) (*memory.Session, bool, error) {
	if g.holds(harness, id) {
		if err := g.flush(ctx); err != nil {
			return nil, false, err
		}
	}
	return g.m.StoredSession(ctx, harness, id)
}

// Project answers for a held conversation with the project it will be
// stored with.
func (g *groupCommit) Project(ctx context.Context, harness, id string) (string, bool, error) {
	if s := g.convs[convKey(harness, id)]; s != nil {
		return s.Project, true, nil
	}
	return g.m.Project(ctx, harness, id)
}
