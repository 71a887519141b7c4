package recall

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/o200k"
	"github.com/ireneo-app/ireneo/querywords"
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
	// Now is the time of asking, which the question's dates resolve
	// against ("last week", "in July": the latest July before it); zero is
	// the clock's.
	Now time.Time
	K   int
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
	passage         int     // 1 + the engine's best passage of a long turn, 0 for none: hydrate shows it
	inSpan          bool    // inside the question's explicit span
	spanRank        int     // snapCandidate.SpanRank
	when            float64 // how well its time fits the question's loose dates or order (0..1)
	turnChunks      int     // chunks in the candidate's turn, when asked for
	body            string  // its searched text, when a stage asked for it
	preview         string  // its stored preview, when a stage asked for it
	echo            bool    // it says nothing but the query's words
	copies          int     // other conversations' turns of the same text, folded into it
	idShare         float64 // the share of the question's identifiers it holds whole
}

func (c candidate) turn() memory.TurnKey { return memory.TurnKey{Sess: c.sess, Seq: c.seq} }

// Recall finds the passages of m that best answer a query, within a token
// budget. The road, top down, enters memory three times:
//
//  1. plan the query (plan.go), reading nothing;
//  2. openSnapshot (reads.go) opens one read transaction of the memory
//     (memory.BeginRead) and reads through it the engine's candidates with
//     what the ranking stages weigh them by (the words' rarity, the turns'
//     text) — memory, once;
//  3. the ranking stages: coverage (coverage.go), meaning (semantic.go),
//     the score and the list (rank.go);
//  4. the snapshot's Shown reads the turns shown (hydrate.go, shown.go)
//     through the same transaction — twice;
//  5. the budget and the context block (package answer);
//  6. the snapshot closes — three times.
//
// Two cases read more: a question naming days none of whose turns holds
// its words reads those days again for all its words (when.go, widened),
// and, when not one of those days' turns holds any, lists them
// (spandays.go); and a page that copies folded into fewer hits than asked
// for, while the engine holds more, is read again four times as deep
// (Recall's loop), so that it is the page a larger request would give.
func Recall(ctx context.Context, m *memory.Memory, o Options) (*Result, error) {
	r := newRun(o)
	if !r.et.searched() {
		return nil, ErrEmptyQuery
	}
	for {
		snap, run, err := r.read(ctx, m)
		if err != nil {
			return nil, err
		}
		run.gather(snap)
		ranked, tn := run.rankHits()
		if len(ranked) < o.K+max(o.Offset, 0) && snap.More && r.depth < maxDepth {
			// Copies folded into one hit left the page short, and the
			// engine holds more: the list a deeper request would give.
			snap.Close()
			r.depth *= 4
			continue
		}
		defer snap.Close()
		return run.present(ctx, snap, ranked, tn)
	}
}

// maxDepth bounds how deep a recall reads the engine's pool when copies
// fold the first layers into few hits (Recall).
const maxDepth = 3200

