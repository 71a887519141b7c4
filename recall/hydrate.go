package recall

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/ireneo-app/ireneo/memory"
)

// hydrate loads the text, projects and neighbours of the ranked hits, all
// in one read (memory.ShownTurns).
func hydrate(ctx context.Context, m *memory.Memory, plan memory.QueryPlan, ranked []candidate, tn Tuning) ([]Hit, error) {
	hits := make([]Hit, 0, len(ranked))
	if len(ranked) == 0 {
		return hits, nil
	}
	terms, err := coverageTerms(ctx, m, plan)
	if err != nil {
		return nil, err
	}
	keys := make([]memory.TurnKey, len(ranked))
	for i, c := range ranked {
		keys[i] = c.turn()
	}
	shown, err := m.ShownTurns(ctx, keys, !tn.NoNeighbors)
	if err != nil {
		return nil, err
	}
	for _, c := range ranked {
		st := shown[c.turn()]
		if st == nil {
			if c.unnamed {
				return nil, fmt.Errorf("recall: turn %d of conversation %d is gone from the index", c.seq, c.sess)
			}
			return nil, fmt.Errorf("recall: turn %d of %s is gone from the index", c.seq, c.sid)
		}
		if c.unnamed {
			// The engine's candidates carry what ranking needs; the
			// receipts of the few shown are read here.
			c.harness, c.sid, c.title, c.uuid = st.Harness, st.SessionID, st.Title, st.TurnUUID
		}
		h := Hit{
			SessionID: c.sid, TurnUUID: c.uuid, Seq: c.seq, TS: fromUnix(c.ts), Role: c.role,
			Source: c.harness, Title: c.title, Score: round4(c.score),
			Signals:  Signals{BM25: round4(-c.bm25), Recency: round4(c.rec)},
			Projects: st.Projects,
		}
		if c.starred {
			h.Signals.Importance = 1
		}
		h.Text, h.TextTokens = c.body, c.tokens
		if c.chunk == 0 {
			// A candidate is a turn: show its chunk that covers most of the query.
			ch := shownChunk(st.Chunks, terms)
			if ch.ID == 0 {
				return nil, fmt.Errorf("recall: turn %d of %s is gone from the index", c.seq, c.sid)
			}
			h.Text, h.TextTokens = ch.Body, ch.Tokens
		} else if h.Text == "" {
			texts, err := m.ChunkTexts(ctx, []int64{c.chunk})
			if err != nil {
				return nil, err
			}
			t, ok := texts[c.chunk]
			if !ok {
				return nil, fmt.Errorf("recall: chunk %d of %s is gone from the index", c.chunk, c.sid)
			}
			h.Text = t
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

// fromUnix reads a stored time back as UTC; 0 is the zero time.
func fromUnix(s int64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }
