package recall

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/indexdoc"
	"github.com/ireneo-app/ireneo/memory"
)

// hydrate reads the hits of ranked[off:] from the snapshot, with their
// text, receipts, projects and neighbours, all in one read
// (snapshot.Shown), and shows each turn's chunk that covers
// most of the query's terms. With follow, when the first hit asks
// something its answer comes right after it (answers.go), and the list
// moves down by one from there.
func hydrate(ctx context.Context, snap *snapshot, terms []weightedTerm, ranked []candidate, off int, speaker string, tn Tuning) ([]Hit, error) {
	follow := tn.AnswerFollows
	hits := make([]Hit, 0, len(ranked))
	if off >= len(ranked) {
		return hits, nil
	}
	from := off
	if follow && off > 0 {
		from = off - 1 // the answer's place moves the page back by one
	}
	// The first hit always: whether it asks decides the list below it.
	keys := []memory.TurnKey{ranked[0].turn()}
	for _, c := range ranked[max(from, 1):] {
		keys = append(keys, c.turn())
	}
	var replyOf []memory.TurnKey
	if follow {
		replyOf = keys[:1]
	}
	shown, err := snap.Shown(ctx, keys, replyOf...)
	if err != nil {
		return nil, err
	}
	if follow {
		ranked = withAnswer(ranked, shown, terms, speaker, tn)
	}
	ranked = ranked[min(off, len(ranked)):]
	for _, c := range ranked {
		st := shown[c.turn()]
		if st == nil {
			return nil, fmt.Errorf("recall: turn %d of conversation %d is gone from the index", c.seq, c.sess)
		}
		h := Hit{
			SessionID: st.SessionID, TurnUUID: st.TurnUUID, Seq: c.seq, TS: indexdoc.Time(c.ts), Role: c.role,
			Source: st.Harness, Title: st.Title, Score: round4(c.score),
			Signals:  Signals{BM25: round4(-c.bm25), Recency: round4(c.rec)},
			Projects: slices.Clone(st.Projects), Copies: c.copies, // st is kept (readCaches.shown)
		}
		if c.starred {
			h.Signals.Importance = 1
		}
		// Show its chunk that covers most of the query, or for a long turn
		// the engine's best passage, from its start.
		ch, off := shownChunk(st.Chunks, terms), 0
		if i, o, ok := passageChunk(st.Chunks, c.passage-1); ok {
			ch, off = st.Chunks[i], o
		}
		if ch.ID == 0 {
			return nil, fmt.Errorf("recall: turn %d of %s is gone from the index", c.seq, st.SessionID)
		}
		h.Text, h.TextTokens = ch.Body, ch.Tokens
		if off > 0 {
			h.Text, h.TextTokens = "… "+ch.Body[off:], 0
		}
		h.Neighbors = make([]Neighbor, len(st.Neighbours))
		for i, p := range st.Neighbours {
			h.Neighbors[i] = Neighbor{Seq: p.Seq, Role: p.Role, Text: p.Text}
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// shownChunk picks the chunk of a turn to show: the searched one that
// covers most of the query, the first of equals; the first chunk when none
// is searched. A turn of one searched chunk needs no coverage, and none can
// beat a chunk that holds the whole query.
func shownChunk(chunks []memory.Chunk, terms []weightedTerm) memory.Chunk {
	first, searched := -1, 0
	for i, ch := range chunks {
		if ch.Searched {
			if first < 0 {
				first = i
			}
			searched++
		}
	}
	switch {
	case len(chunks) == 0:
		return memory.Chunk{}
	case first < 0:
		return chunks[0]
	case searched == 1:
		return chunks[first]
	}
	best, bestCov := first, -1.0
	for i := first; i < len(chunks); i++ {
		if !chunks[i].Searched {
			continue
		}
		cv := coverage(chunks[i].Body, terms)
		if cv > bestCov {
			best, bestCov = i, cv
		}
		if cv >= 1 {
			break
		}
	}
	return chunks[best]
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// passageChunk finds where a long turn's passage (Candidate.Passage)
// starts among the turn's chunks (in order, as TurnChunks reads them): the
// chunk's index and the byte offset in it. ok is false for no passage.
func passageChunk(chunks []memory.Chunk, passage int) (i, off int, ok bool) {
	if passage < 0 {
		return 0, 0, false
	}
	var body strings.Builder
	var starts []int // where each searched chunk starts in the body
	var at []int     // its index in chunks
	for k, c := range chunks {
		if !c.Searched {
			continue
		}
		if body.Len() > 0 {
			body.WriteString("\n\n")
		}
		starts = append(starts, body.Len())
		at = append(at, k)
		body.WriteString(c.Body)
	}
	ps := engine.Passages(body.String())
	if passage >= len(ps) {
		return 0, 0, false
	}
	s := ps[passage].Start
	j := len(starts) - 1
	for j > 0 && starts[j] > s {
		j--
	}
	return at[j], max(0, s-starts[j]), true
}
