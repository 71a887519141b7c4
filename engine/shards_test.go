package engine

import (
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"
)

// TestBarIsTheKthBest: however the shards' offers interleave, the bar is
// the k-th best score offered (0 until k are), so it never prunes a
// document the one search would keep.
func TestBarIsTheKthBest(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for range 200 {
		k := 1 + r.IntN(20)
		b := &bar{k: k}
		var all []float64
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 3 {
			vs := make([]float64, r.IntN(40))
			for i := range vs {
				vs[i] = float64(1 + r.IntN(30)) // ties too
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, v := range vs {
					b.offer(v)
				}
				mu.Lock()
				all = append(all, vs...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		sort.Sort(sort.Reverse(sort.Float64Slice(all)))
		want := 0.0
		if len(all) >= k {
			want = all[k-1]
		}
		if got := b.load(); got != want {
			t.Fatalf("k %d, offers %v: bar %v, want %v", k, all, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		rs     []DocRange
		lo, hi uint64
		want   []DocRange
	}{
		{nil, 5, 9, []DocRange{{5, 9}}},
		{[]DocRange{}, 5, 9, []DocRange{}},
		{[]DocRange{{1, 3}, {4, 6}, {8, 20}, {30, 40}}, 5, 10, []DocRange{{5, 6}, {8, 10}}},
		{[]DocRange{{1, 3}}, 5, 10, []DocRange{}},
	} {
		if got := clip(tc.rs, tc.lo, tc.hi); !slices.Equal(got, tc.want) {
			t.Errorf("clip(%v, %d, %d) = %v, want %v", tc.rs, tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestSplitDocsBalances: the cuts share the postings about evenly, rise,
// and leave short lists whole.
func TestSplitDocsBalances(t *testing.T) {
	mk := func(lasts ...uint64) *cursor {
		c := &cursor{}
		for _, l := range lasts {
			c.skips = append(c.skips, blockMeta{last: l, n: 10})
		}
		return c
	}
	a := mk(10, 20, 30, 40, 50, 60, 70, 80)
	b := mk(15, 25, 35, 45)
	if cuts := splitDocs([]*cursor{a, b}, nil, 2, 2); !slices.Equal(cuts, []uint64{36}) {
		t.Errorf("two shards: cuts %v, want [36] (6 of 12 blocks up to 35)", cuts)
	}
	if cuts := splitDocs([]*cursor{a, b}, nil, 2, 24); cuts != nil {
		t.Errorf("12 blocks under a minimum of 24: cuts %v, want none", cuts)
	}
	if cuts := splitDocs([]*cursor{a, b}, []DocRange{{51, 80}}, 2, 2); !slices.Equal(cuts, []uint64{71}) {
		t.Errorf("inside 51-80 (blocks ending 60, 70, 80): cuts %v, want [71]", cuts)
	}
	cuts := splitDocs([]*cursor{a, b}, nil, 4, 2)
	if len(cuts) != 3 || !slices.IsSorted(cuts) {
		t.Errorf("four shards: cuts %v", cuts)
	}
}
