package realmem

import (
	"errors"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	ps, err := Load("../../" + DefaultDir)
	if errors.Is(err, ErrNoData) {
		ps, err = Load("../../../" + DefaultDir) // a worktree under wt/
	}
	if errors.Is(err, ErrNoData) {
		t.Skip("RealMem is not in ../shared")
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 10 {
		t.Fatalf("%d personas, want 10", len(ps))
	}
	sessions, turns, queries, late := 0, 0, 0, 0
	types := map[string]int{}
	for _, p := range ps {
		sessions += len(p.Sessions)
		for _, s := range p.Sessions {
			turns += len(s.Turns)
		}
		start := map[string]int{}
		for i, s := range p.Sessions {
			start[s.ID] = i
		}
		for _, q := range p.Queries {
			queries++
			types[q.Type]++
			for _, e := range q.Evidence {
				i, ok := start[e]
				if !ok {
					continue // evidence outside the file: scored as a miss
				}
				if !p.Sessions[i].Started().Before(q.Before) {
					late++ // upstream names a later session: scored as a miss for every system
				}
			}
		}
	}
	t.Logf("%d sessions, %d turns, %d queries %v; %d evidence sessions come after their query", sessions, turns, queries, types, late)
	if late > 5 {
		t.Errorf("%d evidence sessions after their query: the history's order is wrong", late)
	}
	if sessions != 2055 || turns != 14028 {
		t.Errorf("%d sessions and %d turns, README says 2,055 and 14,028", sessions, turns)
	}
	if queries < 1300 || queries > 1415 {
		t.Errorf("%d queries with evidence, want about 1,415", queries)
	}
}

func TestRecallAt(t *testing.T) {
	for _, c := range []struct {
		ev, ranked []string
		k          int
		want       float64
	}{
		{[]string{"a", "b"}, []string{"x", "a", "a", "b"}, 3, 0.5},
		{[]string{"a", "b"}, []string{"x", "a", "a", "b"}, 4, 1},
		{[]string{"a"}, nil, 5, 0},
		{nil, []string{"a"}, 5, 0},
	} {
		if got := RecallAt(c.ev, c.ranked, c.k); got != c.want {
			t.Errorf("RecallAt(%v, %v, %d) = %v, want %v", c.ev, c.ranked, c.k, got, c.want)
		}
	}
}

// Every query has turn-level evidence, inside its evidence sessions.
func TestEvidenceTurns(t *testing.T) {
	ps, err := Load("../../" + DefaultDir)
	if errors.Is(err, ErrNoData) {
		ps, err = Load("../../../" + DefaultDir) // a worktree under wt/
	}
	if errors.Is(err, ErrNoData) {
		t.Skip("RealMem is not in ../shared")
	}
	if err != nil {
		t.Fatal(err)
	}
	n, without, outside := 0, 0, 0
	for _, p := range ps {
		for _, q := range p.Queries {
			n++
			if len(q.EvidenceTurns) == 0 {
				without++
			}
			sess := map[string]bool{}
			for _, e := range q.Evidence {
				sess[e] = true
			}
			for _, tu := range q.EvidenceTurns {
				if !sess[tu[:strings.LastIndexByte(tu, '-')]] {
					outside++
				}
			}
		}
	}
	t.Logf("%d queries, %d without evidence turns, %d evidence turns outside the evidence sessions", n, without, outside)
	if without > n/100 || outside > 0 {
		t.Errorf("%d of %d queries lack evidence turns, %d turns lie outside the evidence sessions", without, n, outside)
	}
}
