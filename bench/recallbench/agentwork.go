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

	"github.com/ireneo-app/ireneo/bench/agentwork"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
)

// AgentworkOptions configure a run on the agentwork set: a developer's
// chats and agent sessions at realistic length, asked identifier questions.
type AgentworkOptions struct {
	N    int
	Seed int64
	// Cache is where the memory is kept between runs, one folder per
	// (N, Seed); empty: the user's cache dir.
	Cache     string
	Configs   []Config
	Questions int // cap per type (0: all)
	Log       io.Writer
	Now       time.Time // the time of asking; zero is AgentworkNow
}

// AgentworkMemory returns the memory of agentwork's history of (n, seed),
// building it once (the sessions ingested as the importers would hand them
// over, 250 a batch) and keeping it under cache. It also returns the
// dataset.
func AgentworkMemory(ctx context.Context, cache string, n int, seed int64, log io.Writer) (*memory.Memory, string, *agentwork.Dataset, error) {
	if cache == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			c = os.TempDir()
		}
		cache = filepath.Join(c, "ireneo-bench")
	}
	dir := filepath.Join(cache, fmt.Sprintf("agentwork-n%d-s%d", n, seed))
	memDir := filepath.Join(dir, "memory")
	stamp := filepath.Join(dir, "imported")
	d := agentwork.Generate(agentwork.Config{N: n, Seed: seed})
	h := sha256.New()
	fmt.Fprintf(h, "generator %d\n", agentwork.Version)
	for _, q := range d.Questions {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\n", q.ID, q.Text, q.SessionID, q.TurnUUID)
	}
	fp := hex.EncodeToString(h.Sum(nil))
	if old, err := os.ReadFile(stamp); err != nil || string(old) != fp {
		os.RemoveAll(dir)
		t0 := time.Now()
		m, err := memory.Open(memDir)
		if err != nil {
			return nil, "", nil, err
		}
		var batch []*funes.Session
		flush := func() error {
			_, err := m.Ingest(ctx, batch, memory.IngestOptions{})
			batch = batch[:0]
			return err
		}
		err = d.Sessions(func(s *funes.Session) error {
			if batch = append(batch, s); len(batch) == 250 {
				return flush()
			}
			return nil
		})
		if err == nil && len(batch) > 0 {
			err = flush()
		}
		m.Close()
		if err != nil {
			return nil, "", nil, fmt.Errorf("agentwork ingest: %w", err)
		}
		if log != nil {
			fmt.Fprintf(log, "agentwork N=%d: generated and ingested in %v\n", n, time.Since(t0).Round(time.Millisecond))
		}
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

// RunAgentwork asks agentwork's questions of the floor and each
// configuration: hit@3 and hit@1 (a hit from the gold conversation among
// the first k), turn@3 and turn@1 (the gold turn itself).
func RunAgentwork(ctx context.Context, opts AgentworkOptions) ([]Outcome, error) {
	m, memDir, d, err := AgentworkMemory(ctx, opts.Cache, opts.N, opts.Seed, opts.Log)
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
		o := Outcome{Set: SetAgentwork, Type: q.Type, Q: qi, Held: heldOut(qi)}
		ro := recall.Options{Query: q.Text, K: 3, Budget: recallBudget, Now: orNow(opts.Now, AgentworkNow)}
		got, err := askAll(ctx, fl, m, opts.Configs, o, ro, func(hits []hitID) []float64 { return agentworkScore(q, hits) })
		if err != nil {
			return nil, err
		}
		outs = append(outs, got...)
	}
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, "agentwork N=%d: %d questions asked %v\n", opts.N, len(outs)/(len(opts.Configs)+1), perType)
	}
	return outs, nil
}

func agentworkScore(q agentwork.Question, hits []hitID) []float64 {
	conv, turn := 0, 0
	for i, h := range hits {
		if h.harness != q.Harness || h.session != q.SessionID {
			continue
		}
		if conv == 0 {
			conv = i + 1
		}
		if turn == 0 && h.turn == q.TurnUUID {
			turn = i + 1
		}
	}
	return []float64{b2f(conv >= 1 && conv <= 3), b2f(conv == 1), b2f(turn >= 1 && turn <= 3), b2f(turn == 1)}
}
