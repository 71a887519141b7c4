package recall

import (
	"context"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/memory"
)

// fetchCandidates is the pipeline's one seam to the index: the best
// candidates for the plan, best first, with the request's filters applied.
// Everything after it (coverage, ranking, hydrating) works on what it
// returns, whichever index answered.
var fetchCandidates = engineCandidates

// checkExact, set by the bench (SetCheckExact), makes every candidate query
// also score every match and fail if pruning changed the top-k.
var checkExact bool

// SetCheckExact turns the engine's exactness check on for every recall of
// this process: the bench's proof, on every question it asks, that the
// pruned top-k is the exhaustive one. It slows recall down; never set it in
// production.
func SetCheckExact(on bool) { checkExact = on }

// engineTerms is the plan as the engine's query terms under a tuning.
func engineTerms(plan memory.QueryPlan, tn Tuning) memory.EngineTerms {
	return plan.EngineTerms(!tn.NoIDs, tn.DateWeight > 0, tn.StopWeight > 0 || tn.StopAdd > 0 && !tn.StopFromText)
}

// engineParams are the engine's BM25F parameters for a tuning.
func engineParams(tn Tuning) engine.Params {
	p := engine.DefaultParams()
	if tn.BM25 != nil {
		p = *tn.BM25
	}
	p.Fields[engine.Body].Weight = tn.BodyWeight
	p.Fields[engine.Title].Weight = tn.TitleWeight
	p.Fields[engine.IDs].Weight = tn.IDWeight
	p.Fields[engine.Date].Weight = tn.DateWeight
	return p
}

// engineCandidates asks Ireneo's engine for the best turns (one document
// per turn, BM25F over text, title, identifiers and date), the filters
// applied inside its search so the filtered top is exact. A candidate is a
// turn; hydrate picks the chunk it shows.
func engineCandidates(ctx context.Context, m *memory.Memory, plan memory.QueryPlan, o Options, tn Tuning) ([]candidate, error) {
	et := engineTerms(plan, tn)
	if !et.Searched() {
		return nil, ErrEmptyQuery
	}
	rows, err := m.Candidates(ctx, memory.CandidateQuery{
		Query:  engine.Query{Terms: et.Terms, K: tn.Candidates},
		Params: engineParams(tn),
		Source: o.Source, Since: o.Since, Until: o.Until, Project: o.Project, ProjectOnly: o.ProjectOnly, Untagged: o.Untagged, Scope: o.Scope,
		CheckExact: checkExact,
	})
	if err != nil {
		return nil, err
	}
	out := make([]candidate, len(rows))
	for i, r := range rows {
		out[i] = candidate{
			sess: r.Sess, seq: r.Seq, bm25: r.BM25, role: r.Role,
			ts: r.TS, starred: r.Starred, fields: r.Fields, unnamed: true, passage: r.Passage + 1,
		}
	}
	return out, nil
}
