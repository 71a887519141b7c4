package memory

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
)

// TestShownTurns reads, in one call, what recall shows of turns — across
// two conversations, past the padding of the first list size, with a long
// turn of several chunks and a turn that is not there — and finds what
// the per-turn reads find.
func TestShownTurns(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	long := strings.Repeat("The compressor bearing ran hot again on the north line. ", 90)
	texts := make([]string, 20)
	for i := range texts {
		texts[i] = "turn about the pump seal"
	}
	texts[7] = long
	mustIngest(t, m,
		conv("a", funes.HarnessChatGPT, "Pump seal", "", day0, "first", "second", "third", "fourth"),
		conv("b", funes.HarnessClaude, "Bearings", "", day0, texts...))
	if err := m.Tag(ctx, "a", "beta", "alpha"); err != nil {
		t.Fatal(err)
	}
	var sa, sb int64
	if err := m.db.QueryRow(`SELECT id FROM sessions WHERE session_id='a'`).Scan(&sa); err != nil {
		t.Fatal(err)
	}
	if err := m.db.QueryRow(`SELECT id FROM sessions WHERE session_id='b'`).Scan(&sb); err != nil {
		t.Fatal(err)
	}
	keys := []TurnKey{{sa, 0}, {sa, 3}, {sb, 99}}
	for seq := 5; seq <= 12; seq++ {
		keys = append(keys, TurnKey{sb, seq})
	}
	for _, neighbours := range []bool{true, false} {
		shown := showTurns(t, m, keys, len(keys), neighbours)
		if len(shown) != len(keys)-1 || shown[TurnKey{sb, 99}] != nil {
			t.Fatalf("neighbours %v: %d turns shown of %d asked, one missing", neighbours, len(shown), len(keys))
		}
		infos, err := m.TurnInfos(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys[:2] {
			if got := shown[k].Projects; !reflect.DeepEqual(got, []string{"alpha", "beta"}) {
				t.Errorf("turn %v: projects %q, want alpha, beta", k, got)
			}
		}
		if got := shown[TurnKey{sb, 5}].Projects; got == nil || len(got) != 0 {
			t.Errorf("an untagged conversation's projects are %#v, want empty", got)
		}
		for k, st := range shown {
			if st.TurnInfo != infos[k] {
				t.Errorf("turn %v: receipt %+v, TurnInfos says %+v", k, st.TurnInfo, infos[k])
			}
			chunks, err := m.TurnChunks(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(st.Chunks, chunks) {
				t.Errorf("turn %v: %d chunks, TurnChunks reads %d", k, len(st.Chunks), len(chunks))
			}
			var seqs []int
			for _, p := range st.Neighbours {
				seqs = append(seqs, p.Seq)
			}
			var want []int
			if neighbours {
				for _, s := range []int{k.Seq - 1, k.Seq + 1} {
					if s >= 0 && (k.Sess == sb && s < 20 || k.Sess == sa && s < 4) {
						want = append(want, s)
					}
				}
			}
			if !reflect.DeepEqual(seqs, want) {
				t.Errorf("neighbours %v, turn %v: neighbour seqs %v, want %v", neighbours, k, seqs, want)
			}
		}
		if n := len(shown[TurnKey{sb, 7}].Chunks); n < 2 {
			t.Errorf("the long turn has %d chunks, want several", n)
		}
	}
	if shown := showTurns(t, m, nil, 0, true); len(shown) != 0 {
		t.Fatalf("no turns: %v", shown)
	}
	// More turns than the snapshot was opened for: read all the same.
	if shown := showTurns(t, m, keys, 2, true); len(shown) != len(keys)-1 {
		t.Fatalf("%d turns past the snapshot's list: %d shown", len(keys), len(shown))
	}
}

// showTurns reads turns as a recall shows them, from a snapshot opened for
// show turns.
func showTurns(t *testing.T, m *Memory, keys []TurnKey, show int, neighbours bool) map[TurnKey]*ShownTurn {
	t.Helper()
	ctx := context.Background()
	snap, err := m.ReadCandidates(ctx, RecallQuery{Query: engine.Query{Terms: queryTerms("pump"), K: 1}, Params: engine.DefaultParams(), Show: show, Neighbours: neighbours})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	shown, err := snap.Shown(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	return shown
}

// TestShownTurnsConcurrent reads shown turns from many goroutines at once,
// of lists of every padded size, while a tag changes: the shared prepared
// statements stay safe (run with -race) and every read sees a whole state.
func TestShownTurnsConcurrent(t *testing.T) {
	// A reader stuck waiting for a connection fails here, not at the test timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := openTest(t)
	texts := make([]string, 40)
	for i := range texts {
		texts[i] = "turn about the pump seal"
	}
	mustIngest(t, m, conv("c", funes.HarnessCodex, "Seals", "", day0, texts...))
	var sess int64
	if err := m.db.QueryRow(`SELECT id FROM sessions WHERE session_id='c'`).Scan(&sess); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 9)
	for g := range 8 {
		go func() {
			for n := 1; n <= 40; n += 3 + g {
				keys := make([]TurnKey, n)
				for i := range keys {
					keys[i] = TurnKey{sess, i}
				}
				snap, err := m.ReadCandidates(ctx, RecallQuery{Query: engine.Query{Terms: queryTerms("seal"), K: 5}, Params: engine.DefaultParams(), Show: n, Neighbours: g%2 == 0})
				if err != nil {
					done <- err
					return
				}
				shown, err := snap.Shown(ctx, keys)
				snap.Close()
				if err != nil {
					done <- err
					return
				}
				if len(shown) != n {
					done <- fmt.Errorf("%d turns asked, %d shown", n, len(shown))
					return
				}
				if p := shown[keys[0]].Projects; len(p) > 1 {
					done <- fmt.Errorf("projects %q: more than the one tag", p)
					return
				}
			}
			done <- nil
		}()
	}
	go func() {
		for range 10 {
			if err := m.Tag(ctx, "c", "alpha"); err != nil {
				done <- err
				return
			}
			if err := m.Untag(ctx, "c", "alpha"); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range 9 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
