package importers

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The watcher follows the new harnesses' files: opencode's database
// watched alone (a reply written to its -wal while opencode runs), a
// Copilot CLI session folder made during the watch, Cursor's .txt
// transcripts.
func TestWatchNewSources(t *testing.T) {
	m := newMemory(t)
	defer func(d time.Duration) { watchDebounce = d }(watchDebounce)
	watchDebounce = 300 * time.Millisecond
	db := copyDB(t)
	tree := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan Summary, 16)
	done := make(chan error, 1)
	go func() { done <- Watch(ctx, m, []string{db, tree}, Options{}, func(s Summary) { got <- s }) }()
	time.Sleep(200 * time.Millisecond)
	wait := func(what string, ok func(Summary) bool) {
		t.Helper()
		deadline := time.After(15 * time.Second)
		for {
			select {
			case s := <-got:
				if ok(s) {
					return
				}
				t.Logf("%s: not it yet: %+v", what, s)
			case <-deadline:
				t.Fatalf("%s: not imported within 15s", what)
			}
		}
	}

	w := openWriter(t, db)
	if _, err := w.Exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_zz9', 'ses_dccd39f82ffeMmYiUvFqBM0sBp', 1796154999000, 1796154999000, '{"role":"user","time":{"created":1796154999000}}')`); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_zz9', 'msg_zz9', 'ses_dccd39f82ffeMmYiUvFqBM0sBp', 1796154999000, 1796154999000, '{"type":"text","text":"one more question"}')`); err != nil {
		t.Fatal(err)
	}
	wait("opencode database", func(s Summary) bool { return s.New == 4 })

	src, _ := os.ReadFile(testdata(copilot10))
	dir := filepath.Join(tree, "session-state", "3e2a61be-75c7-4cbe-a3b6-4acc266ce68b")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "events.jsonl"), src, 0o644)
	wait("Copilot CLI session", func(s Summary) bool { return s.New == 2 })

	txt, _ := os.ReadFile(testdata(cursorTxDir, "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d.txt"))
	tx := filepath.Join(tree, "projects", "home-ana-src-plant-control", "agent-transcripts")
	os.MkdirAll(tx, 0o755)
	os.WriteFile(filepath.Join(tx, "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d.txt"), txt, 0o644)
	wait("Cursor .txt transcript", func(s Summary) bool { return s.New == 1 })

	// A file beside the database is not the database.
	os.WriteFile(filepath.Join(filepath.Dir(db), "notes.jsonl"), []byte(`{"x":1}`+"\n"), 0o644)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case s := <-got:
			t.Errorf("an import after the last: %+v", s)
		default:
			return
		}
	}
}
