package recallbench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/bench/recalldata"
)

func TestQuery(t *testing.T) {
	got := Query(`which work order was raised for P-003's "seal"?`)
	want := `"which" OR "work" OR "order" OR "was" OR "raised" OR "for" OR "P-003's" OR "seal"`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if Query(" ?! ") != "" {
		t.Fatal("punctuation alone made a query")
	}
}

func TestScoreAndAggregate(t *testing.T) {
	q := recalldata.Question{Type: recalldata.TypeShort, Harness: "codex", SessionID: "a", Answer: "MT-1"}
	hits := []Result{{"codex", "b", "x", ""}, {"chatgpt", "a", "MT-1", ""}, {"codex", "a", "has MT-1", ""}}
	s := score(q, hits, time.Millisecond)
	if s.rank != 3 || !s.answer3 {
		t.Fatalf("rank %d answer %v, want 3 true", s.rank, s.answer3)
	}
	s2 := score(q, hits[:1], 3*time.Millisecond)
	rows := aggregate(1, "x", []scored{s, s2})
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	r := rows[0]
	if r.Hit1 != 0 || r.Hit3 != 0.5 || r.Hit8 != 0.5 || r.Ans3 != 0.5 || r.P50 != 1 || r.P95 != 3 {
		t.Fatalf("row %+v", r)
	}
}

// TestRunSmall runs the whole benchmark on a small history: the exports go
// through the real importers, every conversation must come back whole, and
// both systems must find most facts.
func TestRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a small history")
	}
	t.Setenv("HOME", t.TempDir())
	var misses bytes.Buffer
	rep, err := Run(context.Background(), Options{
		N: 120, Seed: 5, Baseline: true, Configs: []Config{Default()},
		Dir: t.TempDir(), Misses: &misses, FactQuestions: 40, NoIDQuestions: 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	ic := rep.ImportCheck
	if ic.Found != ic.Expected || ic.Answer != ic.Expected || ic.Turns != ic.Expected || ic.Extra != 0 || ic.Leaks != 0 {
		t.Errorf("import check %+v", ic)
	}
	seen := map[string]bool{}
	for _, r := range rep.Rows {
		seen[r.System] = true
		if r.Type == "short" && r.Hit8 < 0.8 {
			t.Errorf("%s found only %.2f of short questions in 8 hits", r.System, r.Hit8)
		}
	}
	if !seen[BaselineName] || !seen[DefaultName] {
		t.Errorf("systems measured: %v", seen)
	}
	if misses.Len() > 0 && !strings.Contains(misses.String(), "MISS N=120") {
		t.Errorf("miss report: %s", misses.String())
	}
}

// TestRunAgentworkSmall runs the agentwork set on a small history: both
// systems are asked every question, and the cached memory is reused.
func TestRunAgentworkSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests a small history")
	}
	cache := t.TempDir()
	outs, err := RunAgentwork(context.Background(), AgentworkOptions{N: 200, Seed: 2, Cache: cache, Configs: []Config{Default()}})
	if err != nil {
		t.Fatal(err)
	}
	hits := map[string]float64{}
	n := map[string]int{}
	for _, o := range outs {
		if len(o.Values) != len(Metrics[SetAgentwork]) {
			t.Fatalf("%d values, want %d", len(o.Values), len(Metrics[SetAgentwork]))
		}
		hits[o.System] += o.Values[0]
		n[o.System]++
	}
	if n[FloorName] == 0 || n[FloorName] != n[DefaultName] {
		t.Fatalf("questions asked: %v", n)
	}
	if hits[DefaultName] < 0.5*float64(n[DefaultName]) {
		t.Errorf("recall found %v of %d gold conversations in 3 hits", hits[DefaultName], n[DefaultName])
	}
	if _, err := RunAgentwork(context.Background(), AgentworkOptions{N: 200, Seed: 2, Cache: cache, Configs: []Config{Default()}}); err != nil {
		t.Fatalf("from the cache: %v", err)
	}
}
