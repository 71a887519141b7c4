package recall

import (
	"github.com/ireneo-app/ireneo/engine"
)

// readQuery is what the run reads of the memory before it ranks, in one
// snapshot: the engine's best turns (one document per turn, BM25F over
// text, title, identifiers and date) with the request's filters applied
// inside its search, so the filtered top is exact; the rarity of the
// query's words; and what of the candidates the run's stages read (their
// text, the turns around them, their chunk counts). A candidate is a turn;
// hydrate picks the chunk it shows.
func (r *run) readQuery() snapshotQuery {
	o, tn := r.o, r.tn
	q := snapshotQuery{
		Query:  engine.Query{Terms: r.et.Terms, K: r.depth},
		Params: engineParams(tn),
		Source: o.Source, Since: r.since, Until: r.until, Project: o.Project, ProjectOnly: o.ProjectOnly, Untagged: o.Untagged, Scope: o.Scope,
		CheckExact: o.CheckExact,
		// Coverage weighs the content words always (hydrate picks the
		// chunk shown by it), the stopwords when their stages run.
		Words:       r.plan.All,
		ChunkCounts: tn.TurnLenPower > 0,
		Previews:    tn.Echo > 0 && tn.Echo < 1 || tn.FoldCopies,
		Show:        o.K + 3, // with the first hit, the one before the page and a reply (hydrate)
		Neighbours:  !tn.NoNeighbors,
	}
	if r.stops {
		q.Words = append(append([]string(nil), r.plan.All...), r.plan.Stops...)
	}
	// Stopwords the engine does not probe are looked for in the turns' text.
	if r.cover && r.stops && len(r.et.Stop) == 0 || r.vectors {
		q.TextBytes = turnTextBytes
	}
	if r.dated {
		q.SpanSince, q.SpanUntil, q.SpanK = r.spanFrom, r.spanTo, r.layer
	}
	if r.vectors && semanticWindow > 0 {
		q.Around, q.AroundOf = semanticWindow, semanticTop
	}
	return q
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
