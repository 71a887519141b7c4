package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/app/scrubber"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/redact"
	memsync "github.com/ireneo-app/ireneo/sync"
)

// `ireneo sync`: one memory on every machine through a folder a file-sync
// engine keeps in step (package sync).

func init() { register(newSyncCmd) }

// attachSync makes an opened memory journal the person's choices when it
// syncs (open in root.go calls it for every command).
func (g *globals) attachSync(m *memory.Memory, err error) (*memory.Memory, error) {
	if err == nil {
		memsync.Attach(m, g.secretFinder)
	}
	return m, err
}

// secretFinder is the person's scrubber, or nil when their patterns do not
// compile (a project name is then journaled as it is).
func (g *globals) secretFinder() redact.SecretFinder {
	sc, err := scrubber.For(g.cfg.Settings.UserPatterns)
	if err != nil {
		return nil
	}
	return sc
}

// syncOptions are the engine's options for this configuration.
func (g *globals) syncOptions() (memsync.Options, error) {
	o := memsync.Options{Finder: g.secretFinder()}
	if importRedactor != nil {
		redact, err := importRedactor(g)
		if err != nil {
			return o, err
		}
		o.Redact = redact
	}
	return o, nil
}

func newSyncCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "sync",
		Short: "One memory on all your machines, through a folder Syncthing (or Nextcloud, Dropbox …) keeps in step",
		Long: `Share this memory with your other machines through a folder that a file-sync
engine keeps in step. Each machine writes only its own subfolder there: its
conversations and a journal of your choices (tags, stars, project renames,
forget, scrub). Every machine imports the others' conversations into its own
memory and applies every journal in one order, so all of them agree; a forget
or a scrub on one machine reaches the copies on all of them.

Never shared: the search index and database, token secrets and their hashes,
the audit log and settings.`,
	}
	c.AddCommand(newSyncSetupCmd(g), newSyncStatusCmd(g), newSyncLeaveCmd(g), newSyncRunCmd(g), newSyncNowCmd(g))
	return c
}

func newSyncSetupCmd(g *globals) *cobra.Command {
	var name, stHome string
	var useSyncthing bool
	c := &cobra.Command{
		Use:   "setup [--syncthing] [--name NAME] DIR",
		Short: "Sync this memory through the folder DIR",
		Long: `Make DIR this memory's sync folder and bring it in step once: this memory's
conversations and choices go in, the other machines' come out.

With --syncthing, also add DIR to the Syncthing running here (found through its
REST API, with the key in its config.xml) and share it with every device you
paired in Syncthing. Run the same on each machine; pairing stays in Syncthing.`,
		Args: cobra.ExactArgs(1),
		RunE: g.withMemory(func(c *cobra.Command, args []string, m *memory.Memory) error {
			cfg, err := memsync.SetUp(m.Dir(), args[0], name)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "sync folder %s; this machine is %q (%s)\n", cfg.Folder, cfg.Name, cfg.Machine)
			if useSyncthing {
				st, err := memsync.FindSyncthing(stHome)
				if err != nil {
					return err
				}
				rep, err := st.ShareFolder(c.Context(), cfg.Folder)
				if err != nil {
					return err
				}
				verb := "has"
				if rep.Created {
					verb = "now has"
				}
				fmt.Fprintf(g.stdout, "Syncthing (%s) %s folder %q at %s", st.URL, verb, rep.FolderID, cfg.Folder)
				if len(rep.SharedTo) == 0 {
					fmt.Fprintln(g.stdout, ", shared with no device yet: pair your other machines in Syncthing, then run this again")
				} else {
					fmt.Fprintf(g.stdout, ", shared with %s\n", strings.Join(rep.SharedTo, ", "))
				}
			}
			return g.syncOnce(c.Context(), m)
		}),
	}
	c.Flags().StringVar(&name, "name", "", "what your other machines call this one (default: the host name)")
	c.Flags().BoolVar(&useSyncthing, "syncthing", false, "add the folder to the local Syncthing and share it with its paired devices")
	c.Flags().StringVar(&stHome, "syncthing-home", "", "Syncthing's configuration folder (default: where Syncthing keeps it)")
	return c
}

