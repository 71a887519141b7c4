package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ireneo-app/ireneo/capture"
	"github.com/ireneo-app/ireneo/importers"
)

func init() { register(newHookCmd) }

// The hook commands are what `connect --hooks` installs. They exit 0 and
// print nothing: a harness shows a hook's output to the person, and a
// failing hook may hold up their session. What goes wrong is in the log
// `ireneo status` shows, or its fallback outside the memory folder; only
// when neither can be written (a full disk) does a hook exit 1 with the
// problem on stderr, which Claude Code shows without stopping.

func newHookCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "hook",
		Short: "Import the session a harness's hook names: Claude Code, Codex, Gemini CLI, Cursor, Copilot CLI, opencode (installed by `connect --hooks`)",
		Long: "Run by Claude Code's SessionEnd, PreCompact and Stop hooks (`hook claude-code`, the hook's JSON on\n" +
			"stdin) and by Codex's notify program (`hook codex`, its JSON as the last argument), as\n" +
			"`ireneo connect claude-code --write --hooks` and `ireneo connect codex --write --hooks` install\n" +
			"them; `hook gemini-cli`, `hook cursor` and `hook copilot-cli` are those harnesses' hooks and\n" +
			"`hook opencode` Ireneo's opencode plugin's, each with its JSON on stdin. The import runs in the background; the hook returns at once, prints nothing and always\n" +
			"exits 0. Problems go to " + filepath.Join("MEMORY", capture.DirName, capture.LogName) + ", which `ireneo status` shows.",
	}
	c.AddCommand(newHookClaudeCodeCmd(g), newHookCodexCmd(g), newHookWorkCmd(g), newHookRunCmd(g))
	c.AddCommand(newHookSourceCmds(g)...)
	return c
}

func newHookClaudeCodeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "claude-code",
		Short: "Claude Code hook: import the session named by the hook input on stdin",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			e, err := capture.ParseClaudeCode(g.stdin)
			if err != nil {
				return g.hookLog("claude-code hook "+errorWord+"%v (nothing imported)", err)
			}
			return g.startHookImport(c.Context(), e)
		},
	}
}

func newHookCodexCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "codex [-- PROGRAM ARGS...] JSON",
		Short: "Codex notify program: import the thread the JSON names, then run the notify program it replaced",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return g.hookLog("codex notify " + errorWord + "no JSON argument (nothing imported)")
			}
			payload := args[len(args)-1]
			var lost error
			if chain := args[:len(args)-1]; len(chain) > 0 {
				lost = g.runChained(chain, payload)
			}
			e, err := capture.ParseCodex(payload)
			if err != nil {
				return errors.Join(lost, g.hookLog("codex notify "+errorWord+"%v (nothing imported)", err))
			}
			return errors.Join(lost, g.startHookImport(c.Context(), e))
		},
	}
}

// envHookThrottle, a Go duration, replaces capture.Throttle (for tests).
const envHookThrottle = "IRENEO_HOOK_THROTTLE"

// errorWord marks a log line as a failure.
const errorWord = capture.ErrorMark

// hookLog writes one line to the memory's hook log, or its fallback. When
// neither can be written (a full disk) the line is the error the hook
// command returns: it exits 1 with it on stderr, which Claude Code shows
// the person and carries on past. A detached worker has no stderr, and
// drops it.
func (g *globals) hookLog(format string, args ...any) error {
	if err := capture.Log(g.cfg.MemoryDir, time.Now(), format, args...); err != nil {
		return fmt.Errorf("%s (%v)", fmt.Sprintf(format, args...), err)
	}
	return nil
}

// runChained starts the notify program Ireneo's hook replaced, with the
// same JSON, and does not wait for it.
func (g *globals) runChained(chain []string, payload string) error {
	cmd := exec.Command(chain[0], append(chain[1:], payload)...)
	if err := cmd.Start(); err != nil {
		return g.hookLog("codex notify "+errorWord+"the earlier notify program %s did not start: %v", chain[0], err)
	}
	cmd.Process.Release()
	return nil
}

