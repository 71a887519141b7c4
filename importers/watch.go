package importers

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ireneo-app/ireneo/memory"
)

// watchDebounce is how long a file must be quiet before it is imported:
// agents append a transcript line by line, and one import per burst is
// enough.
var watchDebounce = time.Second

// Watch keeps watching dirs (recursively, including folders created later)
// and imports each new or grown transcript (.jsonl, and Cursor's .txt) or
// database (opencode's, Cursor's state.vscdb: a write to its -wal counts)
// once it has been quiet for about a second. A path that is a file, a
// database, is watched alone, through its folder. onImport, if set, is
// called after each import of a recognised file, from Watch's own
// goroutine. Callers import what is already there with Run first; Watch
// only follows changes. It returns nil when ctx ends, or an error if
// nothing can be watched.
func Watch(ctx context.Context, m *memory.Memory, dirs []string, opts Options, onImport func(Summary)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.Close()
	watched := 0
	files := map[string]bool{} // databases watched alone
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.Mode().IsRegular() {
			if w.Add(filepath.Dir(d)) == nil {
				files[filepath.Clean(d)] = true
				watched++
			}
			continue
		}
		if n, err := watchTree(w, d); err == nil {
			watched += n
		}
	}
	// A file's folder may hold other things: only the file is followed
	// there, unless the folder is watched too.
	trees := map[string]bool{}
	for _, d := range dirs {
		if !files[filepath.Clean(d)] {
			trees[filepath.Clean(d)] = true
		}
	}
	inTree := func(p string) bool {
		for d := range trees {
			if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	follow := func(p string) (string, bool) {
		t := watchTarget(p)
		if files[t] {
			return t, true
		}
		return t, inTree(t) && watchable(t)
	}
	if watched == 0 {
		return fmt.Errorf("watch: none of %s can be watched", strings.Join(dirs, ", "))
	}

	due := make(chan string, 64)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // imports run here, so a long import never stalls the event loop
		defer wg.Done()
		imported := map[string]fileMark{}
		for p := range due {
			mark, ok := markOf(p)
			if !ok || imported[p] == mark {
				continue // gone, or not changed since the last import
			}
			sum, err := Run(ctx, m, []string{p}, opts)
			if ctx.Err() != nil {
				return
			}
			imported[p] = mark
			if err != nil && unrecognised(sum) {
				continue // a file that is not a transcript
			}
			if onImport != nil {
				onImport(sum)
			}
		}
	}()
	defer func() {
		close(due)
		wg.Wait()
	}()

	pending := map[string]time.Time{}
	tick := time.NewTicker(watchDebounce / 4)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			switch {
			case ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write):
				fi, err := os.Stat(ev.Name)
				if err != nil {
					continue
				}
				if fi.IsDir() {
					if ev.Has(fsnotify.Create) {
						watchTree(w, ev.Name)
						// Files written before the new folder was watched.
						filepath.WalkDir(ev.Name, func(p string, d fs.DirEntry, err error) error {
							if err == nil && !d.IsDir() && watchable(p) && inTree(p) {
								pending[p] = time.Now().Add(watchDebounce)
							}
							return nil
						})
					}
					continue
				}
				if t, ok := follow(ev.Name); ok {
					pending[t] = time.Now().Add(watchDebounce)
				}
			case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
				delete(pending, ev.Name)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: look at every watched file again.
				for _, d := range w.WatchList() {
					entries, _ := os.ReadDir(d)
					for _, e := range entries {
						if t, ok := follow(filepath.Join(d, e.Name())); !e.IsDir() && ok {
							pending[t] = time.Now().Add(watchDebounce)
						}
					}
				}
			}
		case now := <-tick.C:
			for p, at := range pending {
				if now.Before(at) {
					continue
				}
				select {
				case due <- p:
					delete(pending, p)
				default: // the importer is busy; try again next tick
				}
			}
		}
	}
}

// watchTree watches dir and every folder under it.
func watchTree(w *fsnotify.Watcher, dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && d.Name() == ".git" {
			return fs.SkipDir
		}
		if w.Add(p) == nil {
			n++
		}
		return nil
	})
	return n, err
}

// watchable: the watcher follows transcripts (.jsonl files, Cursor's
// .txt ones) and the databases opencode and Cursor keep.
func watchable(p string) bool {
	base := filepath.Base(p)
	switch {
	case strings.HasPrefix(base, "."):
		return false
	case strings.HasSuffix(base, ".jsonl"), base == "state.vscdb":
		return true
	case strings.HasPrefix(base, "opencode") && strings.HasSuffix(base, ".db"):
		return true
	case strings.HasSuffix(base, ".txt"):
		return filepath.Base(filepath.Dir(p)) == "agent-transcripts"
	}
	return false
}

// watchTarget is the file a change is to: a database's, for a write to
// its -wal, -shm or -journal.
func watchTarget(p string) string {
	p = filepath.Clean(p)
	for _, sfx := range []string{"-wal", "-shm", "-journal"} {
		if t, ok := strings.CutSuffix(p, sfx); ok {
			return t
		}
	}
	return p
}

type fileMark struct {
	size int64
	mod  time.Time
}

func markOf(p string) (fileMark, bool) {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return fileMark{}, false
	}
	return fileMark{fi.Size(), fi.ModTime()}, true
}

// unrecognised reports a run whose only failure is that its file is not a
// format Ireneo imports.
func unrecognised(s Summary) bool {
	for _, f := range s.Failures {
		if !strings.Contains(f.Reason, errUnknownFormat.Error()) {
			return false
		}
	}
	return true
}
