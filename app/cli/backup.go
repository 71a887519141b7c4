package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/backup"
	"github.com/ireneo-app/ireneo/settings"
)

func init() {
	register(newBackupCmd)
	register(newRestoreCmd)
}

func newBackupCmd(g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "backup FILE",
		Short: "Write the memory, its catalog and the settings to one archive",
		Long: `Write one archive (a zip) of the memory: the conversations under src/,
verbatim; the catalog (project tags, stars, tombstones, the scrub allow-list
and history); and the settings, with a manifest of every file's sha256.
Token secrets are not included: they stay in the OS keyring. Nor are the
audit log and the search index (a restore rebuilds it), or any forgotten
conversation. FILE is written atomically: it is the old file or the whole
new archive, never part of one.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			// Backing up defaults in place of unreadable settings would lose them.
			if g.cfg.SettingsErr != nil {
				return g.cfg.SettingsErr
			}
			m, err := g.open()
			if err != nil {
				return err
			}
			defer m.Close()
			line := newProgressLine(g.stderr)
			opts := backup.WriteOptions{AppVersion: g.cfg.Version, Settings: g.cfg.Settings, Progress: func(done, total int) {
				line.text(fmt.Sprintf("backing up %d of %d files", done, total))
			}}
			sum, err := backup.Write(c.Context(), m, args[0], opts)
			line.clear()
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(g.stdout, sum)
			}
			printBackupSummary(g.stdout, sum)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return c
}

func printBackupSummary(w io.Writer, s backup.WriteSummary) {
	fmt.Fprintf(w, "backed up %s (%s, %.1f MB) to %s\n", plural(s.Conversations, "conversation", "conversations"),
		plural(s.Files, "file", "files"), float64(s.Bytes)/1e6, s.Path)
	fmt.Fprintf(w, "catalog: %s, %s, %s, %s; settings included\n", plural(s.Tags, "tag", "tags"), plural(s.Stars, "star", "stars"),
		plural(s.Tombstones, "tombstone", "tombstones"), plural(s.ScrubAllow, "allow-list entry", "allow-list entries"))
	for _, sk := range s.Skipped {
		fmt.Fprintf(w, "skipped %s\n", sk)
	}
	fmt.Fprintf(w, "not included: %s\n", strings.Join(s.NotIncluded, "; "))
}

func newRestoreCmd(g *globals) *cobra.Command {
	var merge, asJSON, noScrub, withSettings, settingsOnly bool
	c := &cobra.Command{
		Use:   "restore [--merge] [--settings] FILE",
		Short: "Restore a backup into an empty memory, or merge it into this one",
		Long: `Restore a backup made by ` + "`ireneo backup`" + `. Every file of the archive is
checked against its sha256 first; a damaged or truncated archive is refused
and nothing changes. Into an empty memory, restore writes the conversations
and the catalog and rebuilds the index. A memory that already holds
conversations is refused unless --merge, which imports the archive's
conversations the way ` + "`ireneo import`" + ` does (forgotten stays forgotten,
nothing is duplicated) and adds its tags and stars.

The settings file is every memory's (scrub on import, the server address,
the token store, the watched folders), so restore leaves it alone and lists
the settings the backup holds differently; --settings takes them too, and
--settings-only takes only them, touching no memory.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			// Check the whole archive before the memory is even opened.
			a, err := backup.Open(ctx, args[0])
			if err != nil {
				if errors.Is(err, backup.ErrDamaged) {
					return fmt.Errorf("%w; nothing was changed", err)
				}
				return err
			}
			defer a.Close()
			save := func(s settings.Settings) error { return settings.SaveTo(g.cfg.Dir, s) }
			if settingsOnly {
				return g.restoreSettingsOnly(a, save, asJSON)
			}
			m, err := g.open()
			if err != nil {
				return err
			}
			defer m.Close()
			opts := backup.RestoreOptions{Merge: merge, Current: &g.cfg.Settings}
			if withSettings {
				opts.SaveSettings = save
			}
			if merge && importRedactor != nil && !noScrub {
				if opts.Redact, err = importRedactor(g); err != nil {
					return err
				}
			}
			line := newProgressLine(g.stderr)
			opts.Progress = func(phase string, done, total int) {
				verb := map[string]string{backup.PhaseExtract: "checking and unpacking", backup.PhaseIndex: "indexing", backup.PhaseMerge: "importing"}[phase]
				line.text(fmt.Sprintf("%s %d of %d", verb, done, total))
			}
			sum, err := a.Restore(ctx, m, opts)
			line.clear()
			if err == nil && merge && withSettings {
				// A merge keeps the settings; asked for, they are taken after it.
				if err = save(a.Settings); err != nil {
					err = fmt.Errorf("merge: conversations merged, settings not: %w", err)
				}
				sum.Settings = err == nil
			}
			if errors.Is(err, backup.ErrNotEmpty) {
				return usagef("%v (--merge)", err)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(g.stdout, sum)
			}
			printRestoreSummary(g.stdout, sum)
			if len(sum.Failed) > 0 {
				return fmt.Errorf("restore: %s could not be indexed", plural(len(sum.Failed), "file", "files"))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&merge, "merge", false, "import the backup into a memory that already has conversations")
	c.Flags().BoolVar(&noScrub, "no-scrub", false, "merge without redacting secrets")
	c.Flags().BoolVar(&withSettings, "settings", false, "also replace the settings (every memory's) with the backup's")
	c.Flags().BoolVar(&settingsOnly, "settings-only", false, "replace only the settings with the backup's; no memory is touched")
	c.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return c
}

