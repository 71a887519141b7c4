package capture

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
)

// newMemory makes an empty memory folder, as `ireneo status` leaves one.
func newMemory(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	return dir
}

// TestEnqueueJoins: one entry a session; a later fire joins it unless it
// is unthrottled and the queued one is not.
func TestEnqueueJoins(t *testing.T) {
	dir := newMemory(t)
	stop := Event{Harness: Codex, Name: "agent-turn-complete", SessionID: "t1"}
	end := Event{Harness: ClaudeCode, Name: "SessionEnd", SessionID: "t1"}
	stopCC := Event{Harness: ClaudeCode, Name: "Stop", SessionID: "t1"}
	for i, c := range []struct {
		e    Event
		want bool
	}{{stop, true}, {stop, false}, {stopCC, true}, {end, true}, {stopCC, false}, {end, false}} {
		got, err := Enqueue(dir, c.e)
		if err != nil || got != c.want {
			t.Errorf("%d: Enqueue(%s %s) = %v, %v; want %v", i, c.e.Harness, c.e.Name, got, err, c.want)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(dir, DirName, queueName))
	if len(ents) != 2 {
		t.Errorf("queue holds %d entries, want 2 (one a session)", len(ents))
	}
	if q, _ := readEntry(filepath.Join(dir, DirName, queueName, entryName(end))); q.Name != "SessionEnd" {
		t.Errorf("the queued Claude Code event is %s, want SessionEnd", q.Name)
	}
	if _, err := Enqueue(t.TempDir(), stop); err == nil || !strings.Contains(err.Error(), "no memory at") {
		t.Errorf("a folder with no memory: %v", err)
	}
	if _, err := Enqueue(dir, Event{Harness: Codex, SessionID: "../x"}); err == nil {
		t.Error("queued a session id that is not a file name")
	}
}

// TestSlotsBounded: MaxWorkers slots, no more; a released one is free.
func TestSlotsBounded(t *testing.T) {
	dir := newMemory(t)
	if AnyWorker(dir) {
		t.Fatal("a worker before any slot was taken")
	}
	var held []*Slot
	for range MaxWorkers {
		s, err := TakeSlot(dir)
		if err != nil || s == nil {
			t.Fatalf("slot %d: %v %v", len(held), s, err)
		}
		held = append(held, s)
	}
	if s, err := TakeSlot(dir); s != nil || err != nil {
		t.Fatalf("a slot beyond MaxWorkers: %v %v", s, err)
	}
	if !AnyWorker(dir) {
		t.Fatal("no worker seen while every slot is held")
	}
	held[0].Release()
	if s, _ := TakeSlot(dir); s == nil || s.N() != held[0].N() {
		t.Fatalf("the released slot was not free again: %v", s)
	}
}

// TestWorkDrainsQueue: a worker imports each queued session once, waits
// out a throttled one's window, puts back what a dead worker of its slot
// held, and lets its slot go when the queue is empty.
func TestWorkDrainsQueue(t *testing.T) {
	dir := newMemory(t)
	cc := filepath.Join(t.TempDir(), "7d0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b.jsonl")
	data, err := os.ReadFile("../importers/testdata/claudecode/projects/-home-ana-llama-cpp/7d0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cc, data, 0o600)
	codexHome := t.TempDir()
	rollout := "rollout-2026-03-01T10-00-00-0195a000-0000-7000-8000-000000000001.jsonl"
	data, err = os.ReadFile("../importers/testdata/codex/sessions/2026/03/01/" + rollout)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(codexHome, "sessions", "2026", "03", "01"), 0o700)
	os.WriteFile(filepath.Join(codexHome, "sessions", "2026", "03", "01", rollout), data, 0o600)

	end := Event{Harness: ClaudeCode, Name: "SessionEnd", SessionID: "7d0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b", Transcript: cc}
	notify := Event{Harness: Codex, Name: "agent-turn-complete", SessionID: "0195a000-0000-7000-8000-000000000001"}
	throttle := 400 * time.Millisecond
	markImported(dir, notify, time.Now()) // imported just now: its next import waits
	for _, e := range []Event{end, notify} {
		if _, err := Enqueue(dir, e); err != nil {
			t.Fatal(err)
		}
	}
	// A dead worker of slot 0 was importing the Claude Code session.
	rd, _ := queueDir(dir, runningName)
	os.Rename(filepath.Join(dir, DirName, queueName, entryName(end)), filepath.Join(rd, "0-"+entryName(end)))

	slot, err := TakeSlot(dir)
	if err != nil || slot == nil || slot.N() != 0 {
		t.Fatalf("slot: %v %v", slot, err)
	}
	var mu sync.Mutex
	var got []string
	var at []time.Time
	start := time.Now()
	Work(context.Background(), Options{MemoryDir: dir, CodexHome: codexHome, Throttle: throttle}, slot, func(e Event, sum importers.Summary, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			t.Errorf("%s: %v", e.SessionID, err)
		}
		got = append(got, e.Harness+":"+e.Name+":"+strconv.Itoa(sum.New))
		at = append(at, time.Now())
	})
	if strings.Join(got, " ") != "claude-code:SessionEnd:1 codex:agent-turn-complete:1" {
		t.Fatalf("imports: %q", got)
	}
	if at[1].Sub(start) < throttle/2 {
		t.Errorf("the throttled session was imported after %v, inside its %v window", at[1].Sub(start), throttle)
	}
	if !empty(filepath.Join(dir, DirName, queueName)) {
		t.Error("the queue is not empty after the worker")
	}
	if ents, _ := os.ReadDir(rd); len(ents) != 0 {
		t.Errorf("running entries left: %d", len(ents))
	}
	if AnyWorker(dir) {
		t.Error("the worker kept its slot")
	}
}
