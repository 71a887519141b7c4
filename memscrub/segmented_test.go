package memscrub

import (
	"context"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memory/memorytest"
	"github.com/ireneo-app/ireneo/scrub"
)

// TestScrubErasesBigrams: a secret in a script written without spaces is
// indexed as character bigrams (package engine); a scrub erases each of
// them from the engine's tables and every file, and leaves the rest of the
// conversation searchable (memory.TestForgetErasesBigrams does a forget).
func TestScrubErasesBigrams(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Ingest(ctx, []*funes.Session{
		conv("keep-1", funes.HarnessChatGPT, "天気", "", day0, "大阪の天気は晴れです。合言葉は葡萄梨桃栗です", "そうですか"),
	}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	secret := []string{"葡萄", "萄梨", "梨桃", "桃栗"}
	for _, b := range secret { // the test would prove nothing if they were never there
		if !memorytest.HasTerm(t, dir, b) {
			t.Fatalf("%s was never indexed", b)
		}
	}
	if len(filesContaining(t, dir, "葡萄")) == 0 {
		t.Fatal("葡萄 is in no file before the scrub")
	}
	sc, err := scrub.New([]scrub.Pattern{{Name: "password-kana", Regex: `合言葉は(葡萄梨桃栗)`}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Apply(ctx, m, Options{Finder: sc})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changed != 1 {
		t.Fatalf("scrub changed %d conversations, want 1: %+v", rep.Changed, rep)
	}
	for _, b := range secret {
		if memorytest.HasTerm(t, dir, b) {
			t.Errorf("scrub: the term %s is still in the engine's tables", b)
		}
		if found := filesContaining(t, dir, b); len(found) > 0 {
			t.Errorf("scrub: %s is still in %v", b, found)
		}
	}
	if !memorytest.HasTerm(t, dir, "大阪") || !memorytest.HasTerm(t, dir, "晴れ") {
		t.Fatal("positive control: the scrubbed conversation's other words are gone from the index")
	}
}
