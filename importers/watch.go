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
// and imports each new or grown .jsonl transcript once it has been quiet
// for about a second. onImport, if set, is called after each import of a
// recognised file, from Watch's own goroutine. Callers import what is
// already there with Run first; Watch only follows changes. It returns nil
// when ctx ends, or an error if no folder can be watched.
func Watch(ctx context.Context, m *memory.Memory, dirs []string, opts Options, onImport func(Summary)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.Close()
	watched := 0
	for _, d := range dirs {
		if n, err := watchTree(w, d); err == nil {
			watched += n
		}
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
							if err == nil && !d.IsDir() && watchable(p) {
								pending[p] = time.Now().Add(watchDebounce)
							}
							return nil
						})
					}
					continue
				}
				if watchable(ev.Name) {
					pending[ev.Name] = time.Now().Add(watchDebounce)
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
						if p := filepath.Join(d, e.Name()); !e.IsDir() && watchable(p) {
							pending[p] = time.Now().Add(watchDebounce)
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

// watchable: the watcher follows transcripts, which are .jsonl files.
func watchable(p string) bool {
	return strings.HasSuffix(p, ".jsonl") && !strings.HasPrefix(filepath.Base(p), ".")
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
