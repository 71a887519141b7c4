package recall

import (
	"context"

	"github.com/ireneo-app/ireneo/memory"
)

// fetchCandidates is the pipeline's one seam to the index: the best
// candidates for the plan, best first, with the request's filters applied.
// Everything after it (coverage, ranking, hydrating) works on what it
// returns, whichever index answered.
var fetchCandidates = ftsCandidates

// ftsCandidates asks SQLite FTS5 (bm25) for the candidates. With filters it
// ranks deeper before filtering; if the filters leave too few, it ranks
// everything.
func ftsCandidates(ctx context.Context, m *memory.Memory, plan memory.QueryPlan, o Options, tn Tuning) ([]candidate, error) {
	expr := plan.FTSExpr(!tn.NoIDs, tn.DateWeight > 0)
	if expr == "" {
		return nil, ErrEmptyQuery
	}
	cq := memory.CandidateQuery{
		Expr: expr, BodyWeight: tn.BodyWeight, TitleWeight: tn.TitleWeight, IDWeight: tn.IDWeight, DateWeight: tn.DateWeight,
		Source: o.Source, Since: o.Since, Until: o.Until, Project: o.Project, Scope: o.Scope,
		Inner: tn.Candidates, Limit: tn.Candidates,
	}
	if cq.Filtered() {
		cq.Inner = tn.Candidates * 10
	}
	rows, err := m.FTSCandidates(ctx, cq)
	if err == nil && cq.Filtered() && len(rows) < o.K {
		cq.Inner = -1
		rows, err = m.FTSCandidates(ctx, cq)
	}
	if err != nil {
		return nil, err
	}
	out := make([]candidate, len(rows))
	for i, r := range rows {
		out[i] = candidate{
			chunk: r.Chunk, sess: r.Sess, seq: r.Seq, tokens: r.Tokens, bm25: r.BM25,
			harness: r.Harness, sid: r.SessionID, title: r.Title, uuid: r.TurnUUID, role: r.Role,
			ts: r.TS, starred: r.Starred,
		}
	}
	return out, nil
}
