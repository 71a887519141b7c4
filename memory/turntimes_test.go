package memory

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ireneo-app/ireneo/indexdoc"
)

// TestTurnTimesRoundTrip: what sessions.times unpacks to is what the turns
// table keeps of the same turns: ascending seq, of equal seqs the last
// (INSERT OR REPLACE), negative seqs and times, undated turns and times
// out of order included.
func TestTurnTimesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for range 500 {
		turns := make([]indexdoc.Turn, r.IntN(40))
		for i := range turns {
			turns[i] = indexdoc.Turn{Seq: r.IntN(60) - 3, TS: []int64{0, 1_700_000_000 + r.Int64N(1e8), -r.Int64N(1e6), 1<<62 + r.Int64N(1e6)}[r.IntN(4)]}
		}
		kept := map[int]int64{}
		for _, tu := range turns {
			kept[tu.Seq] = tu.TS
		}
		type st struct {
			seq int
			ts  int64
		}
		var want, got []st
		for seq, ts := range kept {
			want = append(want, st{seq, ts})
		}
		slices.SortFunc(want, func(a, b st) int { return a.seq - b.seq })
		if err := EachTurnTime(packTurnTimes(turns), func(seq int, ts int64) { got = append(got, st{seq, ts}) }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("turns %v: unpacked %v, want %v", turns, got, want)
		}
	}
}

// TestTurnTimesCorrupt: a truncated or overlong packing is an error, not a
// panic or a wrong time.
func TestTurnTimesCorrupt(t *testing.T) {
	p := packTurnTimes([]indexdoc.Turn{{Seq: 0, TS: 1_700_000_000}, {Seq: 1, TS: 1_700_000_900}})
	for _, bad := range [][]byte{p[:len(p)-1], p[:1], append(slices.Clone(p), 0x80), {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}} {
		if err := EachTurnTime(bad, func(int, int64) {}); err == nil {
			t.Errorf("%x unpacked without an error", bad)
		}
	}
}

// FuzzTurnTimes: any bytes unpack to an error or to times, never a panic.
func FuzzTurnTimes(f *testing.F) {
	f.Add(packTurnTimes([]indexdoc.Turn{{Seq: 0, TS: 1_700_000_000}, {Seq: 3, TS: 0}}))
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = EachTurnTime(b, func(int, int64) {})
	})
}
