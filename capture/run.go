package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
)

// Throttle is how far apart a throttled event's imports of one session
// are: a queued one waits until a throttle after the last one began.
const Throttle = time.Minute

// ImportTimeout bounds one hook import, waits for locks included. It runs
// detached, so it holds up no one; it only keeps a stuck import from
// lingering.
const ImportTimeout = 5 * time.Minute

// Options are what an import needs besides the event.
type Options struct {
	MemoryDir string
	CodexHome string // where Codex keeps its sessions; "" means ~/.codex
	Redact    func(*funes.Session) map[string]int
	Throttle  time.Duration // 0 means Throttle
	Now       func() time.Time
	// TranscriptWait bounds the wait for a transcript the harness writes
	// after its hook (pendingTranscript); 0 means TranscriptWait.
	TranscriptWait time.Duration
}

// TranscriptWait is how long an import waits for a transcript that its
// harness writes only after the hook fired, and for the harness to let go
// of the session.
const TranscriptWait = 2 * time.Minute

// waitTranscript waits until a pending transcript exists and its harness
// has let the session go (Copilot CLI holds inuse.<pid>.lock in the
// session's folder while it runs), or the bound passes.
func waitTranscript(ctx context.Context, e Event, bound time.Duration) error {
	if !pendingTranscript(e.Harness, e.Transcript) && !sessionInUse(e) {
		return nil
	}
	if bound == 0 {
		bound = TranscriptWait
	}
	if e.Throttled() {
		// After a reply, mid-session: the session's end comes again.
		bound = min(bound, 10*time.Second)
	}
	deadline := time.Now().Add(bound)
	for pendingTranscript(e.Harness, e.Transcript) || sessionInUse(e) {
		if time.Now().After(deadline) {
			if pendingTranscript(e.Harness, e.Transcript) {
				return fmt.Errorf("%s: not written %s after the hook fired", e.Transcript, bound)
			}
			return nil // still in use: import what is there
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

// sessionInUse reports a Copilot CLI session whose process still holds it
// at the session's end (it writes events.jsonl last).
func sessionInUse(e Event) bool {
	if e.Harness != CopilotCLI || e.Name != "sessionEnd" || filepath.Base(e.Transcript) != "events.jsonl" {
		return false
	}
	locks, _ := filepath.Glob(filepath.Join(filepath.Dir(e.Transcript), "inuse.*.lock"))
	return len(locks) > 0
}

// importEvent imports the session e names into the memory, one import of
// a session at a time (a lock file per session). It returns what the
// import did; the worker's caller logs it.
func importEvent(ctx context.Context, e Event, o Options) (importers.Summary, error) {
	if err := checkEvent(e); err != nil {
		return importers.Summary{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, ImportTimeout)
	defer cancel()
	// Never make a memory here: a hook left behind by a moved memory would
	// start an empty one in silence.
	if _, err := os.Stat(filepath.Join(o.MemoryDir, memory.DBName)); err != nil {
		return importers.Summary{}, fmt.Errorf("no memory at %s (looked for %s); run `ireneo connect %s --write --hooks` again from the memory you use", o.MemoryDir, memory.DBName, e.Harness)
	}
	if e.Harness == Codex && e.Transcript == "" {
		home := o.CodexHome
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return importers.Summary{}, fmt.Errorf("find Codex's sessions: %w", err)
			}
			home = filepath.Join(h, ".codex")
		}
		p, err := FindCodexRollout(home, e.SessionID)
		if err != nil {
			return importers.Summary{}, err
		}
		e.Transcript = p
	}
	if err := waitTranscript(ctx, e, o.TranscriptWait); err != nil {
		return importers.Summary{}, err
	}
	unlock, err := lockSession(ctx, o.MemoryDir, e)
	if err != nil {
		return importers.Summary{}, err
	}
	defer unlock()
	// Another process's import holds SQLite's write lock for a while; the
	// busy timeout waits 10 s, and this waits for it a few times more.
	for wait := time.Second; ; wait *= 2 {
		sum, err := importOnce(ctx, e, o)
		if err == nil || !busy(err) || wait > 16*time.Second {
			return sum, err
		}
		select {
		case <-ctx.Done():
			return sum, err
		case <-time.After(wait):
		}
	}
}

func importOnce(ctx context.Context, e Event, o Options) (importers.Summary, error) {
	m, err := memory.Open(o.MemoryDir)
	if err != nil {
		return importers.Summary{}, err
	}
	defer m.Close()
	started := o.Now()
	sum, err := importers.Run(ctx, m, append([]string{e.Transcript}, alsoImport(e)...), importers.Options{Redact: o.Redact})
	if err == nil && sum.Failed > 0 && len(sum.Failures) > 0 {
		err = errors.New(sum.Failures[0].Path + ": " + sum.Failures[0].Reason)
	}
	if err == nil {
		markImported(o.MemoryDir, e, started)
	}
	return sum, err
}

// busy reports SQLite's "database is locked", however it is wrapped.
func busy(err error) bool {
	s := err.Error()
	return strings.Contains(s, "database is locked") || strings.Contains(s, "SQLITE_BUSY")
}

// lockSession takes the session's lock file, waiting while another import
// of it holds the lock.
func lockSession(ctx context.Context, memDir string, e Event) (func(), error) {
	d, err := stateDir(memDir)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(d, e.Harness+"-"+e.SessionID+".lock")
	for {
		release, err := tryLock(p)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", p, err)
		}
		if release != nil {
			return release, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("another import of session %s did not finish in time: %w", e.SessionID, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
