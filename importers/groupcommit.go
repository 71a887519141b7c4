package importers

import (
	"context"
	"fmt"
	"slices"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// groupCommit holds the staged batches of small inputs (one transcript a
// file) until they make a transaction's worth, then commits them together
// (memory.CommitBatches) on another goroutine while the next inputs are
// read. A transaction per Codex rollout or Claude Code file made the engine
// rewrite its dictionary 4,400 times in the heavy import (168 CPU-s; 90
// with one transaction per 250 conversations), and committing in turn with
// reading left one of two cores idle. Each input is still read to the end
// before anything of it is stored, and fails alone.
//
// Parsers ask the memory what it holds (Lookup); groupCommit answers for
// the conversations it holds back or is committing too, so nothing changes
// for them: turns and projects from those conversations, and for anything
// else it waits for the commit and asks the memory.
type groupCommit struct {
	m        *memory.Memory
	sum      *Summary
	progress func(Progress)
	cur      *group // held, not yet committing
	flying   *group // being committed, or nil
}

// group is a set of batches committed together.
type group struct {
	held     []heldBatch
	sessions int                            // conversations staged in held
	convs    map[string]*funes.Session      // harness\x00id → held copy
	turns    map[string]map[string][]string // harness → turn uuid → held session ids
	done     chan struct{}                  // closed once committed
	errs     []error                        // per batch, once done
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
	return &groupCommit{m: m, sum: sum, progress: progress, cur: newGroup()}
}

func newGroup() *group {
	return &group{convs: map[string]*funes.Session{}, turns: map[string]map[string][]string{}}
}

func convKey(harness, id string) string { return harness + "\x00" + id }

// add takes a parsed input's batch; staged are the conversations it will
// store.
func (g *groupCommit) add(ctx context.Context, b *memory.Batch, name string, skipped []Failure, staged []*funes.Session) error {
	c := g.cur
	c.held = append(c.held, heldBatch{b, name, skipped})
	for _, s := range staged {
		c.hold(s)
	}
	c.sessions += b.Staged()
	if c.sessions >= groupAt {
		return g.launch(ctx)
	}
	return nil
}

// hold notes a held conversation and its turns; a later copy of the same
// conversation (in the same input) replaces the earlier.
func (c *group) hold(s *funes.Session) {
	k := convKey(s.Harness, s.ID)
	byTurn := c.turns[s.Harness]
	if byTurn == nil {
		byTurn = map[string][]string{}
		c.turns[s.Harness] = byTurn
	}
	if old := c.convs[k]; old != nil {
		for _, t := range old.Turns {
			byTurn[t.TurnUUID] = slices.DeleteFunc(byTurn[t.TurnUUID], func(o string) bool { return o == s.ID })
		}
	}
	c.convs[k] = s
	for _, t := range s.Turns {
		if !slices.Contains(byTurn[t.TurnUUID], s.ID) {
			byTurn[t.TurnUUID] = append(byTurn[t.TurnUUID], s.ID)
		}
	}
}

// groups are the groups not yet stored, the one committing first.
func (g *groupCommit) groups() []*group {
	if g.flying != nil {
		return []*group{g.flying, g.cur}
	}
	return []*group{g.cur}
}

// holds reports whether a held or committing batch stages the conversation.
func (g *groupCommit) holds(harness, id string) bool {
	for _, c := range g.groups() {
		if c.convs[convKey(harness, id)] != nil {
			return true
		}
	}
	return false
}

// launch starts committing the held batches, once the previous group is
// stored (SQLite takes one writer at a time anyway). It returns an error
// only when ctx ends.
func (g *groupCommit) launch(ctx context.Context) error {
	if err := g.land(ctx); err != nil {
		return err
	}
	c := g.cur
	if len(c.held) == 0 {
		return nil
	}
	g.cur, g.flying = newGroup(), c
	bs := make([]*memory.Batch, len(c.held))
	for i, h := range c.held {
		bs[i] = h.b
	}
	c.done = make(chan struct{})
	go func() {
		defer close(c.done)
		c.errs = memory.CommitBatches(ctx, bs, nil)
	}()
	return nil
}

// land waits for the group being committed and records what each of its
// batches did. It returns an error only when ctx ends.
func (g *groupCommit) land(ctx context.Context) error {
	c := g.flying
	if c == nil {
		return nil
	}
	<-c.done // CommitBatches returns soon once ctx ends
	g.flying = nil
	for i, h := range c.held {
		if c.errs[i] != nil {
			if ctx.Err() == nil {
				g.sum.fail(h.name, fmt.Errorf("cannot store the import: %w", c.errs[i]))
			}
			continue
		}
		g.sum.add(h.b.Report())
		g.sum.Skipped = append(g.sum.Skipped, h.skipped...)
		for _, f := range h.skipped {
			g.sum.UnreadableLines += f.Lines
		}
	}
	if g.progress != nil {
		g.progress(Progress{Input: c.held[len(c.held)-1].name, Phase: PhaseCommit, Done: int64(c.sessions), Total: int64(c.sessions)})
	}
	return ctx.Err()
}

// flush stores every batch held and waits until it is stored. It returns an
// error only when ctx ends.
func (g *groupCommit) flush(ctx context.Context) error {
	if err := g.launch(ctx); err != nil {
		return err
	}
	return g.land(ctx)
}

// discard waits for a commit under way, records it, and drops every batch
// still held (the import ends early).
func (g *groupCommit) discard(ctx context.Context) {
	g.land(ctx) // records what was stored; the error is the caller's already
	for _, h := range g.cur.held {
		h.b.Discard()
	}
	g.cur = newGroup()
}

// StoredTurns answers for the memory and the held and committing
// conversations: each stands for its stored copy, as it will once
// committed.
func (g *groupCommit) StoredTurns(ctx context.Context, harness, except string, turnIDs []string) (map[string][]string, error) {
	out, err := g.m.StoredTurns(ctx, harness, except, turnIDs)
	if err != nil {
		return out, err
	}
	groups := g.groups()
	if len(groups) == 1 && len(groups[0].convs) == 0 {
		return out, nil
	}
	for turn, owners := range out {
		kept := slices.DeleteFunc(owners, func(o string) bool { return g.holds(harness, o) })
		if len(kept) == 0 {
			delete(out, turn)
		} else {
			out[turn] = kept
		}
	}
	for _, c := range groups {
		byTurn := c.turns[harness]
		for _, t := range turnIDs {
			for _, o := range byTurn[t] {
				if o != except && !slices.Contains(out[t], o) {
					out[t] = append(out[t], o)
				}
			}
		}
	}
	return out, nil
}

// StoredSession stores what is held first when the conversation is held:
// parsers ask for it rarely (a resumed session imported before its
// original).
func (g *groupCommit) StoredSession(ctx context.Context, harness, id string) (*funes.Session, bool, error) {
	if g.holds(harness, id) {
		if err := g.flush(ctx); err != nil {
			return nil, false, err
		}
	}
	return g.m.StoredSession(ctx, harness, id)
}

// Project answers for a held or committing conversation with the project it
// will be stored with (the latest copy's).
func (g *groupCommit) Project(ctx context.Context, harness, id string) (string, bool, error) {
	if s := g.cur.convs[convKey(harness, id)]; s != nil {
		return s.Project, true, nil
	}
	if g.flying != nil {
		if s := g.flying.convs[convKey(harness, id)]; s != nil {
			return s.Project, true, nil
		}
	}
	return g.m.Project(ctx, harness, id)
}
