package backup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/ireneo-app/ireneo/catalog"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
	"github.com/ireneo-app/ireneo/settings"
	"github.com/ireneo-app/ireneo/shred"
)

// Restore phases, as Progress reports them.
const (
	PhaseExtract = "extract"
	PhaseIndex   = "index"
	PhaseMerge   = "merge"
)

// RestoreOptions tunes Restore.
type RestoreOptions struct {
	// Merge adds the archive to a memory that has conversations, the way
	// an import does: forgotten conversations stay forgotten, a changed
	// one is replaced by the import rules, nothing is duplicated, and the
	// settings are kept.
	Merge bool
	// Redact, if set, scrubs each conversation a merge imports.
	Redact func(*funes.Session) map[string]int
	// SaveSettings writes the archive's settings after a restore into an
	// empty memory (not a merge); nil leaves the settings alone. The settings file is
	// every memory's, so a restore into a scratch folder must not take it
	// unless the person asks (a backup with scrub on import off turned
	// redaction off for the main memory).
	SaveSettings func(settings.Settings) error
	// Current, if set, is the settings in use, which the summary compares
	// the archive's with (SettingsChanges).
	Current *settings.Settings
	// Progress, if set, reports files or conversations done in a phase.
	Progress func(phase string, done, total int)
}

// RestoreSummary says what a restore did.
type RestoreSummary struct {
	Archive       string `json:"archive"`
	Merged        bool   `json:"merged"`
	Files         int    `json:"files"`
	Conversations int    `json:"conversations"` // in the memory's index afterwards, for a restore; imported, for a merge
	// Forgotten counts conversations a restore left out because this
	// memory forgot them: their files are not written.
	Forgotten int `json:"forgotten"`
	// Import is what a merge's import did.
	Import   *memory.IngestReport `json:"import,omitempty"`
	Catalog  catalog.Added        `json:"catalog"`
	Settings bool                 `json:"settings_restored"`
	// SettingsChanges lists the settings the archive holds differently
	// from those in use: what the restore changed when Settings, what it
	// would have changed otherwise.
	SettingsChanges []SettingChange `json:"settings_changes,omitempty"`
	// Failed lists files the rebuilt index could not read.
	Failed      []string `json:"failed,omitempty"`
	NotIncluded []string `json:"not_included"`
}