// startHookImport queues the session's import and, unless a worker is
// alive to take it in, hands the queue to a detached `ireneo hook work`
// holding a free worker slot, so the hook returns at once and at most
// capture.MaxWorkers imports run. A fire whose session is queued already,
// or a throttled one, starts nothing while a worker is alive. Where
// processes cannot be detached it works here.
func (g *globals) startHookImport(ctx context.Context, e capture.Event) error {
	queued, err := capture.Enqueue(g.cfg.MemoryDir, e)
	if err != nil {
		return g.hookLog("%s %s session %s "+errorWord+"%v (nothing imported)", e.Harness, e.Name, e.SessionID, err)
	}
	// A throttled fire waits for its session's window anyway, and any live
	// worker takes it in then; one whose session is queued already joins
	// that entry. Only an unthrottled fire (a session ending) asks for
	// another worker beside the live ones.
	if (!queued || e.Throttled()) && capture.AnyWorker(g.cfg.MemoryDir) {
		return nil
	}
	slot, err := capture.TakeSlot(g.cfg.MemoryDir)
	if err != nil {
		return g.hookLog("%s %s session %s "+errorWord+"cannot start the import: %v", e.Harness, e.Name, e.SessionID, err)
	}
	if slot == nil {
		return nil // every worker is busy; one of them takes the queue in
	}
	exe, err := os.Executable()
	if err != nil || !capture.CanDetach || slot.File() == nil {
		g.hookWork(ctx, slot)
		return nil
	}
	defer slot.Release() // the child holds the lock now, through its copy
	cmd := exec.Command(exe, "--memory", g.cfg.MemoryDir, "hook", "work", "--slot", strconv.Itoa(slot.N()))
	cmd.ExtraFiles = []*os.File{slot.File()} // fd 3
	capture.Detach(cmd)
	if err := cmd.Start(); err != nil {
		return g.hookLog("%s %s session %s "+errorWord+"cannot start the import: %v", e.Harness, e.Name, e.SessionID, err)
	}
	cmd.Process.Release()
	return nil
}

// hookWork imports the queued sessions, holding slot, and logs each.
func (g *globals) hookWork(ctx context.Context, slot *capture.Slot) {
	o := capture.Options{MemoryDir: g.cfg.MemoryDir, CodexHome: g.cfg.CodexHome}
	// Tests space throttled imports seconds apart, not a minute.
	if d, err := time.ParseDuration(os.Getenv(envHookThrottle)); err == nil && d > 0 {
		o.Throttle = d
	}
	if importRedactor != nil {
		red, err := importRedactor(g)
		if err != nil {
			slot.Release()
			g.hookLog("hook "+errorWord+"%v (nothing imported)", err)
			return
		}
		o.Redact = red
	}
	capture.Work(ctx, o, slot, func(e capture.Event, sum importers.Summary, err error) {
		switch {
		case err != nil && e.SessionID == "":
			g.hookLog("hook "+errorWord+"%v", err)
		case err != nil:
			g.hookLog("%s %s session %s "+errorWord+"%v", e.Harness, e.Name, e.SessionID, err)
		default:
			g.hookLog("%s %s session %s: %s", e.Harness, e.Name, e.SessionID, summaryLine(sum))
		}
	})
}

func summaryLine(s importers.Summary) string {
	parts := []string{fmt.Sprintf("%d new", s.New), fmt.Sprintf("%d updated", s.Updated), fmt.Sprintf("%d unchanged", s.Unchanged)}
	if s.Forgotten > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped as forgotten", s.Forgotten))
	}
	if s.UnreadableLines > 0 {
		parts = append(parts, plural(s.UnreadableLines, "line", "lines")+" could not be read")
	}
	return "imported " + strings.Join(parts, ", ")
}

// newHookWorkCmd is the detached worker a hook starts, with its slot's
// lock file as fd 3.
func newHookWorkCmd(g *globals) *cobra.Command {
	var n int
	c := &cobra.Command{
		Use:    "work",
		Short:  "Import the queued hook sessions, as a hook's background process does",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := capture.Background(); err != nil {
				g.hookLog("hook work: cannot lower its priority: %v (importing anyway)", err)
			}
			slot := capture.AdoptSlot(g.cfg.MemoryDir, n, os.NewFile(3, "slot"))
			if slot == nil {
				var err error
				if slot, err = capture.TakeSlot(g.cfg.MemoryDir); err != nil || slot == nil {
					return nil // every slot is held: their workers take the queue in
				}
			}
			g.hookWork(c.Context(), slot)
			return nil
		},
	}
	c.Flags().IntVar(&n, "slot", -1, "the worker slot whose lock is fd 3")
	return c
}

// newHookRunCmd imports one session: what hooks of earlier versions
// started detached. It queues the session and works if a slot is free.
func newHookRunCmd(g *globals) *cobra.Command {
	var e capture.Event
	c := &cobra.Command{
		Use:    "run",
		Short:  "Import one session now, as a hook's background process does",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if _, err := capture.Enqueue(g.cfg.MemoryDir, e); err != nil {
				g.hookLog("hook run "+errorWord+"%v (nothing imported)", err)
				return nil
			}
			if slot, err := capture.TakeSlot(g.cfg.MemoryDir); err == nil && slot != nil {
				g.hookWork(c.Context(), slot)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&e.Harness, "harness", "", "claude-code or codex")
	f.StringVar(&e.Name, "event", "", "the hook event")
	f.StringVar(&e.SessionID, "session", "", "the session id")
	f.StringVar(&e.Transcript, "transcript", "", "the session's file (found from the id for Codex when empty)")
	return c
}
