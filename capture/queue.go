package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
)

// Hook fires come in bursts (Stop and Codex's notify fire after every
// reply, a script can end a thousand sessions at once), and each import
// is a process of its own: 1,000 fires once forked 1,000 detached
// importers, 102 of them at once, 8.1 GB. So a fire only queues its
// session (one entry a session, which every later fire of it joins) and
// hands the queue to a worker, of which at most MaxWorkers run, each
// holding a slot lock; a fire whose session is queued already, when a
// worker is alive to take it in, starts nothing.

// MaxWorkers is how many hook imports run at once, across every hook of
// the memory.
const MaxWorkers = 2

const (
	queueName   = "queue"   // queued events, one file a session
	runningName = "running" // events a worker is importing: <slot>-<session file>
)

// workerWait is the longest a worker sleeps before looking at the queue
// again while every queued event waits for its throttle.
const workerWait = time.Second

// Enqueue checks e and queues it for a worker. It reports false when the
// session is queued already with an event that takes e in: any event
// behind an unthrottled one (SessionEnd, PreCompact), a throttled one
// behind any. The memory must exist: a hook left behind by a moved memory
// must not start an empty one.
func Enqueue(memDir string, e Event) (bool, error) {
	if err := checkEvent(e); err != nil {
		return false, err
	}
	if _, err := os.Stat(filepath.Join(memDir, memory.DBName)); err != nil {
		return false, fmt.Errorf("no memory at %s (looked for %s); run `ireneo connect %s --write --hooks` again from the memory you use", memDir, memory.DBName, e.Harness)
	}
	d, err := queueDir(memDir, queueName)
	if err != nil {
		return false, err
	}
	p := filepath.Join(d, entryName(e))
	if q, err := readEntry(p); err == nil && (!q.Throttled() || e.Throttled()) {
		return false, nil
	}
	data, err := json.Marshal(e)
	if err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(d, ".new-*")
	if err != nil {
		return false, fmt.Errorf("queue the import: %w", err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return false, fmt.Errorf("queue the import: %w", err)
	}
	return true, nil
}

// checkEvent accepts an event a hook or the queue may hand to an import.
func checkEvent(e Event) error {
	if !knownHarness(e.Harness) {
		return fmt.Errorf("unknown harness %q", e.Harness)
	}
	if err := checkID(e.SessionID); err != nil {
		return fmt.Errorf("session id: %w", err)
	}
	if e.Transcript == "" && e.Harness != Codex && e.Harness != ClaudeCode {
		return errors.New("transcript: missing") // the new harnesses' is found when the hook fires
	}
	if e.Transcript != "" {
		if err := checkTranscriptOf(e.Harness, e.Transcript); err != nil {
			return fmt.Errorf("transcript: %w", err)
		}
	}
	return nil
}

func entryName(e Event) string { return e.Harness + "-" + e.SessionID + ".json" }

func queueDir(memDir, name string) (string, error) {
	d := filepath.Join(memDir, DirName, name)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", fmt.Errorf("capture folder %s: %w", d, err)
	}
	return d, nil
}

func readEntry(p string) (Event, error) {
	var e Event
	data, err := os.ReadFile(p)
	if err != nil {
		return e, err
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return e, fmt.Errorf("queued event %s: %w", filepath.Base(p), err)
	}
	return e, nil
}

// Slot is one of the MaxWorkers worker slots, held by its lock file.
type Slot struct {
	n       int
	f       *os.File // the locked file, to hand to a child (unix)
	release func()
}

func slotPath(memDir string, n int) string {
	return filepath.Join(memDir, DirName, fmt.Sprintf("worker-%d.lock", n))
}

// TakeSlot takes a free worker slot without waiting; nil when every slot
// is held.
func TakeSlot(memDir string) (*Slot, error) {
	if _, err := stateDir(memDir); err != nil {
		return nil, err
	}
	for n := range MaxWorkers {
		s, err := takeSlot(memDir, n)
		if s != nil || err != nil {
			return s, err
		}
	}
	return nil, nil
}

func takeSlot(memDir string, n int) (*Slot, error) {
	if !CanDetach {
		release, err := tryLock(slotPath(memDir, n))
		if release == nil || err != nil {
			return nil, err
		}
		return &Slot{n: n, release: release}, nil
	}
	f, err := lockFile(slotPath(memDir, n))
	if f == nil || err != nil {
		return nil, err
	}
	return &Slot{n: n, f: f, release: func() { f.Close() }}, nil
}

// AnyWorker reports whether a worker holds a slot.
func AnyWorker(memDir string) bool {
	for n := range MaxWorkers {
		s, err := takeSlot(memDir, n)
		if err != nil {
			return false
		}
		if s == nil {
			return true
		}
		s.Release()
	}
	return false
}

// N is the slot's number, for the worker it is handed to.
func (s *Slot) N() int { return s.n }

// File is the open lock file, for a child to inherit (nil where processes
// are not detached).
func (s *Slot) File() *os.File { return s.f }

// Release lets the slot go.
func (s *Slot) Release() {
	if s != nil && s.release != nil {
		s.release()
		s.release = nil
	}
}

