package memory

import (
	"context"
	"math"

	"github.com/ireneo-app/ireneo/wordvec"
)

// The semantic stage re-scores the best BM25 candidates by meaning: the
// question's SIF vector against each candidate chunk's (wordvec), so a
// paraphrase ("running too hot") counts beside the words it shares with
// "overheating".
const (
	// semanticTop is how many of the best BM25 candidates are compared;
	// below them BM25 alone has already decided.
	semanticTop = 50
	// semanticCommon is how many common directions of the compared
	// vectors are removed first: what every candidate shares (the topic
	// all of them matched, GloVe's frequency direction) tells none apart.
	// With fewer than semanticCommonMin candidates, those directions would
	// be most of what the candidates say, so nothing is removed.
	semanticCommon    = 2
	semanticCommonMin = 10
)

// semantic fuses meaning into the candidates' match, in place: for the top
// candidates, L/max(L) + w·(cos+1)/2 with L = −bm25, written back in BM25's
// units (the best possible fused match equals the best BM25) so rank
// normalises it as it does BM25. Candidates below the top get the lowest
// similarity seen above them. Off when tn.VectorWeight is 0.
func (m *Memory) semantic(ctx context.Context, query string, cands []candidate, tn Tuning) error {
	w := tn.VectorWeight
	if w <= 0 || len(cands) < 2 {
		return nil
	}
	q := wordvec.Sentence(query)
	if q == nil {
		return nil
	}
	top := cands[:min(semanticTop, len(cands))]
	var missing []candidate
	for _, c := range top {
		if c.body == "" {
			missing = append(missing, c)
		}
	}
	var texts map[int64]string
	if len(missing) > 0 {
		var err error
		if texts, err = m.chunkTexts(ctx, missing); err != nil {
			return err
		}
	}
	vecs := make([][]float32, len(top))
	for i, c := range top {
		body := c.body
		if body == "" {
			body = texts[c.chunk]
		}
		vecs[i] = wordvec.Sentence(body)
	}
	if semanticCommon > 0 && len(top) >= semanticCommonMin {
		dirs := wordvec.Common(vecs, semanticCommon)
		for _, v := range vecs {
			wordvec.Remove(v, dirs)
		}
		wordvec.Remove(q, dirs)
	}
	best := 0.0
	for _, c := range cands {
		best = math.Min(best, c.bm25)
	}
	if best >= 0 {
		return nil // nothing matched by weight: no scale to fuse into
	}
	lowest := 1.0
	for i := range top {
		sim := (wordvec.Cosine(q, vecs[i]) + 1) / 2
		lowest = math.Min(lowest, sim)
		top[i].bm25 = best * (top[i].bm25/best + w*sim) / (1 + w)
	}
	for i := len(top); i < len(cands); i++ {
		cands[i].bm25 = best * (cands[i].bm25/best + w*lowest) / (1 + w)
	}
	return nil
}
