package recall

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/o200k"
)

// Recall defaults.
const (
	DefaultK      = 8
	DefaultBudget = 2000
	MaxK          = 50
)

// Options is one recall request.
type Options struct {
	Query   string
	Project string // that project plus untagged conversations; "" means all
	// ProjectOnly drops the untagged conversations from Project: a person
	// browsing one project's own conversations (agents keep the default).
	ProjectOnly bool
	// Untagged keeps only conversations with no project.
	Untagged bool
	Source   string // harness
	Since    time.Time
	Until    time.Time
	K        int
	// Offset skips the first hits of the ranking: the next page of a
	// list (the GUI's "Show more"); each page is at most MaxK hits.
	Offset int
	Budget int
	// Scope, for a scoped token: only conversations tagged with one of these.
	Scope []string
	// Tuning overrides the ranking pipeline, for ablations; nil is the default.
	Tuning *Tuning
}

// Result is what recall returns: a context block for agents and the
// structured hits behind it (package answer owns it, its rendering and the
// budget that fits it).
type Result = answer.RecallResult

// Hit is one recalled passage with its receipt.
type Hit = answer.Hit

// Neighbor is a short preview of the turn before or after a hit.
type Neighbor = answer.Neighbor

// Signals are the parts of a hit's score.
type Signals = answer.Signals

// ErrEmptyQuery is returned for a query with nothing to search for.
var ErrEmptyQuery = errors.New("empty query")

// candidate is one chunk on its way through the ranking stages.
type candidate struct {
	chunk, sess     int64 // chunk: the chunk shown, 0 until hydrate picks one
	seq             int
	bm25            float64            // the engine's BM25F score negated: lower is better, as FTS5's bm25() was
	fields          []engine.FieldMask // per engine query term: the turn's fields that hold it
	unnamed         bool               // harness, sid, title and uuid are read by hydrate
	harness, sid    string
	title, uuid     string
	role            string
	ts              int64
	starred         bool
	rel, rec, score float64
	cov             float64
	stopCov         float64 // the share of the question's stopwords it holds
	stopIDF         float64 // the IDF of the question's stopwords it holds
	tokens          int     // the chunk's own o200k count, stored at import
	turnChunks      int     // chunks in the candidate's turn, when asked for
	body            string  // filled by cover
}

func (c candidate) turn() memory.TurnKey { return memory.TurnKey{Sess: c.sess, Seq: c.seq} }

// Recall finds the passages of m that best answer a query, within a token
// budget.
func Recall(ctx context.Context, m *memory.Memory, o Options) (*Result, error) {
	g, err := gather(ctx, m, o)
	if err != nil {
		return nil, err
	}
	return present(ctx, m, g)
}

// gathered is a request's candidates with what ranking them needs.
type gathered struct {
	o     Options
	tn    Tuning
	plan  memory.QueryPlan
	cands []candidate
	tie   float64
}

// gather plans the query, asks the engine for candidates and fills in the
// signals ranking reads of them.
func gather(ctx context.Context, m *memory.Memory, o Options) (*gathered, error) {
	tn := DefaultTuning
	if o.Tuning != nil {
		tn = *o.Tuning
	}
	if o.K <= 0 {
		o.K = DefaultK
	}
	o.K = min(o.K, MaxK)
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if rs := []rune(o.Query); len(rs) > memory.MaxQueryRunes {
		o.Query = string(rs[:memory.MaxQueryRunes])
	}
	plan := memory.PlanQuery(o.Query, !tn.NoStopwords)
	if tn.KeepStopsOver > 0 && !tn.NoStopwords && len(plan.IDs) == 0 && len(plan.All) > tn.KeepStopsOver {
		// A long paraphrase: its function words ("I", "my") tell a person's
		// own telling apart from replies about it, as they do for plain BM25.
		plan = memory.PlanQuery(o.Query, false)
	}
	if tn.PostingShare > 0 && len(plan.Terms) > 1 {
		if err := pruneCommon(ctx, m, &plan, tn.PostingShare); err != nil {
			return nil, err
		}
	}
	// The stopword stages, and the engine's probes they need, only for
	// short questions (StopMaxTerms).
	if n := len(plan.All) + len(plan.IDs); tn.StopMaxTerms > 0 && n > tn.StopMaxTerms {
		tn.StopWeight, tn.StopAdd = 0, 0
	}
	// The engine's pool: the tuning's candidates, but at least 4 for each
	// hit asked (a long list is ranked from as deep a pool as the default
	// 8 hits are) and every hit up to the page's end (paging goes on past
	// the pool).
	tn.Candidates = max(tn.Candidates, 4*o.K, o.K+max(o.Offset, 0))
	cands, err := fetchCandidates(ctx, m, plan, o, tn)
	if err != nil {
		return nil, err
	}
	if n := len(plan.All) + len(plan.IDs); tn.CoverMaxTerms > 0 && n > tn.CoverMaxTerms ||
		len(plan.IDs) == 0 && tn.CoverMaxPlain > 0 && n > tn.CoverMaxPlain {
		tn.CoverPower = 0
	}
	stops := tn.StopWeight > 0 || tn.StopAdd > 0
	if tn.CoverPower > 0 || tn.TieShare > 0 || tn.TieShareRecent > 0 || stops {
		if err := cover(ctx, m, plan, engineTerms(plan, tn), cands, stops); err != nil {
			return nil, err
		}
	}
	if err := semantic(ctx, m, o.Query, cands, tn); err != nil {
		return nil, err
	}
	// Newest-first among equals is for repeated reports of one thing: a
	// question about an identified thing, or one that asks for the latest.
	tie := 0.0
	switch {
	case plan.Recent:
		tie = tn.TieShareRecent
	case len(plan.IDs) > 0:
		tie = tn.TieShare
	}
	if tn.TurnLenPower > 0 {
		if err := turnChunks(ctx, m, cands); err != nil {
			return nil, err
		}
	}
	return &gathered{o: o, tn: tn, plan: plan, cands: cands, tie: tie}, nil
}