// syncOnce runs one pass and prints what it did.
func (g *globals) syncOnce(ctx context.Context, m *memory.Memory) error {
	opts, err := g.syncOptions()
	if err != nil {
		return err
	}
	e, err := memsync.Open(m, opts)
	if errors.Is(err, memsync.ErrBusy) {
		fmt.Fprintln(g.stdout, "sync runs in another Ireneo here (the tray app, `serve` or `sync run`); it brings the folder in step")
		return nil
	}
	if err != nil {
		return err
	}
	defer e.Close()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := e.Pass(ctx)
	if ctx.Err() != nil {
		return errInterrupted
	}
	fmt.Fprintln(g.stdout, reportLine(rep))
	return err
}

func reportLine(r memsync.Report) string {
	parts := []string{
		plural(r.Imported, "conversation", "conversations") + " in",
		plural(r.Exported, "conversation", "conversations") + " out",
	}
	if r.Applied > 0 {
		parts = append(parts, plural(r.Applied, "conversation's tags or star", "conversations' tags or stars")+" changed")
	}
	if r.Journaled > 0 {
		parts = append(parts, plural(r.Journaled, "choice", "choices")+" journaled")
	}
	if r.Forgotten > 0 {
		parts = append(parts, plural(r.Forgotten, "conversation", "conversations")+" forgotten")
	}
	if r.Erased > 0 {
		parts = append(parts, plural(r.Erased, "file", "files")+" erased from the folder")
	}
	if r.Redacted > 0 {
		parts = append(parts, plural(r.Redacted, "copy", "copies")+" redacted")
	}
	if r.Unreadable > 0 {
		parts = append(parts, plural(r.Unreadable, "file", "files")+" unreadable")
	}
	return "synced: " + strings.Join(parts, ", ")
}

