package memory

import (
	"context"
	"math"
	"strings"
)

// weightedTerm is one thing a query asks for: a word's FTS5 stem or an
// identifier, weighted by how rare it is.
type weightedTerm struct {
	stem string
	word string // the word as asked: a porter stem is not always its prefix ("flaky", "flaki")
	id   bool
	idf  float64
}

// coverageTerms weighs every content word of the query (the common ones
// pruned from the FTS query too) and every identifier by inverse document
// frequency.
func (m *Memory) coverageTerms(ctx context.Context, p queryPlan) ([]weightedTerm, error) {
	out, err := m.weighWords(ctx, p.all)
	if err != nil {
		return nil, err
	}
	for _, id := range p.ids {
		// Identifiers are rare by nature; weigh them as a word in ten chunks.
		out = append(out, weightedTerm{stem: id, id: true, idf: idf(10, 10000)})
	}
	return out, nil
}

// weighWords weighs words by inverse document frequency, leaving out those
// no chunk holds.
func (m *Memory) weighWords(ctx context.Context, ws []string) ([]weightedTerm, error) {
	var out []weightedTerm
	if len(ws) > 0 {
		df, total, err := m.frequencies(ctx, ws)
		if err != nil {
			return nil, err
		}
		m.stats.mu.Lock()
		for _, w := range ws {
			st := m.stats.stems[w]
			if st == "" || df[w] == 0 {
				continue // a word no chunk holds can't tell chunks apart
			}
			out = append(out, weightedTerm{stem: st, word: w, idf: idf(df[w], total)})
		}
		m.stats.mu.Unlock()
	}
	return out, nil
}

func idf(df, total int) float64 {
	return math.Log(1 + (float64(total)-float64(df)+0.5)/(float64(df)+0.5))
}

// coverage is the share of the query's weight that text holds: 1 when every
// word and identifier of the query is there. A word counts when a word of
// the text starts with its stem, as porter stems are prefixes of the words
// they come from.
func coverage(text string, terms []weightedTerm) float64 {
	if len(terms) == 0 {
		return 1
	}
	ws := words(text)
	var ids map[string]bool
	var got, all float64
	for _, t := range terms {
		all += t.idf
		if t.id {
			if ids == nil {
				ids = map[string]bool{}
				for _, id := range identifiers(text) {
					ids[id] = true
				}
			}
			if ids[t.stem] {
				got += t.idf
			}
			continue
		}
		for _, w := range ws {
			if w == t.stem || w == t.word || (len(t.stem) >= 3 && strings.HasPrefix(w, t.stem)) {
				got += t.idf
				break
			}
		}
	}
	if all == 0 {
		return 1
	}
	return got / all
}
