package recallbench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ireneo-app/ireneo/bench/recalldata"
)

// TestMirrorMatchesFTS5 holds the Go ranking to SQLite's bm25(): the same
// scores, rank by rank, for every question on a small history.
func TestMirrorMatchesFTS5(t *testing.T) {
	ctx := context.Background()
	d := recalldata.Generate(recalldata.Config{N: 300, Seed: 2, FactQuestions: 60, NoIDQuestions: 40})
	b, err := OpenBaseline(filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var docs []Doc
	for _, s := range d.Sessions() {
		for _, tn := range s.Turns {
			docs = append(docs, Doc{Harness: s.Harness, SessionID: s.ID, Text: tn.Text()})
		}
	}
	if err := b.Build(ctx, docs); err != nil {
		t.Fatal(err)
	}
	qs := []string{"the the ticket", "P-003's seal?", "MT-1234 OR x", "Decision from this morning", "!!", "naïve café"}
	for _, q := range d.Questions {
		qs = append(qs, q.Text)
	}
	if err := b.Prepare(ctx, qs[len(qs)/2:]); err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		ok, err := b.Agrees(ctx, q, 8)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if !ok {
			sq, _ := b.searchSQL(ctx, q, 8)
			mq, _ := b.mirror.search(ctx, q, 8)
			for i := range max(len(sq), len(mq)) {
				var a, c any
				if i < len(sq) {
					a = [2]any{sq[i].rowid, sq[i].score}
				}
				if i < len(mq) {
					c = [2]any{mq[i].doc + 1, mq[i].score}
				}
				t.Logf("%d sql %v mirror %v", i, a, c)
			}
			t.Fatalf("%q: the mirror ranks differently from SQLite", q)
		}
	}
}
