package sync

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ireneo-app/ireneo/memory"
)

// Timing of Run. A pass starts once the folder has been quiet for
// runQuiet after a change (the sync engine writes a burst of files), and
// at the latest runMaxWait after the first change of a burst (or ten times
// the last pass's length, when that is more: a pass over a large memory
// costs a walk of the folder and a read of the catalog however little
// arrived, so files arriving one after another for minutes are taken in
// fewer, larger passes); with no
// change at all, every runIdle, to catch what no watcher saw (a catalog
// changed by a process without the observer, a watch the system dropped).
var (
	runQuiet      = time.Second
	runMaxWait    = 5 * time.Second
	runMaxWaitCap = time.Minute
	runIdle       = 5 * time.Minute
	runRetry      = 30 * time.Second // after a failed pass, or while another process runs the engine
)

// Run keeps memory m and its sync folder in step until ctx ends: a pass
// at once, then one within seconds of each change the sync engine makes
// to the folder or an import makes to the memory's src/. While another
// process runs the engine, it waits for its turn. It returns ErrNotSetUp
// at once for a memory that syncs with nothing, and nil when ctx ends.
func Run(ctx context.Context, m *memory.Memory, opts Options) error {
	for {
		e, err := Open(m, opts)
		switch {
		case err == nil:
			err = e.run(ctx)
			e.Close()
			return err
		case errors.Is(err, ErrBusy):
		default:
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(runRetry):
		}
	}
}

func (e *Engine) run(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	src := filepath.Join(e.memDir, memory.SrcDir)
	for _, d := range []string{e.cfg.Folder, src} {
		watchTree(w, d)
	}
	var (
		first, last time.Time // of the burst of changes not yet passed over
		next        = time.Now()
		maxWait     = runMaxWait
		tick        = time.NewTicker(runQuiet / 4)
	)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := statDir(ev.Name); err == nil && fi {
					watchTree(w, ev.Name)
				}
			}
			now := time.Now()
			if first.IsZero() {
				first = now
			}
			last = now
		case <-w.Errors:
			// Events lost (an overflow): look at everything.
			first, last = time.Now(), time.Now()
		case now := <-tick.C:
			due := !next.IsZero() && !now.Before(next)
			if !first.IsZero() && (now.Sub(last) >= runQuiet || now.Sub(first) >= maxWait) {
				due = true
			}
			if !due {
				continue
			}
			first, last = time.Time{}, time.Time{}
			began := time.Now()
			rep, err := e.Pass(ctx)
			maxWait = min(max(runMaxWait, 10*time.Since(began)), runMaxWaitCap)
			if ctx.Err() != nil {
				return nil
			}
			if e.opts.OnPass != nil {
				e.opts.OnPass(rep, err)
			}
			next = time.Now().Add(runIdle)
			switch {
			case err != nil:
				next = time.Now().Add(runRetry)
			case rep.recheck > 0:
				next = time.Now().Add(rep.recheck)
			}
		}
	}
}

func statDir(p string) (bool, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}

// watchTree watches dir and every folder under it but the sync engine's
// own marker folder.
func watchTree(w *fsnotify.Watcher, dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if d.Name() == ".stfolder" {
			return fs.SkipDir
		}
		w.Add(p)
		return nil
	})
}