// Restore puts the archive into memory m. Into an empty memory it writes
// the conversation files (each checked again against its checksum), the
// catalog and the settings, then rebuilds the index from src/. A memory
// with conversations is refused with ErrNotEmpty unless opts.Merge. A
// restore that fails or is cancelled leaves no file it extracted, each
// overwritten before it goes; one killed leaves them in a locked staging
// folder that the memory's next open clears the same way.
func (a *Archive) Restore(ctx context.Context, m *memory.Memory, opts RestoreOptions) (RestoreSummary, error) {
	sum := RestoreSummary{Archive: a.Path, Merged: opts.Merge, NotIncluded: NotIncluded}
	if opts.Merge {
		return a.merge(ctx, m, opts, sum)
	}
	if err := checkEmpty(ctx, m); err != nil {
		return sum, err
	}
	// The extracted files are a copy of every conversation in the archive:
	// the staging folder (staging.go) overwrites what is left of them
	// however the restore ends, and its lock lets the memory's next open
	// clear it after a kill.
	st, err := newRestoreStaging(ctx, m)
	if err != nil {
		return sum, fmt.Errorf("restore: %w", err)
	}
	defer st.discard()
	staging := st.dir

	// A conversation this memory forgot stays gone: its file is not written.
	var todo []string
	left := map[catalog.Ref]bool{}
	for _, p := range a.src {
		gone := false
		for _, c := range a.convs[p] {
			f, err := m.IsForgotten(ctx, c.Source, c.SessionID)
			if err != nil {
				return sum, fmt.Errorf("restore: %w", err)
			}
			gone = gone || f
		}
		if gone {
			sum.Forgotten += len(a.convs[p])
			for _, c := range a.convs[p] {
				left[c] = true
			}
			continue
		}
		todo = append(todo, p)
	}

	// Extract everything beside the memory first: a file that fails its
	// checksum now leaves src/ untouched.
	for i, p := range todo {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		if err := a.extract(p, filepath.Join(staging, filepath.FromSlash(p))); err != nil {
			return sum, err
		}
		if opts.Progress != nil {
			opts.Progress(PhaseExtract, i+1, len(todo))
		}
	}
	finals := make([]string, len(todo))
	for i, p := range todo {
		finals[i] = filepath.Join(m.Dir(), filepath.FromSlash(p))
	}
	// Killed while it moves them, the next open takes back the ones moved.
	if err := st.willPlace(finals); err != nil {
		return sum, fmt.Errorf("restore: %w", err)
	}
	var placed []string
	undo := func() {
		for _, p := range placed {
			shred.File(p) // overwritten, like the ones still staged
		}
	}
	for i, p := range todo {
		final := finals[i]
		if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
			undo()
			return sum, fmt.Errorf("restore: %w", err)
		}
		if _, err := os.Lstat(final); err == nil {
			undo()
			return sum, fmt.Errorf("restore: %s appeared while restoring; nothing was restored: %w", final, ErrNotEmpty)
		}
		if err := os.Rename(filepath.Join(staging, filepath.FromSlash(p)), final); err != nil {
			undo()
			return sum, fmt.Errorf("restore: %w", err)
		}
		placed = append(placed, final)
	}
	sum.Files = len(placed)
	if sum.Catalog, err = catalog.Import(ctx, m, withoutRefs(a.Catalog, left), false); err != nil {
		undo()
		return sum, fmt.Errorf("restore: %w", err)
	}
	var progress func(done, total int)
	if opts.Progress != nil {
		progress = func(done, total int) { opts.Progress(PhaseIndex, done, total) }
	}
	derr := st.discard() // only folders and the place list are left in it now
	rep, err := m.Reindex(ctx, progress)
	sum.Conversations, sum.Failed = rep.Sessions, rep.Failed
	if err != nil {
		return sum, fmt.Errorf("restore: the files are in place but the index is not; run `ireneo reindex`: %w", err)
	}
	if opts.Current != nil {
		sum.SettingsChanges = SettingsDiff(*opts.Current, a.Settings)
	}
	if opts.SaveSettings != nil {
		if err := opts.SaveSettings(a.Settings); err != nil {
			return sum, fmt.Errorf("restore: conversations restored, settings not: %w", err)
		}
		sum.Settings = true
	}
	if derr != nil {
		return sum, fmt.Errorf("restore: conversations restored: %w", derr)
	}
	return sum, nil
}

// checkEmpty refuses a memory that holds conversations, indexed or not.
func checkEmpty(ctx context.Context, m *memory.Memory) error {
	_, n, err := conversations.List(ctx, m, conversations.Query{Limit: 1})
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	files, err := srcFiles(m.Dir())
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if n > 0 || len(files) > 0 {
		return fmt.Errorf("restore into %s: %w (%d conversations, %d files); restore into an empty folder, or merge the backup in",
			m.Dir(), ErrNotEmpty, n, len(files))
	}
	return nil
}

// extract writes one checked entry to dst and syncs it.
func (a *Archive) extract(entry, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	rc, err := a.open(entry)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		rc.Close()
		return fmt.Errorf("restore: %w", err)
	}
	_, err = io.Copy(f, rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, ErrDamaged) {
		err = fmt.Errorf("restore: %s: %w", entry, err)
	}
	return err
}

