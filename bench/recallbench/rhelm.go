package recallbench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ireneo-app/ireneo/bench/rhelm"
	"github.com/ireneo-app/ireneo/recall"
)

// RHELMOptions configure a RHELM run.
type RHELMOptions struct {
	DataDir string // the data set; rhelm.DefaultDir if empty
	Configs []Config
	// Questions caps the questions asked per person (0: all).
	Questions int
	Log       io.Writer
}

// rhelmK is how many hits each system is asked for.
const rhelmK = 10

// RunRHELM asks every RHELM question with turn evidence of the floor and of
// each configuration, one memory per person, searching only the sessions
// before the question's date. Turn level: the share of its evidence turns
// among the top 5 and 10 hits (a turn counts when either of its two
// messages is hit) and whether any is in the top 5; conversation level: the
// share of its evidence sessions among the top 5 hits' sessions, and
// whether any is. People alternate between the tuning and the held-out
// half.
func RunRHELM(ctx context.Context, opts RHELMOptions) ([]Outcome, error) {
	if opts.DataDir == "" {
		opts.DataDir = rhelm.DefaultDir
	}
	people, err := rhelm.Load(opts.DataDir)
	if err != nil {
		return nil, err
	}
	return perMemory(SetRHELM, people, func(p *rhelm.Person) string { return p.Name },
		func(dir string, p *rhelm.Person, pi int, qi *int) ([]Outcome, error) {
			return runRHELMPerson(ctx, dir, p, pi, qi, opts)
		})
}

func runRHELMPerson(ctx context.Context, dir string, p *rhelm.Person, pi int, qi *int, opts RHELMOptions) ([]Outcome, error) {
	t0 := time.Now()
	m, fl, err := memoryAndFloor(ctx, dir, p.Sessions)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	defer fl.Close()
	qs := p.Questions
	if opts.Questions > 0 && len(qs) > opts.Questions {
		qs = qs[:opts.Questions]
	}
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, "rhelm %s: %d sessions indexed in %v, %d questions\n", p.Name, len(p.Sessions), time.Since(t0).Round(time.Millisecond), len(qs))
	}
	var outs []Outcome
	for _, q := range qs {
		n := *qi
		*qi++
		o := Outcome{Set: SetRHELM, Type: q.Type, Q: n, Held: heldOut(pi)}
		ro := recall.Options{Query: q.Text, Until: q.Before, Now: q.Before, K: rhelmK, Budget: recallBudget}
		got, err := askAll(ctx, fl, m, opts.Configs, o, ro, func(hits []hitID) []float64 { return rhelmScore(q, hits) })
		if err != nil {
			return nil, err
		}
		outs = append(outs, got...)
	}
	return outs, nil
}

// rhelmScore is turn R@5, turn hit@5, turn R@10, conv R@5 and conv hit@5.
func rhelmScore(q rhelm.Question, hits []hitID) []float64 {
	turnShare := func(k int) (float64, bool) {
		msgs := map[string]bool{}
		for i := 0; i < k && i < len(hits); i++ {
			msgs[hits[i].turn] = true
		}
		got := 0
		for _, e := range q.Evidence {
			u := e.MessageUUIDs()
			if msgs[u[0]] || msgs[u[1]] {
				got++
			}
		}
		return float64(got) / float64(len(q.Evidence)), got > 0
	}
	t5, any5 := turnShare(5)
	t10, _ := turnShare(10)
	gold := map[string]bool{}
	for _, e := range q.Evidence {
		gold[rhelm.SessionID(e.Session)] = true
	}
	found := map[string]bool{}
	for i := 0; i < 5 && i < len(hits); i++ {
		if gold[hits[i].session] {
			found[hits[i].session] = true
		}
	}
	return []float64{t5, b2f(any5), t10, float64(len(found)) / float64(len(gold)), b2f(len(found) > 0)}
}
