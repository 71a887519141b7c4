package memory

import (
	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"

	"context"
	"errors"
	"testing"
)

func TestForgetErasesEverywhere(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	const marker = "QuokkaMarker7781"
	keep := conv("keep", funes.HarnessClaude, "Kept", "", day0, "an unrelated talk about tea", "tea is good")
	gone := conv("gone", funes.HarnessClaude, "Secret plans "+marker, "", day0, "my plan involves "+marker+" and more", "noted "+marker)
	mustIngest(t, m, keep, gone)
	if len(grepDir(t, m.Dir(), marker)) == 0 || !indexHas(t, m, engine.Term(marker)) {
		t.Fatal("marker should be stored and indexed before forget")
	}
	rep, err := m.Forget(ctx, []string{"gone"}, nil)
	if err != nil || len(rep.Sessions) != 1 || rep.Files != 1 {
		t.Fatalf("forget: %v %+v", err, rep)
	}
	if found := grepDir(t, m.Dir(), marker); len(found) > 0 {
		t.Fatalf("marker still in %v", found)
	}
	if indexHas(t, m, engine.Term(marker)) || indexHas(t, m, engine.Term("involves")) || !indexHas(t, m, engine.Term("unrelated")) {
		t.Fatal("after forget the index should hold the kept conversation's terms and none only the forgotten one held")
	}
	if r := mustIngest(t, m, gone); r.Forgotten != 1 || r.New != 0 {
		t.Fatalf("re-import brought it back: %+v", r)
	}
	if found := grepDir(t, m.Dir(), marker); len(found) > 0 {
		t.Fatalf("marker back in %v", found)
	}
	r, err := m.Ingest(ctx, []*funes.Session{gone}, IngestOptions{IncludeForgotten: true})
	if err != nil || r.New != 1 {
		t.Fatalf("include forgotten: %v %+v", err, r)
	}
	if _, err := m.Forget(ctx, []string{"nope"}, nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}
