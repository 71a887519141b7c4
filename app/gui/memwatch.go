package gui

import (
	"context"
	"fmt"
	"time"

	"github.com/ireneo-app/ireneo/memory"
)

// Following the memory. Other processes change it while the window is
// open: `ireneo import`, a capture hook after an agent's reply, a forget
// from the CLI. The window looks every few seconds at the memory's counts
// and, when they changed, refreshes every screen as after its own import.

// memoryPollEvery is how often the window looks; 0 stops looking (the
// widget tests, which change the memory behind the window's back on
// purpose, turn it on where they test it).
var memoryPollEvery = 3 * time.Second

// memorySignature is what changes when conversations come, grow, change
// or go: the memory's counts (a handful of aggregate queries, no walk over
// files) and the time of its last import.
func memorySignature(ctx context.Context, m *memory.Memory) (string, error) {
	st, err := m.Status(ctx)
	if err != nil {
		return "", err
	}
	sig := fmt.Sprint(st.Conversations, st.Turns, st.Tokens, st.Chunks, st.Projects, st.Starred, st.Forgotten)
	if st.LastImport != nil {
		sig += " " + st.LastImport.String()
	}
	return sig, nil
}

// followMemory looks at the memory until the app quits. It is not counted
// as background work: it never ends by itself.
func (u *ui) followMemory() {
	every := memoryPollEvery
	if every <= 0 {
		return
	}
	go func() {
		last, _ := memorySignature(u.ctx, u.mem)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-u.ctx.Done():
				return
			case <-t.C:
			}
			sig, err := memorySignature(u.ctx, u.mem)
			if err != nil || sig == last {
				continue
			}
			last = sig
			fyneDo(u.memoryChangedElsewhere)
		}
	}()
}

// memoryChangedElsewhere refreshes the screens after another process
// changed the memory. The open conversation stays where it is; the
// Search results stay until the person searches again (a new query
// would move what they are reading).
func (u *ui) memoryChangedElsewhere() {
	u.turnCache.clear()
	u.search.turns = nil
	u.refreshAll()
	if u.convs.current != nil {
		u.convs.reloadCurrent()
	}
}
