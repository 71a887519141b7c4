package conversations

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memory/memorytest"
)

// A list filtered by an identifier holds the conversations that hold it, not
// every one holding one of its parts ("N-11" is not "11"); with a word beside
// it, the conversations holding both.
func TestListKeepsIdentifiersWhole(t *testing.T) {
	t.Parallel()
	m := memorytest.Open(t)
	memorytest.Ingest(t, m,
		funestest.Conv("has-id", funes.HarnessClaude, "rollout", "", funestest.Day0, "The N-11 rollout goes out Thursday."),
		funestest.Conv("has-part", funes.HarnessClaude, "numbers", "", funestest.Day0, "We counted 11 boxes and an n."),
		funestest.Conv("has-word", funes.HarnessClaude, "weather", "", funestest.Day0, "Thursday looks rainy."))
	ctx := context.Background()
	list := func(q string) []string {
		infos, _, err := List(ctx, m, Query{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range infos {
			ids = append(ids, s.SessionID)
		}
		slices.Sort(ids)
		return ids
	}
	if got := list("N-11"); !slices.Equal(got, []string{"has-id"}) {
		t.Errorf("N-11: %v, want only the conversation holding it", got)
	}
	if got := list("N-11 thursday"); !slices.Equal(got, []string{"has-id"}) {
		t.Errorf("N-11 thursday: %v, want the one conversation holding both", got)
	}
	if got := list("thursday"); !slices.Equal(got, []string{"has-id", "has-word"}) {
		t.Errorf("thursday: %v", got)
	}
	if got := list("rainy thursday"); !slices.Equal(got, []string{"has-word"}) {
		t.Errorf("rainy thursday: %v, want the conversation holding both words, not either", got)
	}
	if got := list("11"); !slices.Contains(got, "has-part") {
		t.Errorf("11 alone: %v, want the conversation holding 11", got)
	}
}

// A word written without spaces around it (Han, Kana, Hangul, Thai) filters
// the list to the conversation whose sentence holds it (the index keeps
// character bigrams; memory's TestSegmentedWordInsideASentence checks
// recall's candidates).
func TestListFindsAWordInsideASentence(t *testing.T) {
	t.Parallel()
	m := memorytest.Open(t)
	ctx := context.Background()
	memorytest.Ingest(t, m,
		funestest.Conv("ja-1", funes.HarnessChatGPT, "旅行の計画", "", funestest.Day0, "昨日は東京で旅行した。とても楽しかった。", "いいですね"),
		funestest.Conv("ja-2", funes.HarnessChatGPT, "天気", "", funestest.Day0, "大阪の天気は晴れです", "そうですか"),
		funestest.Conv("ko-1", funes.HarnessClaude, "약속", "", funestest.Day0, "내일 서울에서 만나요", "좋아요"),
		funestest.Conv("th-1", funes.HarnessClaude, "ทักทาย", "", funestest.Day0, "สวัสดีครับ วันนี้อากาศดีมาก", "ครับ"),
	)
	for _, tc := range []struct{ query, want string }{
		{"東京", "ja-1"}, {"旅行", "ja-1"}, {"晴れ", "ja-2"}, {"서울", "ko-1"}, {"อากาศ", "th-1"},
		{"東京で旅行", "ja-1"},
	} {
		infos, _, err := List(ctx, m, Query{Query: tc.query})
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) != 1 || infos[0].SessionID != tc.want {
			t.Errorf("the conversation filter %q lists %+v, want %s alone", tc.query, infos, tc.want)
		}
	}
	if infos, _, err := List(ctx, m, Query{Query: "京都"}); err != nil || len(infos) != 0 {
		t.Errorf("京都 is said nowhere, listed %+v (%v)", infos, err)
	}
}

// The list's filters, sort, paging and total, with stars and projects read
// in the same snapshot.
func TestListFiltersSortsAndPages(t *testing.T) {
	t.Parallel()
	m := memorytest.Open(t)
	ctx := context.Background()
	day := funestest.Day0
	memorytest.Ingest(t, m,
		funestest.Conv("a", funes.HarnessClaude, "Alpha", "", day, "pump seal", "ok"),
		funestest.Conv("b", funes.HarnessChatGPT, "beta", "", day.Add(24*time.Hour), "valve", "ok", "more", "ok"),
		funestest.Conv("c", funes.HarnessCodex, "Gamma", "", day.Add(48*time.Hour), "pump curve", "ok"))
	if err := m.Tag(ctx, "a", "plant"); err != nil {
		t.Fatal(err)
	}
	if err := m.Star(ctx, "c", true); err != nil {
		t.Fatal(err)
	}
	ids := func(q Query) ([]string, int) {
		t.Helper()
		infos, total, err := List(ctx, m, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range infos {
			out = append(out, c.SessionID)
		}
		return out, total
	}
	for _, tc := range []struct {
		name  string
		q     Query
		want  []string
		total int
	}{
		{"newest first", Query{}, []string{"c", "b", "a"}, 3},
		{"paged", Query{Limit: 1, Offset: 1}, []string{"b"}, 3},
		{"by title", Query{Sort: "title", Asc: true}, []string{"a", "b", "c"}, 3},
		{"by turns, ties in import order", Query{Sort: "turns"}, []string{"b", "a", "c"}, 3},
		{"one source", Query{Source: funes.HarnessCodex}, []string{"c"}, 1},
		{"since", Query{Since: day.Add(24 * time.Hour)}, []string{"c", "b"}, 2},
		{"until", Query{Until: day.Add(24 * time.Hour)}, []string{"a"}, 1},
		{"starred", Query{Starred: true}, []string{"c"}, 1},
		{"project and untagged", Query{Project: "plant"}, []string{"c", "b", "a"}, 3},
		{"project only", Query{Project: "plant", ProjectOnly: true}, []string{"a"}, 1},
		{"untagged", Query{Untagged: true}, []string{"c", "b"}, 2},
		{"scope", Query{Scope: []string{"plant"}}, []string{"a"}, 1},
		{"empty scope", Query{Scope: []string{}}, nil, 0},
		{"words", Query{Query: "pump"}, []string{"c", "a"}, 2},
	} {
		if got, total := ids(tc.q); !slices.Equal(got, tc.want) || total != tc.total {
			t.Errorf("%s: %v (total %d), want %v (total %d)", tc.name, got, total, tc.want, tc.total)
		}
	}
	infos, _, err := List(ctx, m, Query{Sort: "title", Asc: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(infos[0].Projects, []string{"plant"}) || infos[0].Starred || !infos[2].Starred || infos[1].Projects == nil {
		t.Errorf("projects and stars: %+v", infos)
	}
	ps, untagged, err := Projects(ctx, m, nil)
	if err != nil || len(ps) != 1 || ps[0].Name != "plant" || ps[0].Count != 1 || untagged != 2 {
		t.Errorf("projects: %+v, %d untagged, %v", ps, untagged, err)
	}
	if ps, untagged, err := Projects(ctx, m, []string{"other"}); err != nil || len(ps) != 0 || untagged != 0 {
		t.Errorf("projects under another scope: %+v, %d untagged, %v", ps, untagged, err)
	}
}

// Get finds a conversation by its bare id, or source:id when two sources
// share it (a bare one is a typed error naming both); out of scope reads
// as not found; a window is the turns either side of the one asked for.
func TestGet(t *testing.T) {
	t.Parallel()
	m := memorytest.Open(t)
	ctx := context.Background()
	memorytest.Ingest(t, m,
		funestest.Conv("same-id", funes.HarnessChatGPT, "one", "", funestest.Day0, "from chatgpt"),
		funestest.Conv("same-id", funes.HarnessClaude, "two", "", funestest.Day0, "from claude"),
		funestest.Conv("long", funes.HarnessCodex, "long", "", funestest.Day0, "t0", "t1", "t2", "t3", "t4", "t5", "t6"))
	if err := m.Tag(ctx, "long", "plant"); err != nil {
		t.Fatal(err)
	}
	_, err := Get(ctx, m, GetOptions{SessionID: "same-id"})
	var amb *memory.AmbiguousSessionError
	if !errors.Is(err, memory.ErrAmbiguousSession) || !errors.As(err, &amb) || !strings.Contains(err.Error(), "write it as") {
		t.Fatalf("get same-id: %v, want an AmbiguousSessionError", err)
	}
	if tr, err := Get(ctx, m, GetOptions{SessionID: funes.HarnessClaude + ":same-id"}); err != nil || tr.Session.Title != "two" || tr.Focus != -1 {
		t.Errorf("get claude:same-id: %+v, %v", tr, err)
	}
	// One of the two in scope is still ambiguous to name bare: neither is.
	if _, err := Get(ctx, m, GetOptions{SessionID: "same-id", Scope: []string{"plant"}}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("get same-id out of scope: %v, want not found", err)
	}
	tr, err := Get(ctx, m, GetOptions{SessionID: "long", TurnUUID: "long-t3", Window: 1, Scope: []string{"plant"}})
	if err != nil || tr.Focus != 3 || len(tr.Turns) != 3 || tr.Turns[0].Seq != 2 || !slices.Equal(tr.Session.Projects, []string{"plant"}) || tr.Session.Turns != 7 {
		t.Fatalf("get long around t3: %+v, %v", tr, err)
	}
	if w := tr.Window(); w.Focus != 3 || len(w.Turns) != 3 || w.Turns[1].Blocks[0].Text != "t3" || w.Session.Title != "long" {
		t.Errorf("its window: %+v", w)
	}
	if tr, err := Get(ctx, m, GetOptions{SessionID: "long", Window: 1}); err != nil || len(tr.Turns) != 3 || tr.Turns[0].Seq != 0 {
		t.Errorf("get long's start: %+v, %v", tr, err)
	}
	if _, err := Get(ctx, m, GetOptions{SessionID: "long", TurnUUID: "nope"}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("get an unknown turn: %v, want not found", err)
	}
	if _, err := Get(ctx, m, GetOptions{SessionID: "missing"}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("get an unknown conversation: %v, want not found", err)
	}
}
