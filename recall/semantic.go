package recall

import (
	"math"
	"strings"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/memory"
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
	// semanticWindow: the turns either side whose text makes a second
	// vector, the chunk with its exchange; 0 compares the chunk alone.
	semanticWindow = 1
	// semanticWindowBytes caps each neighbouring turn's text.
	semanticWindowBytes = 4000
)

// semantic fuses meaning into the candidates' match, in place: for the top
// candidates, L/max(L) + w·sim with L = −bm25 and sim = (cos_chunk+1)/2, or
// (cos_chunk + cos_window + 1)/2 with a window, written back in BM25's
// units (rank normalises it as it does BM25). Candidates below the top get
// the lowest similarity seen above them. Off when tn.VectorWeight is 0.
func semantic(query string, cands []candidate, around map[memory.TurnKey][]string, tn Tuning) {
	w := tn.VectorWeight
	if w <= 0 || len(cands) < 2 || asksWhen(query) {
		return
	}
	best := 0.0
	for _, c := range cands {
		best = math.Min(best, c.bm25)
	}
	if best >= 0 {
		return // nothing matched by weight: no scale to fuse into
	}
	q := wordvec.Sentence(query)
	if q == nil {
		return
	}
	top := cands[:min(semanticTop, len(cands))]
	bodies := make([]string, len(top))
	vecs := make([][]float32, len(top))
	for i, c := range top {
		bodies[i] = c.body
		vecs[i] = wordvec.Sentence(bodies[i])
	}
	qc := removeCommon(q, vecs)
	sims := make([]float64, len(top))
	for i := range top {
		sims[i] = wordvec.Cosine(qc, vecs[i])
	}
	if semanticWindow > 0 {
		wvecs := make([][]float32, len(top))
		for i, c := range top {
			before, after := turnsAround(around, c, semanticWindow)
			wvecs[i] = wordvec.Sentence(before + "\n" + bodies[i] + "\n" + after)
		}
		qw := removeCommon(q, wvecs)
		for i := range top {
			sims[i] += wordvec.Cosine(qw, wvecs[i])
		}
	}
	lowest := math.Inf(1)
	for i := range top {
		sim := (sims[i] + 1) / 2
		lowest = math.Min(lowest, sim)
		top[i].bm25 = best * (top[i].bm25/best + w*sim) / (1 + w)
	}
	for i := len(top); i < len(cands); i++ {
		cands[i].bm25 = best * (cands[i].bm25/best + w*lowest) / (1 + w)
	}
}

// timeWords mark a question placed in time ("what did we decide in March",
// "two weeks ago"): its date words match the chunk's date, which the
// vectors do not see, and blending meaning in dilutes them (lifelike's
// temporal questions lost beyond noise). "may" is left out, as a verb.
var timeWords = setOf("january february march april june july august september october november december " +
	"yesterday ago week weeks month months year quarter weekend monday tuesday wednesday thursday friday saturday sunday")

// asksWhen reports whether the question names a time: a time word or a year.
func asksWhen(query string) bool {
	for _, w := range wordvec.Tokens(query) {
		if timeWords[w] || (len(w) == 4 && (strings.HasPrefix(w, "19") || strings.HasPrefix(w, "20")) && strings.Trim(w, "0123456789") == "") {
			return true
		}
	}
	return false
}

// removeCommon takes the common directions of vecs out of them, in place,
// and returns a copy of q without them too.
func removeCommon(q []float32, vecs [][]float32) []float32 {
	q = append([]float32(nil), q...)
	if semanticCommon == 0 || len(vecs) < semanticCommonMin {
		return q
	}
	dirs := wordvec.Common(vecs, semanticCommon)
	for _, v := range vecs {
		wordvec.Remove(v, dirs)
	}
	wordvec.Remove(q, dirs)
	return q
}

// turnsAround is the text of the turns up to n before and after a
// candidate's turn, each capped at semanticWindowBytes, from the chunks the
// snapshot read around the candidates.
func turnsAround(around map[memory.TurnKey][]string, c candidate, n int) (before, after string) {
	text := func(k memory.TurnKey) string {
		var b strings.Builder
		for _, body := range around[k] {
			if b.Len() < semanticWindowBytes {
				b.WriteString(answer.Shorten(body, semanticWindowBytes-b.Len()))
				b.WriteByte('\n')
			}
		}
		return b.String()
	}
	var bs, as strings.Builder
	for d := 1; d <= n; d++ {
		bs.WriteString(text(memory.TurnKey{Sess: c.sess, Seq: c.seq - d}))
		as.WriteString(text(memory.TurnKey{Sess: c.sess, Seq: c.seq + d}))
	}
	return bs.String(), as.String()
}
