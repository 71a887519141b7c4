package recall

import (
	"context"
	"errors"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/memory"
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
	// CheckExact also scores every match of the engine's query and fails
	// if its pruning changed the top-k: the bench's proof, on every
	// question it asks. It slows recall down; never set it in production.
	CheckExact bool
}

// Result is what recall returns: a context block for agents and the
// structured hits behind it.
type Result struct {
	Query        string `json:"query"`
	ContextBlock string `json:"context_block"`
	TotalTokens  int    `json:"total_tokens"`
	Budget       int    `json:"budget"`
	Cut          int    `json:"cut"`
	Hits         []Hit  `json:"hits"`
}

// Hit is one recalled passage with its receipt.
type Hit struct {
	SessionID string     `json:"session_id"`
	TurnUUID  string     `json:"turn_uuid"`
	Seq       int        `json:"seq"`
	TS        time.Time  `json:"ts"`
	Role      string     `json:"role"`
	Source    string     `json:"source"`
	Title     string     `json:"title"`
	Projects  []string   `json:"projects"`
	Text      string     `json:"text"`
	Neighbors []Neighbor `json:"neighbors"`
	Score     float64    `json:"score"`
	Signals   Signals    `json:"signals"`
	Tokens    int        `json:"tokens"`
	Truncated bool       `json:"truncated,omitempty"`

	chunk      int64 // the chunk shown
	sess       int64
	textTokens int // o200k tokens of Text as stored, 0 if unknown
}

// Neighbor is a short preview of the turn before or after a hit.
type Neighbor struct {
	Seq  int    `json:"seq"`
	Role string `json:"role"`
	Text string `json:"text"`
}

// Signals are the parts of a hit's score.
type Signals struct {
	BM25       float64 `json:"bm25"`
	Recency    float64 `json:"recency"`
	Importance float64 `json:"importance"`
}

// ErrEmptyQuery is returned for a query with nothing to search for.
var ErrEmptyQuery = errors.New("empty query")

// candidate is one turn on its way through the ranking stages.
type candidate struct {
	sess            int64 // the conversation's row id
	seq             int
	bm25            float64            // the engine's BM25F score negated: lower is better, as FTS5's bm25() was
	fields          []engine.FieldMask // per engine query term: the turn's fields that hold it
	role            string
	ts              int64
	starred         bool
	rel, rec, score float64
	cov             float64
	stopCov         float64 // the share of the question's stopwords it holds
	stopIDF         float64 // the IDF of the question's stopwords it holds
	turnChunks      int     // chunks in the candidate's turn, when asked for
	body            string  // its searched text, when a stage asked for it
}

func (c candidate) turn() memory.TurnKey { return memory.TurnKey{Sess: c.sess, Seq: c.seq} }

// Recall finds the passages of m that best answer a query, within a token
// budget. The road, top down, enters memory three times:
//
//  1. plan the query (plan.go), reading nothing;
//  2. memory.ReadCandidates opens one read snapshot of the memory and
//     reads the engine's candidates with what the ranking stages weigh
//     them by (the words' rarity, the turns' text) — memory, once;
//  3. the ranking stages: coverage (coverage.go), meaning (semantic.go),
//     the score and the list (rank.go);
//  4. the snapshot's Shown reads the turns shown (hydrate.go) — twice;
//  5. the budget and the context block;
//  6. the snapshot closes — three times.
func Recall(ctx context.Context, m *memory.Memory, o Options) (*Result, error) {
	r := newRun(o)
	if !r.et.searched() {
		return nil, ErrEmptyQuery
	}
	snap, err := m.ReadCandidates(ctx, r.readQuery())
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	r.gather(snap)
	return r.present(ctx, snap)
}