func printRestoreSummary(w io.Writer, s backup.RestoreSummary) {
	if s.Merged {
		r := s.Import
		fmt.Fprintf(w, "merged %s: %d new, %d updated, %d unchanged; %d skipped as forgotten; %s kept over an older copy\n",
			s.Archive, r.New, r.Updated, r.Unchanged, r.Forgotten, plural(r.Older, "newer conversation", "newer conversations"))
	} else {
		fmt.Fprintf(w, "restored %s from %s and rebuilt the index\n", plural(s.Conversations, "conversation", "conversations"), s.Archive)
		if s.Forgotten > 0 {
			fmt.Fprintf(w, "left out %s this memory forgot\n", plural(s.Forgotten, "conversation", "conversations"))
		}
	}
	k := s.Catalog
	fmt.Fprintf(w, "catalog: added %s, %s, %s, %s\n", plural(k.Tags, "tag", "tags"), plural(k.Stars, "star", "stars"),
		plural(k.Tombstones, "tombstone", "tombstones"), plural(k.ScrubAllow, "allow-list entry", "allow-list entries"))
	if k.ScrubAllowSkipped > 0 {
		fmt.Fprintf(w, "%s not added: this memory's allow-list uses another key\n", plural(k.ScrubAllowSkipped, "allow-list entry", "allow-list entries"))
	}
	printSettingsChanges(w, s.Settings, s.SettingsChanges)
	for _, f := range s.Failed {
		fmt.Fprintln(w, "could not index", f)
	}
	fmt.Fprintln(w, "token secrets were not in the backup: make new tokens with `ireneo token create` and reconnect your agents")
}

// text shows a plain progress message on the status line.
func (p *progressLine) text(msg string) {
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "\r\033[K%s", msg)
	p.drawn = true
}

// printSettingsChanges says what a restore did to the settings: what it
// changed, or, kept, how the backup's differ.
func printSettingsChanges(w io.Writer, restored bool, changes []backup.SettingChange) {
	list := make([]string, len(changes))
	for i, c := range changes {
		list[i] = c.String()
	}
	switch {
	case restored && len(changes) == 0:
		fmt.Fprintln(w, "settings restored: the backup's are the ones in use")
	case restored:
		fmt.Fprintf(w, "settings restored, for every memory: %s\n", strings.Join(list, "; "))
	case len(changes) == 0:
		fmt.Fprintln(w, "settings kept as they were (the backup's are the same)")
	default:
		fmt.Fprintf(w, "settings kept as they were; the backup's differ (yours → the backup's): %s; `ireneo restore --settings-only FILE` takes them\n", strings.Join(list, "; "))
	}
}

// restoreSettingsOnly replaces the settings with the archive's.
func (g *globals) restoreSettingsOnly(a *backup.Archive, save func(settings.Settings) error, asJSON bool) error {
	changes := backup.SettingsDiff(g.cfg.Settings, a.Settings)
	if err := save(a.Settings); err != nil {
		return fmt.Errorf("restore the settings: %w", err)
	}
	if asJSON {
		return printJSON(g.stdout, struct {
			Archive  string                 `json:"archive"`
			Settings bool                   `json:"settings_restored"`
			Changes  []backup.SettingChange `json:"settings_changes"`
		}{a.Path, true, changes})
	}
	printSettingsChanges(g.stdout, true, changes)
	return nil
}