// read opens the run's snapshot and reads its candidates. A question whose
// days hold none of its words reads again (widened: the run it returns).
func (r *run) read(ctx context.Context, m *memory.Memory) (*snapshot, *run, error) {
	snap, err := openSnapshot(ctx, m, r.readQuery())
	if err != nil {
		return nil, nil, err
	}
	if r.dated && !r.anyInSpan(snap) {
		// Nothing in the question's days holds its words: those days'
		// turns, searched for every word of it, when any does.
		if wide := r.widened(); wide != nil {
			ws, err := openSnapshot(ctx, m, wide.readQuery())
			if err != nil {
				snap.Close()
				return nil, nil, err
			}
			if len(ws.Candidates) > 0 {
				snap.Close()
				snap, r = ws, wide
			} else {
				ws.Close()
			}
		}
		if r.dated && !r.anyInSpan(snap) {
			// Not a word of it there at all: those days' turns themselves
			// (spandays.go), read in the same snapshot.
			if err := r.addDayTurns(ctx, snap, r.depth); err != nil {
				snap.Close()
				return nil, nil, err
			}
		}
	}
	return snap, r, nil
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
	layer, depth          int                     // the first layer of the engine's pool, and the deepest read
	when                  when                    // what the question says of time
	listed                map[memory.TurnKey]bool // turns of the question's days listed for their day alone (spandays.go)
	since, until          time.Time               // the request's span
	spanFrom, spanTo      time.Time               // the question's explicit span, when dated
	dated                 bool
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
	if rs := []rune(o.Query); len(rs) > querywords.MaxQueryRunes {
		o.Query = string(rs[:querywords.MaxQueryRunes])
	}
	plan := planQuery(o.Query, !tn.NoStopwords)
	plan.forms, plan.idPartsOnce = tn.VerbForms, tn.IDPartsOnce
	if tn.KeepStopsOver > 0 && !tn.NoStopwords && len(plan.IDs) == 0 && len(plan.All) > tn.KeepStopsOver {
		// A long paraphrase: its function words ("I", "my") tell a person's
		// own telling apart from replies about it, as they do for plain BM25.
		plan = planQuery(o.Query, false)
		plan.forms, plan.idPartsOnce = tn.VerbForms, tn.IDPartsOnce
	}
	// The stopword stages, and the engine's probes they need, only for
	// short questions (StopMaxTerms).
	if n := len(plan.All) + len(plan.IDs); tn.StopMaxTerms > 0 && n > tn.StopMaxTerms {
		tn.StopWeight, tn.StopAdd = 0, 0
	}
	if n := len(plan.All) + len(plan.IDs); tn.CoverMaxTerms > 0 && n > tn.CoverMaxTerms ||
		len(plan.IDs) == 0 && tn.CoverMaxPlain > 0 && n > tn.CoverMaxPlain {
		tn.CoverPower = 0
	}
	r := &run{o: o, tn: tn, plan: plan, since: o.Since, until: o.Until}
	if tn.Dates {
		r.date()
		plan = r.plan
	}
	// The engine's pool is ranked in layers of Candidates, 4·Candidates, …
	// turns (each the top of the next): the hits come from the first
	// layer's ranking, then each deeper layer's hits not yet listed follow.
	// So a larger request's first hits are the smaller one's, and a page
	// continues the pages before it. The snapshot reads the deepest layer
	// the page's end can need: at least twice the hits up to it.
	r.layer = max(tn.Candidates, 1)
	for r.depth = r.layer; r.depth < 2*(o.K+max(o.Offset, 0)); {
		r.depth *= 4
	}
	r.stops = tn.StopWeight > 0 || tn.StopAdd > 0
	r.cover = tn.CoverPower > 0 || tn.TieShare > 0 || tn.TieShareRecent > 0 || r.stops
	r.vectors = tn.VectorWeight > 0 && !asksWhen(o.Query)
	r.et = plan.engineTerms(!tn.NoIDs, tn.DateWeight > 0, tn.StopWeight > 0 || tn.StopAdd > 0 && !tn.StopFromText)
	// Newest-first among equals is for repeated reports of one thing: a
	// question about an identified thing, or one that asks for the latest.
	switch {
	case plan.Recent:
		r.tie = tn.TieShareRecent
	case r.when.order < 0:
		r.tie = -tn.TieShareRecent // "the first time": oldest first among ties
	case len(plan.IDs) > 0:
		r.tie = tn.TieShare
	}
	return r
}

// gather fills in, from the snapshot's candidates, the signals ranking
// reads of them: coverage of the query and its stopwords, and meaning.
func (r *run) gather(snap *snapshot) {
	r.cands = make([]candidate, len(snap.Candidates))
	for i, c := range snap.Candidates {
		r.cands[i] = candidate{
			sess: c.Sess, seq: c.Seq, bm25: c.BM25, role: c.Role, ts: c.TS, starred: c.Starred,
			fields: c.Fields, body: c.Text, turnChunks: c.Chunks, preview: c.Preview, passage: c.Passage + 1,
			spanRank: c.SpanRank,
		}
	}
	if r.tn.Echo > 0 && r.tn.Echo < 1 {
		stems := queryStems(r.o.Query)
		for i := range r.cands {
			r.cands[i].echo = echoes(r.cands[i].preview, stems)
		}
	}
	r.terms = coverageTerms(snap, r.plan)
	if r.tn.IDHeld > 0 && len(r.plan.IDs) > 0 {
		heldIDs(r.cands, r.plan.IDs, r.et)
	}
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
	if r.tn.Dates {
		r.timeSignals()
		if r.cover && r.dated {
			r.spanCover()
		}
	}
}

// rankHits ranks the gathered candidates into the hits up to the page's
// end, with the tuning they were ranked by.
func (r *run) rankHits() ([]candidate, Tuning) {
	o := r.o
	tn := r.tn
	speaker := r.plan.Speaker
	if tn.FirstPerson > 0 && (speaker == funes.RoleUser || speaker == "" && firstPerson(o.Query)) && !asksForAdvice(o.Query) {
		speaker, tn.SpeakerWeight = funes.RoleUser, tn.FirstPerson
	}
	return r.rankLayers(o.K+max(o.Offset, 0), tn, speaker), tn
}