// run is one recall on its way down the road: the request, the tuning it is
// ranked by with the stages this query takes, its plan, and its candidates
// once read.
type run struct {
	o    Options
	tn   Tuning
	plan Plan
	et   engineTerms
	// stops: the stopword stages run; cover: coverage is computed; vectors:
	// the semantic stage runs.
	stops, cover, vectors bool
	tie                   float64        // the newest-first share among ties (TieShare, TieShareRecent)
	terms                 []weightedTerm // the query's words and identifiers weighed by rarity
	cands                 []candidate
}

// newRun plans a request: its defaults, its query's plan and engine terms,
// and which stages its query takes.
func newRun(o Options) *run {
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
	plan := planQuery(o.Query, !tn.NoStopwords)
	if tn.KeepStopsOver > 0 && !tn.NoStopwords && len(plan.IDs) == 0 && len(plan.All) > tn.KeepStopsOver {
		// A long paraphrase: its function words ("I", "my") tell a person's
		// own telling apart from replies about it, as they do for plain BM25.
		plan = planQuery(o.Query, false)
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
	if n := len(plan.All) + len(plan.IDs); tn.CoverMaxTerms > 0 && n > tn.CoverMaxTerms ||
		len(plan.IDs) == 0 && tn.CoverMaxPlain > 0 && n > tn.CoverMaxPlain {
		tn.CoverPower = 0
	}
	r := &run{o: o, tn: tn, plan: plan}
	r.stops = tn.StopWeight > 0 || tn.StopAdd > 0
	r.cover = tn.CoverPower > 0 || tn.TieShare > 0 || tn.TieShareRecent > 0 || r.stops
	r.vectors = tn.VectorWeight > 0 && !asksWhen(o.Query)
	r.et = plan.engineTerms(!tn.NoIDs, tn.DateWeight > 0, tn.StopWeight > 0 || tn.StopAdd > 0 && !tn.StopFromText)
	// Newest-first among equals is for repeated reports of one thing: a
	// question about an identified thing, or one that asks for the latest.
	switch {
	case plan.Recent:
		r.tie = tn.TieShareRecent
	case len(plan.IDs) > 0:
		r.tie = tn.TieShare
	}
	return r
}

// gather fills in, from the snapshot's candidates, the signals ranking
// reads of them: coverage of the query and its stopwords, and meaning.
func (r *run) gather(snap *memory.RecallSnapshot) {
	r.cands = make([]candidate, len(snap.Candidates))
	for i, c := range snap.Candidates {
		r.cands[i] = candidate{
			sess: c.Sess, seq: c.Seq, bm25: c.BM25, role: c.Role, ts: c.TS, starred: c.Starred,
			fields: c.Fields, body: c.Text, turnChunks: c.Chunks,
		}
	}
	r.terms = coverageTerms(snap, r.plan)
	if r.cover {
		var stopTerms []weightedTerm
		if r.stops {
			stopTerms = weighWords(snap, r.plan.Stops)
		}
		cover(r.cands, r.terms, stopTerms, r.et)
	}
	if r.vectors {
		semantic(r.o.Query, r.cands, snap.Around, r.tn)
	}
}

// present ranks the gathered candidates and shows the best: read from the
// snapshot, fit to the budget, and rendered as the context block.
func (r *run) present(ctx context.Context, snap *memory.RecallSnapshot) (*Result, error) {
	o := r.o
	res := &Result{Query: o.Query, Budget: o.Budget, Hits: []Hit{}}
	tn := r.tn
	speaker := r.plan.Speaker
	if tn.FirstPerson > 0 && (speaker == memory.RoleUser || speaker == "" && firstPerson(o.Query)) && !asksForAdvice(o.Query) {
		speaker, tn.SpeakerWeight = memory.RoleUser, tn.FirstPerson
	}
	ranked := rank(r.cands, o.K+max(o.Offset, 0), tn, r.tie, speaker)
	ranked = ranked[min(max(o.Offset, 0), len(ranked)):]
	hits, err := hydrate(ctx, snap, r.terms, ranked)
	if err != nil {
		return nil, err
	}
	fitBudget(res, hits, o.Budget)
	res.ContextBlock = contextBlock(o.Query, res)
	return res, nil
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
