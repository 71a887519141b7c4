package recall

import (
	"context"
	"slices"
	"testing"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
)

// The three project filters a person browsing can pick (project +
// untagged, only the project, untagged), in the conversation list and in
// recall, and recall's Offset paging.
func TestProjectFilterModes(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("a", funes.HarnessChatGPT, "Spotter A", "spotter", day0, "the kestrel plan for spotter"),
		conv("b", funes.HarnessChatGPT, "Other B", "other", day0, "the kestrel plan for other"),
		conv("c", funes.HarnessClaude, "Loose C", "", day0, "the kestrel plan, untagged"),
	)
	ids := func(ss []answer.Conversation) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.SessionID)
		}
		slices.Sort(out)
		return out
	}
	hitIDs := func(hs []Hit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.SessionID)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	cases := []struct {
		name      string
		project   string
		only, unt bool
		want      []string
	}{
		{"project + untagged", "spotter", false, false, []string{"a", "c"}},
		{"only the project", "spotter", true, false, []string{"a"}},
		{"untagged", "", false, true, []string{"c"}},
		{"everything", "", false, false, []string{"a", "b", "c"}},
	}
	for _, c := range cases {
		ss, total, err := conversations.List(ctx, m, conversations.Query{Project: c.project, ProjectOnly: c.only, Untagged: c.unt})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(ss); !slices.Equal(got, c.want) || total != len(c.want) {
			t.Errorf("Sessions %s: %q (total %d), want %q", c.name, got, total, c.want)
		}
		res, err := Recall(ctx, m, Options{Query: "kestrel plan", Project: c.project, ProjectOnly: c.only, Untagged: c.unt, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		if got := hitIDs(res.Hits); !slices.Equal(got, c.want) {
			t.Errorf("Recall %s: %q, want %q", c.name, got, c.want)
		}
	}

	// Offset pages through the same ranking: page 2 of size 1 is hit 2.
	all, err := Recall(ctx, m, Options{Query: "kestrel plan", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Hits) != 3 {
		t.Fatalf("want 3 hits, got %d", len(all.Hits))
	}
	for i := range all.Hits {
		page, err := Recall(ctx, m, Options{Query: "kestrel plan", K: 1, Offset: i})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Hits) != 1 || page.Hits[0].TurnUUID != all.Hits[i].TurnUUID {
			t.Fatalf("page %d is %+v, want hit %s", i, page.Hits, all.Hits[i].TurnUUID)
		}
	}
	past, err := Recall(ctx, m, Options{Query: "kestrel plan", K: 2, Offset: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(past.Hits) != 0 {
		t.Fatalf("a page past the end should be empty, got %d", len(past.Hits))
	}
}
