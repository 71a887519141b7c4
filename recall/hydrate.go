package recall

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/memory"
)

// hydrate reads the hits of ranked[off:] from the snapshot, with their
// text, receipts, projects and neighbours, all in one read
// (memory.RecallSnapshot.Shown), and shows each turn's chunk that covers
// most of the query's terms. With follow, when the first hit asks
// something its answer comes right after it (answers.go), and the list
// moves down by one from there.
func hydrate(ctx context.Context, snap *memory.RecallSnapshot, terms []weightedTerm, ranked []candidate, off int, follow bool) ([]Hit, error) {
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
		ranked = withAnswer(ranked, shown)
	}
	ranked = ranked[min(off, len(ranked)):]
	for _, c := range ranked {
		st := shown[c.turn()]
		if st == nil {
			return nil, fmt.Errorf("recall: turn %d of conversation %d is gone from the index", c.seq, c.sess)
		}
		h := Hit{
			SessionID: st.SessionID, TurnUUID: st.TurnUUID, Seq: c.seq, TS: fromUnix(c.ts), Role: c.role,
			Source: st.Harness, Title: st.Title, Score: round4(c.score),
			Signals: Signals{BM25: round4(-c.bm25), Recency: round4(c.rec)},
			sess:    c.sess, Projects: st.Projects, Copies: c.copies,
		}
		if c.starred {
			h.Signals.Importance = 1
		}
		ch := shownChunk(st.Chunks, terms)
		if ch.ID == 0 {
			return nil, fmt.Errorf("recall: turn %d of %s is gone from the index", c.seq, st.SessionID)
		}
		h.chunk, h.Text, h.textTokens = ch.ID, ch.Body, ch.Tokens
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

// minTrimTokens is the least room worth filling with a shortened passage.
const minTrimTokens = 48

// fitBudget adds hits in rank order while they fit. A hit that doesn't fit
// loses its neighbours, then is shortened, if enough room is left to be
// useful; after the first hit that can't fit, the rest are cut.
func fitBudget(res *Result, hits []Hit, budget int) {
	for i, h := range hits {
		left := budget - res.TotalTokens
		h.Tokens = entryTokens(len(res.Hits)+1, h)
		if h.Tokens > left && left >= minTrimTokens {
			h.Neighbors = []Neighbor{}
			h.Tokens = entryTokens(len(res.Hits)+1, h)
			for h.Tokens > left && len(h.Text) > 0 {
				over := h.Tokens - left
				keep := len(h.Text) - max(over*4, len(h.Text)/8)
				if keep <= 0 {
					h.Text = ""
					break
				}
				next := trimTo(h.Text, keep)
				if len(next) >= len(h.Text) {
					// trimTo's " …" outweighs a cut of a few bytes: without
					// this the loop never ends (a short text one token over).
					h.Text = ""
					break
				}
				h.Text = next
				h.Truncated = true
				h.textTokens = 0
				h.Tokens = entryTokens(len(res.Hits)+1, h)
			}
		}
		if h.Tokens > left || h.Text == "" {
			res.Cut = len(hits) - i
			return
		}
		res.Hits = append(res.Hits, h)
		res.TotalTokens += h.Tokens
	}
}

// entryTokens counts a hit's entry in the context block. The passage's own
// count was stored at import, so only the frame around it is counted here;
// a token of slack per seam keeps the sum from ever undercounting the whole.
func entryTokens(n int, h Hit) int {
	if h.textTokens == 0 {
		return memory.CountTokens(hitEntry(n, h))
	}
	h.Text = ""
	return memory.CountTokens(hitEntry(n, h)) + h.textTokens + 2
}

// trimTo cuts s to at most n bytes at a word boundary and marks the cut.
func trimTo(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	cut := s[:n]
	if i := strings.LastIndexAny(cut, " \n"); i > n/2 {
		cut = cut[:i]
	}
	return cut + " …"
}

// fromUnix reads a stored time back as UTC; 0 is the zero time.
func fromUnix(s int64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }
