package recallbench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ireneo-app/ireneo/bench/realmem"
	"github.com/ireneo-app/ireneo/recall"
)

// RealMemOptions configure a RealMem run.
type RealMemOptions struct {
	DataDir string // the persona files; realmem.DefaultDir if empty
	Configs []Config
	// Queries caps the queries asked per persona (0: all).
	Queries int
	Log     io.Writer
}

// recallBudget is large enough that the token budget never cuts a hit:
// the sets score the ranking, and the budget is tested on its own.
const recallBudget = 1 << 20

// RunRealMem asks every RealMem query of the floor and of each
// configuration, searching only the sessions before the query, and scores
// the share of its evidence sessions among the sessions of the top 5 and
// 10 hits (conversation level), and the share of its evidence turns among
// the top 5 and 10 hits themselves (turn level). Personas alternate
// between the tuning and the held-out half.
func RunRealMem(ctx context.Context, opts RealMemOptions) ([]Outcome, error) {
	if opts.DataDir == "" {
		opts.DataDir = realmem.DefaultDir
	}
	personas, err := realmem.Load(opts.DataDir)
	if err != nil {
		return nil, err
	}
	return perMemory(SetRealMem, personas, func(p *realmem.Persona) string { return p.Name },
		func(dir string, p *realmem.Persona, pi int, qi *int) ([]Outcome, error) {
			return runPersona(ctx, dir, p, pi, qi, opts)
		})
}

// perMemory runs each person of a set in a memory of their own, in a
// temporary folder removed after, numbering questions across people (qi).
func perMemory[P any](set string, people []P, name func(P) string, run func(dir string, p P, pi int, qi *int) ([]Outcome, error)) ([]Outcome, error) {
	tmp, err := os.MkdirTemp("", "ireneo-bench-"+set+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var outs []Outcome
	qi := 0
	for pi, p := range people {
		o, err := run(filepath.Join(tmp, fmt.Sprint(pi)), p, pi, &qi)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", set, name(p), err)
		}
		outs = append(outs, o...)
	}
	return outs, nil
}

func runPersona(ctx context.Context, dir string, p *realmem.Persona, pi int, qi *int, opts RealMemOptions) ([]Outcome, error) {
	t0 := time.Now()
	m, fl, err := memoryAndFloor(ctx, dir, p.Sessions)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	defer fl.Close()
	qs := p.Queries
	if opts.Queries > 0 && len(qs) > opts.Queries {
		qs = qs[:opts.Queries]
	}
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, "realmem %s: %d sessions indexed in %v, %d queries\n", p.Name, len(p.Sessions), time.Since(t0).Round(time.Millisecond), len(qs))
	}
	var outs []Outcome
	for _, q := range qs {
		n := *qi
		*qi++
		o := Outcome{Set: SetRealMem, Type: q.Type, Q: n, Held: heldOut(pi)}
		ro := recall.Options{Query: q.Text, Until: q.Before, Now: q.Before, K: 10, Budget: recallBudget}
		got, err := askAll(ctx, fl, m, opts.Configs, o, ro, func(hits []hitID) []float64 {
			sids, turns := make([]string, len(hits)), make([]string, len(hits))
			for i, h := range hits {
				sids[i], turns[i] = h.session, h.turn
			}
			return realMemScore(q, sids, turns)
		})
		if err != nil {
			return nil, err
		}
		outs = append(outs, got...)
	}
	return outs, nil
}

// realMemScore is R@5 and R@10 over the hits' sessions, then over the hits'
// turns (NA for a query without turn evidence).
func realMemScore(q realmem.Query, sids, turns []string) []float64 {
	v := []float64{realmem.RecallAt(q.Evidence, sids, 5), realmem.RecallAt(q.Evidence, sids, 10), NA, NA}
	if len(q.EvidenceTurns) > 0 {
		v[2], v[3] = realmem.RecallAt(q.EvidenceTurns, turns, 5), realmem.RecallAt(q.EvidenceTurns, turns, 10)
	}
	return v
}
