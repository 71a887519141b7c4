package gui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	return sig + srcSignature(m.Dir()), nil
}

// srcSignature is the times of the folders under src/: an import's counts
// are visible as its transaction commits, and its files are moved into
// src/ just after, so a reload on the counts alone can read a conversation
// from its file as it was (CI caught the open one left at its old turns).
// Moving a file into a folder changes the folder's time, where times are
// fine enough to tell the moves apart (see memoryWatch for where not).
func srcSignature(dir string) string {
	src := filepath.Join(dir, memory.SrcDir)
	ents, err := os.ReadDir(src)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		// Stat, not the listing's entry: Windows may keep a folder's time
		// in its parent's listing late.
		if info, err := os.Stat(filepath.Join(src, e.Name())); err == nil {
			fmt.Fprintf(&b, " %s@%d", e.Name(), info.ModTime().UnixNano())
		}
	}
	return b.String()
}

// memoryWatch decides, from one poll's signature to the next, when the
// window reloads: at a change, and once more at the poll after it. On a
// file system whose times are coarse (tmpfs, ext4 before Linux 6.13,
// Windows, FAT), the moves of one import can all fall in the folder time
// a poll already saw, so the signature would not change again when the
// last file lands; the moves take milliseconds, a poll comes seconds later.
type memoryWatch struct {
	last   string
	settle bool // a change was seen at the poll before
}

// observe reports whether the window reloads at a poll that read sig.
func (w *memoryWatch) observe(sig string) bool {
	if sig != w.last {
		w.last, w.settle = sig, true
		return true
	}
	if w.settle {
		w.settle = false
		return true
	}
	return false
}

// followMemory looks at the memory until the app quits. It is not counted
// as background work: it never ends by itself.
func (u *ui) followMemory() {
	every := memoryPollEvery
	if every <= 0 {
		return
	}
	go func() {
		var w memoryWatch
		w.last, _ = memorySignature(u.ctx, u.mem)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-u.ctx.Done():
				return
			case <-t.C:
			}
			sig, err := memorySignature(u.ctx, u.mem)
			if err != nil || !w.observe(sig) {
				continue
			}
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