// present shows the ranked hits: read from the snapshot, fit to the
// budget, and rendered as the context block.
func (r *run) present(ctx context.Context, snap *snapshot, ranked []candidate, tn Tuning) (*Result, error) {
	o := r.o
	hits, err := hydrate(ctx, snap, r.terms, ranked, max(o.Offset, 0), r.plan.Speaker, tn)
	if err != nil {
		return nil, err
	}
	return answer.FitRecall(o.Query, hits, o.Budget, o200k.Count), nil
}

// date reads the question's dates and order (when.go): an explicit span
// joins its best turns to the candidates and favours them; "the first
// time" orders ties oldest first, "most recently" newest first; the words
// that said an order are no search terms.
func (r *run) date() {
	now := r.o.Now
	if now.IsZero() {
		now = time.Now()
	}
	w := parseWhen(r.o.Query, now)
	r.when = w
	if w.filter && (!w.from.IsZero() || !w.to.IsZero()) {
		r.spanFrom, r.spanTo, r.dated = w.from, w.to, true
	}
	if len(w.orderWords) > 0 {
		r.plan.Terms, r.plan.All = without(r.plan.Terms, w.orderWords), without(r.plan.All, w.orderWords)
	}
	if w.order > 0 {
		r.plan.Recent = true
	}
}

func without(ws []string, drop map[string]bool) []string {
	var out []string
	for _, x := range ws {
		if !drop[x] {
			out = append(out, x)
		}
	}
	return out
}

// inSpan reports whether a time is inside the question's explicit span.
func (r *run) inSpan(ts int64) bool {
	t := time.Unix(ts, 0)
	return r.dated && ts != 0 && (r.spanFrom.IsZero() || !t.Before(r.spanFrom)) && (r.spanTo.IsZero() || t.Before(r.spanTo))
}

func (r *run) anyInSpan(snap *snapshot) bool {
	for _, c := range snap.Candidates {
		if r.inSpan(c.TS) {
			return true
		}
	}
	return false
}

// widened is the run for the question's span alone, searched for every
// word of the question, its function words too; nil when that searches
// nothing more.
func (r *run) widened() *run {
	p := planQuery(r.o.Query, false)
	p.forms, p.idPartsOnce = r.plan.forms, r.plan.idPartsOnce
	p.Terms = without(p.Terms, r.when.orderWords)
	p.All = p.Terms
	if len(p.Terms) <= len(r.plan.Terms) && len(p.IDs) == len(r.plan.IDs) {
		return nil
	}
	w := *r
	w.plan, w.stops, w.dated = p, false, false
	w.since, w.until = within(r.o.Since, r.o.Until, r.spanFrom, r.spanTo)
	w.et = p.engineTerms(!r.tn.NoIDs, r.tn.DateWeight > 0, false)
	return &w
}

// rankLayers ranks the first need hits: the first layer of the pool, then
// each deeper layer's hits not already listed (see newRun).
func (r *run) rankLayers(need int, tn Tuning, speaker string) []candidate {
	var out []candidate
	listed := map[memory.TurnKey]bool{}
	copyOf := map[string]int64{} // a listed hit's copy key → its conversation (foldCopies)
	for size := r.layer; ; size *= 4 {
		pool := slices.Clone(r.cands[:min(size, len(r.cands))]) // rank edits its pool
		for _, c := range r.cands[len(pool):] {
			if c.inSpan && c.spanRank > 0 && c.spanRank <= size {
				// The question's days are in every layer, each layer as
				// deep in them as in the whole history.
				pool = append(pool, c)
			}
		}
		for _, c := range rank(pool, min(len(pool), need+len(out)), tn, r.tie, speaker) {
			if listed[c.turn()] || len(out) >= need {
				continue
			}
			k := ""
			if tn.FoldCopies {
				k = copyKey(c.preview)
			}
			if s, ok := copyOf[k]; ok && k != "" && s != c.sess {
				continue // a copy of a hit a shallower layer listed, counted there
			}
			listed[c.turn()] = true
			if k != "" {
				copyOf[k] = c.sess
			}
			out = append(out, c)
		}
		if len(out) >= need || size >= len(r.cands) {
			return out
		}
	}
}

// firstPerson reports whether a question speaks of the person ("I", "my",
// "me"). One that asks for the assistant's words ("what did you suggest
// for my back?") is told apart before, by the plan's speaker.
func firstPerson(q string) bool {
	for _, w := range querywords.Words(q) {
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
	for _, w := range querywords.Words(q) {
		switch w {
		case "suggest", "suggested", "suggestion", "suggestions", "recommend", "recommended", "recommendation",
			"recommendations", "advice", "advise", "advised", "tip", "tips", "propose", "proposed", "proposal":
			return true
		}
	}
	return false
}