func newSyncStatusCmd(g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status",
		Short: "The machines seen, when each last changed, what is waiting, conflicts resolved",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			st, err := memsync.ReadStatus(g.cfg.MemoryDir)
			if errors.Is(err, memsync.ErrNotSetUp) && !asJSON {
				fmt.Fprintln(g.stdout, "sync: not set up (ireneo sync setup DIR)")
				return nil
			}
			if err != nil && !errors.Is(err, memsync.ErrNotSetUp) {
				return err
			}
			if asJSON {
				return printJSON(g.stdout, st)
			}
			printSyncStatus(g.stdout, st)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

// syncStatusOf is the memory's sync status for `ireneo status`: nil when
// it syncs with nothing.
func syncStatusOf(memDir string) *memsync.Status {
	st, err := memsync.ReadStatus(memDir)
	if err != nil && st.Folder == "" {
		return nil
	}
	return &st
}

// printSyncStatus writes the status as `sync status` and `status` show it.
func printSyncStatus(w io.Writer, st memsync.Status) {
	fmt.Fprintf(w, "sync folder:   %s\n", st.Folder)
	switch {
	case st.LastPass.IsZero():
		fmt.Fprintln(w, "last pass:     never (the tray app, `ireneo serve` or `ireneo sync run` keeps it in step)")
	default:
		fmt.Fprintf(w, "last pass:     %s\n", st.LastPass.Format("2006-01-02 15:04:05 UTC"))
	}
	if st.LastError != "" {
		fmt.Fprintf(w, "last error:    %s\n", st.LastError)
	}
	wt := st.Waiting
	if wt.Up() {
		fmt.Fprintln(w, "waiting:       nothing")
	} else {
		fmt.Fprintf(w, "waiting:       %d file(s) arriving, %d not read yet, %d choice(s) not yet in the journal\n", wt.InFlight, wt.Unread, wt.Outbox)
	}
	if wt.Unreadable > 0 {
		fmt.Fprintf(w, "unreadable:    %s, left as they are:\n", plural(wt.Unreadable, "file", "files"))
		for _, p := range wt.Problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	fmt.Fprintf(w, "resolved:      %s, %s\n",
		plural(st.ConflictsResolved, "conflicting choice", "conflicting choices"),
		plural(st.CopiesMerged, "conversation in several copies", "conversations in several copies"))
	fmt.Fprintf(w, "machines:      %d\n", len(st.Machines))
	for _, m := range st.Machines {
		this := ""
		if m.This {
			this = " (this one)"
		}
		last := "never"
		if !m.LastChange.IsZero() {
			last = m.LastChange.Format("2006-01-02 15:04 UTC")
		}
		fmt.Fprintf(w, "  %-20s %s, %s, last change %s%s\n", m.Name, plural(m.Conversations, "conversation", "conversations"),
			plural(m.Entries, "choice", "choices"), last, this)
	}
}

func newSyncLeaveCmd(g *globals) *cobra.Command {
	var removeFiles bool
	c := &cobra.Command{
		Use:   "leave [--remove-files]",
		Short: "Stop syncing this memory; it keeps everything it has",
		Long: `Stop syncing this memory. It keeps every conversation and choice it has. With
--remove-files this machine's subfolder is removed from the sync folder too;
the other machines keep what they imported. A folder added to Syncthing stays
there: remove it in Syncthing if you no longer want it.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			cfg, err := memsync.Leave(g.cfg.MemoryDir, removeFiles)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "this memory no longer syncs through %s", cfg.Folder)
			if removeFiles {
				fmt.Fprint(g.stdout, "; this machine's subfolder is removed")
			}
			fmt.Fprintln(g.stdout)
			return nil
		},
	}
	c.Flags().BoolVar(&removeFiles, "remove-files", false, "remove this machine's subfolder from the sync folder")
	return c
}

func newSyncRunCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "run",
		Short: "Keep the memory and the sync folder in step until stopped (for machines without the tray app)",
		Args:  cobra.NoArgs,
		RunE: g.withMemory(func(c *cobra.Command, args []string, m *memory.Memory) error {
			opts, err := g.syncOptions()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts.OnPass = func(r memsync.Report, err error) {
				stamp := time.Now().UTC().Format("15:04:05")
				if err != nil {
					fmt.Fprintf(g.stderr, "%s sync: %v\n", stamp, err)
				} else if r != (memsync.Report{}) {
					fmt.Fprintf(g.stdout, "%s %s\n", stamp, reportLine(r))
				}
			}
			return g.runSync(ctx, m, opts)
		}),
	}
}

// runSync runs the engine until ctx ends, saying once when another process
// already runs it.
func (g *globals) runSync(ctx context.Context, m *memory.Memory, opts memsync.Options) error {
	err := memsync.Run(ctx, m, opts)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// syncBeside runs the memory's sync engine beside serve, when the memory
// syncs, until ctx ends; the function it returns waits for it to stop.
func (g *globals) syncBeside(ctx context.Context, m *memory.Memory) (wait func()) {
	cfg, err := memsync.LoadConfig(m.Dir())
	if err != nil {
		return func() {}
	}
	opts, err := g.syncOptions()
	if err != nil {
		fmt.Fprintf(g.stderr, "sync: %v; not syncing\n", err)
		return func() {}
	}
	opts.OnPass = func(_ memsync.Report, err error) {
		if err != nil {
			fmt.Fprintf(g.stderr, "sync: %v\n", err)
		}
	}
	fmt.Fprintf(g.stdout, "Keeping the memory in step with the sync folder %s.\n", cfg.Folder)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := memsync.Run(ctx, m, opts); err != nil && ctx.Err() == nil {
			fmt.Fprintf(g.stderr, "sync: %v\n", err)
		}
	}()
	return func() { <-done }
}

func newSyncNowCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "now",
		Short: "Bring the memory and the sync folder in step once",
		Args:  cobra.NoArgs,
		RunE: g.withMemory(func(c *cobra.Command, args []string, m *memory.Memory) error {
			return g.syncOnce(c.Context(), m)
		}),
	}
}