// present ranks the gathered candidates and shows the best: hydrated, fit
// to the budget, and rendered as the context block (package answer).
func present(ctx context.Context, m *memory.Memory, g *gathered) (*Result, error) {
	o := g.o
	tn := g.tn
	speaker := g.plan.Speaker
	if tn.FirstPerson > 0 && (speaker == funes.RoleUser || speaker == "" && firstPerson(o.Query)) && !asksForAdvice(o.Query) {
		speaker, tn.SpeakerWeight = funes.RoleUser, tn.FirstPerson
	}
	ranked := rank(g.cands, o.K+max(o.Offset, 0), tn, g.tie, speaker)
	ranked = ranked[min(max(o.Offset, 0), len(ranked)):]
	hits, err := hydrate(ctx, m, g.plan, ranked, g.tn)
	if err != nil {
		return nil, err
	}
	return answer.FitRecall(o.Query, hits, o.Budget, o200k.Count), nil
}

// pruneCommon keeps the query's rarest words while the chunks they match
// stay under share of the index: a word in a third of all chunks costs
// FTS5 a third of the index to score and says little about relevance.
func pruneCommon(ctx context.Context, m *memory.Memory, p *memory.QueryPlan, share float64) error {
	df, _, total, err := m.TermFrequencies(ctx, p.Terms)
	if err != nil {
		return err
	}
	terms := append([]string(nil), p.Terms...)
	sort.SliceStable(terms, func(i, j int) bool { return df[terms[i]] < df[terms[j]] })
	limit := int(share * float64(total))
	var kept []string
	sum := 0
	for _, t := range terms {
		// A word found nowhere costs nothing; the rarest found word always stays.
		if sum > 0 && sum+df[t] > limit && df[t]*100 > total {
			continue
		}
		kept = append(kept, t)
		sum += df[t]
	}
	p.Terms = kept
	return nil
}

// turnChunks fills in how many chunks each candidate's turn was cut into.
func turnChunks(ctx context.Context, m *memory.Memory, cands []candidate) error {
	if len(cands) == 0 {
		return nil
	}
	keys := make([]memory.TurnKey, len(cands))
	for i, c := range cands {
		keys[i] = c.turn()
	}
	n, err := m.TurnChunkCounts(ctx, keys)
	if err != nil {
		return err
	}
	for i := range cands {
		cands[i].turnChunks = n[cands[i].turn()]
	}
	return nil
}

// firstPerson reports whether a question speaks of the person ("I", "my",
// "me"). One that asks for the assistant's words ("what did you suggest
// for my back?") is told apart before, by the plan's speaker.
func firstPerson(q string) bool {
	for _, w := range memory.Words(q) {
		switch w {
		case "i", "my", "me", "mine", "myself":
			return true
		}
	}
	return false
}

// asksForAdvice reports whether a question asks for what was suggested,
// recommended or advised ("what was suggested when I asked about …"): the
// answer is the assistant's, however the person says it.
func asksForAdvice(q string) bool {
	for _, w := range memory.Words(q) {
		switch w {
		case "suggest", "suggested", "suggestion", "suggestions", "recommend", "recommended", "recommendation",
			"recommendations", "advice", "advise", "advised", "tip", "tips", "propose", "proposed", "proposal":
			return true
		}
	}
	return false
}
