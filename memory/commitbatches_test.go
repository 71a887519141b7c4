package memory

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// stageBatch stages sessions in a new batch.
func stageBatch(t *testing.T, m *Memory, ss ...*funes.Session) *Batch {
	t.Helper()
	b, err := m.NewBatch(IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if err := b.Add(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func storedIDs(t *testing.T, m *Memory) map[string]bool {
	t.Helper()
	rows, err := m.db.Query(`SELECT session_id FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		out[id] = true
	}
	return out
}

// Batches committed together share transactions, and one that cannot be
// stored fails alone: the others are stored and report what they did.
func TestCommitBatchesFailsOneAlone(t *testing.T) {
	m := openTest(t)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	b1 := stageBatch(t, m, conv("s1", funes.HarnessCodex, "one", "", at, "first talk about MT-4471", "ok"))
	b2 := stageBatch(t, m, conv("s2", funes.HarnessCodex, "two", "", at, "second talk", "ok"))
	b3 := stageBatch(t, m, conv("s3", funes.HarnessCodex, "three", "", at, "third talk", "ok"), conv("s4", funes.HarnessCodex, "four", "", at, "fourth", "ok"))
	done := stageBatch(t, m, conv("s5", funes.HarnessCodex, "five", "", at, "fifth", "ok"))
	if _, err := done.Commit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	// The second batch's staged copy is damaged on disk: it cannot be read back.
	if _, err := b2.file.WriteAt(bytes.Repeat([]byte("x"), int(b2.size)), 0); err != nil {
		t.Fatal(err)
	}
	errs := CommitBatches(context.Background(), []*Batch{b1, b2, b3, done}, nil)
	if errs[0] != nil || errs[2] != nil {
		t.Fatalf("good batches failed: %v", errs)
	}
	if errs[1] == nil || errs[3] == nil {
		t.Fatalf("the damaged and the finished batch should fail: %v", errs)
	}
	got := storedIDs(t, m)
	for id, want := range map[string]bool{"s1": true, "s2": false, "s3": true, "s4": true, "s5": true} {
		if got[id] != want {
			t.Errorf("%s stored = %v, want %v", id, got[id], want)
		}
	}
	if r := b1.Report(); r.New != 1 {
		t.Errorf("first batch report %+v", r)
	}
	if r := b3.Report(); r.New != 2 {
		t.Errorf("third batch report %+v", r)
	}
	for _, b := range []*Batch{b1, b2, b3} {
		if _, err := os.Stat(b.dir); !os.IsNotExist(err) {
			t.Errorf("staging folder %s left behind: %v", b.dir, err)
		}
	}
}
