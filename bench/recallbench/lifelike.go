package recallbench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ireneo-app/ireneo/bench/lifelike"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
)

// LifelikeOptions configure a run on the independent generator's history.
type LifelikeOptions struct {
	N    int
	Seed int64
	// Cache is where the imported memory is kept between runs, one folder
	// per (N, Seed); empty: the user's cache dir.
	Cache     string
	Configs   []Config
	Questions int // cap per type (0: all)
	Log       io.Writer
	Now       time.Time // the time of asking; zero is LifelikeNow
}

// LifelikeMemory returns the memory imported from lifelike's history of
// (n, seed), building it once: the exports are written and imported
// through importers.Run (the `ireneo import` path), then the exports are
// removed and the memory kept under cache. It also returns the dataset.
func LifelikeMemory(ctx context.Context, cache string, n int, seed int64, log io.Writer) (*memory.Memory, string, *lifelike.Dataset, error) {
	if cache == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			c = os.TempDir()
		}
		cache = filepath.Join(c, "ireneo-bench")
	}
	dir := filepath.Join(cache, fmt.Sprintf("lifelike-n%d-s%d", n, seed))
	memDir := filepath.Join(dir, "memory")
	stamp := filepath.Join(dir, "imported")
	d := lifelike.Generate(lifelike.Config{N: n, Seed: seed})
	// The generator may change between runs: a memory imported from another
	// history would score every question a miss.
	fp := fingerprint(d)
	if old, err := os.ReadFile(stamp); err != nil || string(old) != fp {
		os.RemoveAll(dir)
		exp := filepath.Join(dir, "exports")
		t0 := time.Now()
		if err := d.WriteExports(exp); err != nil {
			return nil, "", nil, fmt.Errorf("lifelike exports: %w", err)
		}
		m, err := memory.Open(memDir)
		if err != nil {
			return nil, "", nil, err
		}
		sum, err := importers.Run(ctx, m, []string{exp}, importers.Options{})
		if err != nil {
			m.Close()
			return nil, "", nil, fmt.Errorf("lifelike import: %w", err)
		}
		if log != nil {
			fmt.Fprintf(log, "lifelike N=%d: wrote and imported %d inputs (%d new, %d failed) in %v\n",
				n, sum.Inputs, sum.New, len(sum.Failures), time.Since(t0).Round(time.Millisecond))
		}
		m.Close()
		os.RemoveAll(exp)
		if err := os.WriteFile(stamp, []byte(fp), 0o644); err != nil {
			return nil, "", nil, err
		}
	}
	m, err := memory.Open(memDir) // an index of an older layout is rebuilt here
	if err != nil {
		return nil, "", nil, err
	}
	return m, memDir, d, nil
}

// RunLifelike asks lifelike's questions of the floor and each
// configuration: hit@1 and hit@3 (a hit from the gold conversation among
// the first k), R@5 (the gold conversation among the sessions of the top 5),
// turn@3 (an evidence turn itself among the first 3) and turn R@5 (the
// share of the evidence turns among the first 5); the turn metrics only
// where the question names its turns.
func RunLifelike(ctx context.Context, opts LifelikeOptions) ([]Outcome, error) {
	m, memDir, d, err := LifelikeMemory(ctx, opts.Cache, opts.N, opts.Seed, opts.Log)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	fl, err := floorOf(ctx, memDir)
	if err != nil {
		return nil, err
	}
	defer fl.Close()
	perType := map[string]int{}
	var outs []Outcome
	for qi, q := range d.Questions {
		if opts.Questions > 0 && perType[q.Type] >= opts.Questions {
			continue
		}
		perType[q.Type]++
		o := Outcome{Set: SetLifelike, Type: q.Type, Q: qi, Held: heldOut(qi)}
		ro := recall.Options{Query: q.Text, K: 5, Budget: recallBudget, Now: orNow(opts.Now, LifelikeNow)}
		got, err := askAll(ctx, fl, m, opts.Configs, o, ro, func(hits []hitID) []float64 { return lifelikeScore(q, hits) })
		if err != nil {
			return nil, err
		}
		outs = append(outs, got...)
	}
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, "lifelike N=%d: %d questions asked %v\n", opts.N, len(outs)/(len(opts.Configs)+1), perType)
	}
	return outs, nil
}

func lifelikeScore(q lifelike.Question, hits []hitID) []float64 {
	rank := 0
	for i, h := range hits {
		if h.harness == q.Harness && h.session == q.SessionID {
			rank = i + 1
			break
		}
	}
	// Turn metrics apply only where the question names its turns.
	turn3, turn5 := NA, NA
	if len(q.TurnUUIDs) > 0 {
		gold := map[string]bool{}
		for _, t := range q.TurnUUIDs {
			gold[t] = true
		}
		turn3 = 0
		found := map[string]bool{}
		for i := 0; i < 5 && i < len(hits); i++ {
			if hits[i].harness == q.Harness && hits[i].session == q.SessionID && gold[hits[i].turn] {
				if i < 3 {
					turn3 = 1
				}
				found[hits[i].turn] = true
			}
		}
		turn5 = float64(len(found)) / float64(len(gold))
	}
	return []float64{b2f(rank >= 1 && rank <= 3), b2f(rank == 1), b2f(rank >= 1 && rank <= 5), turn3, turn5}
}

// fingerprint identifies a lifelike history by its questions and their
// gold conversations.
func fingerprint(d *lifelike.Dataset) string {
	h := sha256.New()
	for _, q := range d.Questions {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\n", q.ID, q.Text, q.Harness, q.SessionID, q.Answer)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// orNow is t, or def when t is zero.
func orNow(t, def time.Time) time.Time {
	if t.IsZero() {
		return def
	}
	return t
}
