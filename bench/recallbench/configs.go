package recallbench

import (
	"fmt"
	"strings"

	"github.com/ireneo-app/ireneo/memory"
)

// Config is one named recall configuration: Apply edits the options of
// every recall the benchmark makes with it (nil leaves them as they are,
// the pipeline Ireneo ships).
type Config struct {
	Name  string
	Apply func(*memory.RecallOptions)
}

// DefaultName names the shipped pipeline in reports.
const DefaultName = "ireneo"

// Default is the shipped pipeline.
func Default() Config { return Config{Name: DefaultName} }

// tuned is a configuration that starts from base and edits its tuning.
func tuned(name string, base memory.Tuning, edit func(*memory.Tuning)) Config {
	return Config{Name: name, Apply: func(o *memory.RecallOptions) {
		t := base
		if edit != nil {
			edit(&t)
		}
		o.Tuning = &t
	}}
}

// stage is one pipeline stage the ablations switch: on sets it as shipped
// (from DefaultTuning), off takes it out.
type stage struct {
	name    string
	on, off func(t *memory.Tuning)
}

var stages = []stage{
	{"ids", // identifier-aware tokenizing: the identifier column
		func(t *memory.Tuning) { t.NoIDs = false; t.IDWeight = memory.DefaultTuning.IDWeight },
		func(t *memory.Tuning) { t.NoIDs = true }},
	{"stopwords", // stopwords and question words dropped from the query
		func(t *memory.Tuning) { t.NoStopwords = false },
		func(t *memory.Tuning) { t.NoStopwords = true }},
	{"longq", // long-question handling: the commonest words pruned by cost
		func(t *memory.Tuning) { t.PostingShare = memory.DefaultTuning.PostingShare },
		func(t *memory.Tuning) { t.PostingShare = 0 }},
	{"fields", // field weights, title against body
		func(t *memory.Tuning) {
			t.BodyWeight, t.TitleWeight = memory.DefaultTuning.BodyWeight, memory.DefaultTuning.TitleWeight
		},
		func(t *memory.Tuning) { t.BodyWeight, t.TitleWeight = 1, 0 }},
	{"coverage", // the IDF-weighted share of the query a chunk covers, in the score
		func(t *memory.Tuning) { t.CoverPower = memory.DefaultTuning.CoverPower },
		func(t *memory.Tuning) { t.CoverPower = 0 }},
	{"ties", // newest first among chunks that say the same thing (knowledge updates)
		func(t *memory.Tuning) {
			t.TieShare, t.TieShareRecent = memory.DefaultTuning.TieShare, memory.DefaultTuning.TieShareRecent
		},
		func(t *memory.Tuning) { t.TieShare, t.TieShareRecent = 0, 0 }},
	{"neighbors",
		func(t *memory.Tuning) { t.NoNeighbors = false },
		func(t *memory.Tuning) { t.NoNeighbors = true }},
	{"diversity", // a conversation's further hits discounted
		func(t *memory.Tuning) { t.SameSession = memory.DefaultTuning.SameSession },
		func(t *memory.Tuning) { t.SameSession = 1 }},
	{"recency",
		func(t *memory.Tuning) {
			t.HalfLifeDays, t.RecencyWeight = memory.DefaultTuning.HalfLifeDays, memory.DefaultTuning.RecencyWeight
		},
		func(t *memory.Tuning) { t.HalfLifeDays = 0 }},
}

// bareTuning is the pipeline with every stage off: BM25 over the body.
func bareTuning() memory.Tuning {
	t := memory.DefaultTuning
	for _, s := range stages {
		s.off(&t)
	}
	return t
}

// Ablations are the named configurations -ablation chooses from: the
// shipped pipeline; "bare", every stage off; "+STAGE", bare with one stage
// on; "-STAGE", the shipped pipeline with one stage off.
func Ablations() []Config {
	out := []Config{Default(), tuned("bare", bareTuning(), nil)}
	for _, s := range stages {
		out = append(out, tuned("+"+s.name, bareTuning(), s.on))
	}
	for _, s := range stages {
		out = append(out, tuned("-"+s.name, memory.DefaultTuning, s.off))
	}
	return out
}

// SelectConfigs picks configurations by comma-separated names; "all" picks
// every one, "" the shipped pipeline alone.
func SelectConfigs(names string) ([]Config, error) {
	all := Ablations()
	if names == "" {
		return all[:1], nil
	}
	if names == "all" {
		return all, nil
	}
	var out []Config
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		found := false
		for _, c := range all {
			if c.Name == n {
				out = append(out, c)
				found = true
				break
			}
		}
		if !found {
			var known []string
			for _, c := range all {
				known = append(known, c.Name)
			}
			return nil, fmt.Errorf("unknown configuration %q (known: %s, all)", n, strings.Join(known, ", "))
		}
	}
	return out, nil
}