// AdoptSlot is the slot a worker's parent took for it, handed down as the
// open lock file f; nil if f does not hold slot n's lock.
func AdoptSlot(memDir string, n int, f *os.File) *Slot {
	if f == nil || n < 0 || n >= MaxWorkers || !CanDetach {
		return nil
	}
	a, errA := f.Stat()
	b, errB := os.Stat(slotPath(memDir, n))
	if errA != nil || errB != nil || !os.SameFile(a, b) || !relock(f) {
		f.Close()
		return nil
	}
	return &Slot{n: n, f: f, release: func() { f.Close() }}
}

// Done is told what each import of a worker did.
type Done func(e Event, sum importers.Summary, err error)

// Work imports the queued events, holding slot, until the queue is empty,
// and then lets the slot go. Events of a session imported less than a
// throttle ago wait for it, so a throttled session's import always takes
// in its last reply. Another worker's session is left to it.
func Work(ctx context.Context, o Options, slot *Slot, done Done) {
	defer func() { slot.Release() }()
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Throttle == 0 {
		o.Throttle = Throttle
	}
	qd, err := queueDir(o.MemoryDir, queueName)
	if err != nil {
		done(Event{}, importers.Summary{}, err)
		return
	}
	rd, err := queueDir(o.MemoryDir, runningName)
	if err != nil {
		done(Event{}, importers.Summary{}, err)
		return
	}
	requeue(qd, rd, slot.n)
	for ctx.Err() == nil {
		name, e, wait, queued := nextEntry(qd, rd, o)
		if !queued {
			// Let go, then look once more: a fire that saw this slot held
			// queued its event and left it to this worker.
			n := slot.n
			slot.Release()
			if empty(qd) {
				return
			}
			if slot, _ = takeSlot(o.MemoryDir, n); slot == nil {
				return // another worker took the slot, and the queue with it
			}
			continue
		}
		if name == "" {
			select {
			case <-ctx.Done():
			case <-time.After(min(wait, workerWait)):
			}
			continue
		}
		running := filepath.Join(rd, fmt.Sprintf("%d-%s", slot.n, name))
		if err := os.Rename(filepath.Join(qd, name), running); err != nil {
			continue // another worker claimed it
		}
		sum, err := importEvent(ctx, e, o)
		done(e, sum, err)
		os.Remove(running)
	}
}

// requeue puts back what an earlier holder of slot n was importing when
// it died, unless its session is queued again already.
func requeue(qd, rd string, n int) {
	prefix := fmt.Sprintf("%d-", n)
	ents, _ := os.ReadDir(rd)
	for _, e := range ents {
		name, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		if _, err := os.Stat(filepath.Join(qd, name)); err == nil {
			os.Remove(filepath.Join(rd, e.Name()))
			continue
		}
		os.Rename(filepath.Join(rd, e.Name()), filepath.Join(qd, name))
	}
}

func empty(d string) bool {
	ents, err := os.ReadDir(d)
	if err != nil {
		return true
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".json") {
			return false
		}
	}
	return true
}

// nextEntry picks the queued event to import now: the one queued longest
// of those due whose session no worker is importing. With none due, name
// is "" and wait is how long until one is; queued is false when nothing is
// queued at all. An entry that cannot be read is removed.
func nextEntry(qd, rd string, o Options) (name string, e Event, wait time.Duration, queued bool) {
	ents, err := os.ReadDir(qd)
	if err != nil {
		return "", Event{}, 0, false
	}
	busy := map[string]bool{}
	if rs, err := os.ReadDir(rd); err == nil {
		for _, r := range rs {
			if _, n, ok := strings.Cut(r.Name(), "-"); ok {
				busy[n] = true
			}
		}
	}
	type cand struct {
		name   string
		e      Event
		queued time.Time
	}
	var due []cand
	wait = o.Throttle
	now := o.Now()
	for _, de := range ents {
		if !strings.HasSuffix(de.Name(), ".json") {
			continue
		}
		p := filepath.Join(qd, de.Name())
		ev, err := readEntry(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || checkEvent(ev) != nil || entryName(ev) != de.Name() {
			os.Remove(p)
			continue
		}
		queued = true
		if busy[de.Name()] {
			continue
		}
		if ev.Throttled() {
			if left := dueIn(o.MemoryDir, ev, o.Throttle, now); left > 0 {
				wait = min(wait, left)
				continue
			}
		}
		fi, err := de.Info()
		if err != nil {
			continue
		}
		due = append(due, cand{de.Name(), ev, fi.ModTime()})
	}
	if len(due) == 0 {
		return "", Event{}, wait, queued
	}
	sort.Slice(due, func(i, j int) bool { return due[i].queued.Before(due[j].queued) })
	return due[0].name, due[0].e, 0, true
}

// dueIn is how long until a throttled event's session may be imported
// again: a throttle after its last import began.
func dueIn(memDir string, e Event, every time.Duration, now time.Time) time.Duration {
	st, err := os.Stat(stampPath(filepath.Join(memDir, DirName), e))
	if err != nil {
		return 0
	}
	return every - now.Sub(st.ModTime())
}
