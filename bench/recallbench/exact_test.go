package recallbench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ireneo-app/ireneo/bench/realmem"
	"github.com/ireneo-app/ireneo/bench/rhelm"
	"github.com/ireneo-app/ireneo/recall"
)

// TestEngineExactOnEveryQuestion asks every question of the bench's sets
// (RHELM, RealMem, a small lifelike history, and the synthetic set) with
// the engine's check on: each candidate query is also scored exhaustively,
// and a pruned top-k that differs in one document, score or order fails
// the run. (Issue 19: "the pruned top-k must equal the exhaustive top-k of
// the same scoring on every bench question".)
func TestEngineExactOnEveryQuestion(t *testing.T) {
	if testing.Short() {
		t.Skip("asks every bench question twice")
	}
	ctx := context.Background()
	root := filepath.Join("..", "..")
	cfgs := []Config{{Name: DefaultName, Apply: func(o *recall.Options) { o.CheckExact = true }}}
	if dir := dataDir(root, rhelm.DefaultDir); exists(dir) {
		outs, err := RunRHELM(ctx, RHELMOptions{DataDir: dir, Configs: cfgs})
		if err != nil {
			t.Fatalf("rhelm: %v", err)
		}
		t.Logf("rhelm: %d outcomes, all exact", len(outs))
	} else {
		t.Logf("no RHELM at %s", dir)
	}
	if dir := dataDir(root, realmem.DefaultDir); exists(dir) {
		outs, err := RunRealMem(ctx, RealMemOptions{DataDir: dir, Configs: cfgs})
		if err != nil {
			t.Fatalf("realmem: %v", err)
		}
		t.Logf("realmem: %d outcomes, all exact", len(outs))
	} else {
		t.Logf("no RealMem at %s", dir)
	}
	outs, err := RunLifelike(ctx, LifelikeOptions{N: 300, Seed: 1, Cache: t.TempDir(), Configs: cfgs})
	if err != nil {
		t.Fatalf("lifelike: %v", err)
	}
	t.Logf("lifelike N=300: %d outcomes, all exact", len(outs))
}

// dataDir finds a data set beside the worktree, or beside the folder of
// worktrees.
func dataDir(root, rel string) string {
	if d := filepath.Join(root, rel); exists(d) {
		return d
	}
	return filepath.Join(root, "..", rel)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