// merge imports the archive's conversations through one import batch, the
// way `ireneo import` does, then adds its tags, stars and tombstones.
func (a *Archive) merge(ctx context.Context, m *memory.Memory, opts RestoreOptions, sum RestoreSummary) (RestoreSummary, error) {
	b, err := m.NewBatch(memory.IngestOptions{Redact: opts.Redact})
	if err != nil {
		return sum, fmt.Errorf("merge: %w", err)
	}
	for i, p := range a.src {
		rc, err := a.open(p)
		if err != nil {
			b.Discard()
			return sum, err
		}
		ss, _, rerr := funes.ReadSessions(rc)
		_, err = io.Copy(io.Discard, rc)
		if cerr := rc.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = rerr
		}
		for _, s := range ss {
			if err == nil {
				err = b.Add(ctx, s)
			}
		}
		if err != nil {
			b.Discard()
			if errors.Is(err, ErrDamaged) || errors.Is(err, context.Canceled) {
				return sum, err
			}
			return sum, fmt.Errorf("merge: %s: %w", p, err)
		}
		if opts.Progress != nil {
			opts.Progress(PhaseExtract, i+1, len(a.src))
		}
	}
	var progress func(done, total int)
	if opts.Progress != nil {
		progress = func(done, total int) { opts.Progress(PhaseMerge, done, total) }
	}
	rep, err := b.Commit(ctx, progress)
	if err != nil {
		return sum, fmt.Errorf("merge: %w", err)
	}
	sum.Import = &rep
	if len(rep.Redacted) > 0 {
		memscrub.RecordHistory(context.WithoutCancel(ctx), m, rep.Redacted)
	}
	sum.Files = len(a.src)
	sum.Conversations = rep.New + rep.Updated
	if sum.Conversations > 0 && m.Grown(ctx) {
		// As after an import; a pack that fails leaves the index as the
		// merge made it, and a later import packs it.
		m.Pack(ctx)
	}
	if sum.Catalog, err = catalog.Import(ctx, m, a.Catalog, true); err != nil {
		return sum, fmt.Errorf("merge: conversations imported, catalog not: %w", err)
	}
	if opts.Current != nil {
		sum.SettingsChanges = SettingsDiff(*opts.Current, a.Settings)
	}
	return sum, nil
}

// withoutRefs is the catalog less the tags, stars and sightings of the
// conversations left out, so not even their ids are written.
func withoutRefs(c catalog.Snapshot, left map[catalog.Ref]bool) catalog.Snapshot {
	if len(left) == 0 {
		return c
	}
	out := c
	out.Tags, out.Stars, out.Known = nil, nil, nil
	for _, t := range c.Tags {
		if !left[t.Ref] {
			out.Tags = append(out.Tags, t)
		}
	}
	for _, s := range c.Stars {
		if !left[s] {
			out.Stars = append(out.Stars, s)
		}
	}
	for _, k := range c.Known {
		if !left[k.Ref] {
			out.Known = append(out.Known, k)
		}
	}
	return out
}

// SettingChange is one setting an archive holds differently from the
// settings in use.
type SettingChange struct {
	Name string `json:"name"` // its key in settings.json
	From string `json:"from"` // in use, as JSON
	To   string `json:"to"`   // the archive's, as JSON
}

func (c SettingChange) String() string { return c.Name + " " + c.From + " → " + c.To }

// SettingsDiff lists the settings to holds differently from from, by
// their keys in settings.json, in the file's order.
func SettingsDiff(from, to settings.Settings) []SettingChange {
	a, b := settingFields(from), settingFields(to)
	var out []SettingChange
	for i, f := range a {
		if f[1] != b[i][1] {
			out = append(out, SettingChange{Name: f[0], From: f[1], To: b[i][1]})
		}
	}
	return out
}

// settingFields is each field of s as key and JSON value, in order.
func settingFields(s settings.Settings) [][2]string {
	v := reflect.ValueOf(s)
	var out [][2]string
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		js, _ := json.Marshal(v.Field(i).Interface())
		out = append(out, [2]string{name, string(js)})
	}
	return out
}
