package gui

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/importers"
)

// Watching: the folders Codex and Claude Code keep writing to are followed
// with importers.Watch, so new sessions land in the memory within seconds.
// The folders and the on/off switch are settings.

// watching says whether a folder is watched.
func (u *ui) watching(path string) bool {
	return u.set.WatchEnabled && slices.Contains(u.set.WatchFolders, filepath.Clean(path))
}

// setWatch adds or removes a watched folder, saves the choice and restarts
// the watcher. Turning a folder on imports what is already in it first,
// since the watcher only follows changes.
func (u *ui) setWatch(path string, on bool) {
	path = filepath.Clean(path)
	folders := slices.DeleteFunc(slices.Clone(u.set.WatchFolders), func(p string) bool { return filepath.Clean(p) == path })
	if on {
		folders = append(folders, path)
		u.set.WatchEnabled = true
	}
	u.set.WatchFolders = folders
	u.saveSettings()
	u.restartWatch()
	if on {
		u.imp.importPaths([]string{path})
	}
	u.prefs.load()
}

// restartWatch stops the watcher and starts it again on the folders the
// settings name, if watching is on.
func (u *ui) restartWatch() {
	if u.stopWatch != nil {
		u.stopWatch()
		u.stopWatch = nil
	}
	if !u.set.WatchEnabled || len(u.set.WatchFolders) == 0 {
		u.imp.watchStatus("")
		return
	}
	ctx, cancel := context.WithCancel(u.ctx)
	u.stopWatch = cancel
	dirs := slices.Clone(u.set.WatchFolders)
	opts := importers.Options{}
	set := u.set
	u.imp.watchStatus(fmt.Sprintf("Watching %s for new sessions.", plural(len(dirs), "folder", "folders")))
	done := make(chan struct{})
	u.watchDone = done
	// The watcher runs until stopped, so it is not counted as background
	// work that tests wait for.
	go func() {
		defer close(done)
		redact, err := scrubber.ImportRedactor(set)
		if err != nil {
			fyneDo(func() { u.showError("watch folders", fmt.Errorf("load the secret rules: %w", err)) })
			return
		}
		opts.Redact = redact
		err = importers.Watch(ctx, u.mem, dirs, opts, func(sum importers.Summary) {
			fyneDo(func() { u.watchImported(sum) })
		})
		if err != nil && ctx.Err() == nil {
			fyneDo(func() {
				u.imp.watchStatus("Not watching: " + err.Error())
				u.showError("watch folders", err)
			})
		}
	}()
}

// watchImported notes an import the watcher made and refreshes the screens,
// at most every few seconds while an agent is busy writing.
func (u *ui) watchImported(sum importers.Summary) {
	if sum.New+sum.Updated == 0 {
		return
	}
	u.imp.watchStatus(fmt.Sprintf("Watching %s. Last import %s: %d new, %d updated.",
		plural(len(u.set.WatchFolders), "folder", "folders"), time.Now().Format("15:04:05"), sum.New, sum.Updated))
	if time.Since(u.lastWatchRefresh) > 3*time.Second {
		u.lastWatchRefresh = time.Now()
		u.memoryChanged()
	}
}
