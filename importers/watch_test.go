package importers

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWatchImportsNewAndGrownRollouts(t *testing.T) {
	m := newMemory(t)
	root := t.TempDir() // stands in for ~/.codex/sessions
	defer func(d time.Duration) { watchDebounce = d }(watchDebounce)
	watchDebounce = 300 * time.Millisecond

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan Summary, 16)
	done := make(chan error, 1)
	go func() { done <- Watch(ctx, m, []string{root}, Options{}, func(s Summary) { got <- s }) }()
	time.Sleep(200 * time.Millisecond) // let the watcher start

	wait := func(what string, ok func(Summary) bool) {
		t.Helper()
		deadline := time.After(15 * time.Second)
		for {
			select {
			case s := <-got:
				if ok(s) {
					return
				}
				t.Logf("%s: an import that is not it yet: %+v", what, s)
			case <-deadline:
				t.Fatalf("%s: not imported within 15s", what)
			}
		}
	}

	// A new day folder and a rollout in it, written line by line as Codex
	// does, during the test.
	src := codexFile("2026/03/01/rollout-2026-03-01T10-00-00-0195a000-0000-7000-8000-000000000001.jsonl")
	data, _ := os.ReadFile(src)
	dayDir := filepath.Join(root, "2026", "03", "01")
	if err := os.MkdirAll(dayDir, 0o755); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dayDir, filepath.Base(src))
	f, err := os.Create(live)
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range [][]byte{data[:len(data)/3], data[len(data)/3:]} {
		f.Write(chunk)
		time.Sleep(50 * time.Millisecond)
	}
	f.Close()
	wait("new rollout", func(s Summary) bool { return s.New == 1 })
	if _, err := m.LoadSession(ctx, "0195a000-0000-7000-8000-000000000001"); err != nil {
		t.Fatal(err)
	}

	// The session grows.
	f, _ = os.OpenFile(live, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"timestamp":"2026-03-01T12:00:00Z","type":"event_msg","payload":{"type":"user_message","message":"And the docs?"}}` + "\n")
	f.Close()
	wait("grown rollout", func(s Summary) bool { return s.Updated == 1 })
	s, err := m.LoadSession(ctx, "0195a000-0000-7000-8000-000000000001")
	if err != nil || s.Turns[len(s.Turns)-1].Blocks[0].Text != "And the docs?" {
		t.Fatalf("%v %+v", err, s)
	}

	// Files that are not transcripts are ignored quietly: no import is
	// reported for one and the memory is unchanged. A transcript written
	// after it, once its debounce is over, is imported after it (one
	// importer takes files in turn), so its report shows the other file
	// has been seen to.
	before, err := m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dayDir, "notes.jsonl"), []byte(`{"hello":"world"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * watchDebounce)
	sentinel := codexFile("2026/03/01/rollout-2026-03-01T13-00-00-0195a000-0000-7000-8000-000000000002.jsonl")
	sdata, err := os.ReadFile(sentinel)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dayDir, filepath.Base(sentinel)), sdata, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(15 * time.Second)
	for seen := false; !seen; {
		select {
		case s := <-got:
			if s.New == 1 && s.Failed == 0 {
				seen = true
				continue
			}
			t.Errorf("a report for a file that is not a transcript: %+v", s)
		case <-deadline:
			t.Fatal("the transcript after notes.jsonl was not imported within 15s")
		}
	}
	after, err := m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Conversations != before.Conversations+1 {
		t.Errorf("%d conversations, want %d: only the transcript is new", after.Conversations, before.Conversations+1)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not return after cancel")
	}
}

func TestWatchNothingToWatch(t *testing.T) {
	m := newMemory(t)
	if err := Watch(context.Background(), m, []string{filepath.Join(t.TempDir(), "none")}, Options{}, nil); err == nil {
		t.Fatal("no error for a missing folder")
	}
}
