package recall

import (
	"math"
	"slices"
	"strings"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/querywords"
)

// weightedTerm is one thing a query asks for: a word's index term (engine.Term) or an
// identifier, weighted by how rare it is.
type weightedTerm struct {
	stem string
	word string // the word as asked: a porter stem is not always its prefix ("flaky", "flaki")
	id   bool
	idf  float64
	alts []string // its other forms (verbForms), when the plan searches them
}

// coverageTerms weighs every content word of the query (the common ones
// pruned from the engine query too) and every identifier by inverse document
// frequency, as the snapshot read them.
func coverageTerms(snap *snapshot, p Plan) []weightedTerm {
	out := weighWords(snap, p.All)
	if p.idPartsOnce && len(p.IDs) > 0 {
		parts := p.idParts()
		out = slices.DeleteFunc(out, func(t weightedTerm) bool { return parts[t.word] })
	}
	if p.forms {
		for i := range out {
			out[i].alts = verbForms[out[i].word]
		}
	}
	for _, id := range p.IDs {
		// Identifiers are rare by nature; weigh them as a word in ten chunks.
		out = append(out, weightedTerm{stem: id, id: true, idf: idf(10, 10000)})
	}
	return out
}

// weighWords weighs words by inverse document frequency, leaving out those
// no turn holds.
func weighWords(snap *snapshot, ws []string) []weightedTerm {
	var out []weightedTerm
	for _, w := range ws {
		st := snap.Stems[w]
		if st == "" || snap.DF[w] == 0 {
			continue // a word no turn holds can't tell turns apart
		}
		out = append(out, weightedTerm{stem: st, word: w, idf: idf(snap.DF[w], snap.Docs)})
	}
	return out
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
	ws := querywords.Words(text)
	var ids map[string]bool
	var got, all float64
	for _, t := range terms {
		all += t.idf
		if t.id {
			if ids == nil {
				ids = map[string]bool{}
				for _, id := range querywords.Identifiers(text) {
					ids[id] = true
				}
			}
			if ids[t.stem] {
				got += t.idf
			}
			continue
		}
		for _, w := range ws {
			if w == t.stem || w == t.word || (len(t.stem) >= 3 && strings.HasPrefix(w, t.stem)) || slices.Contains(t.alts, w) {
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

// wordCoverage is coverage of words met as they are asked (or as their
// stem): for stopwords, which a prefix would find inside other words
// ("the" in "there", "for" in "format") where the engine's terms would not.
func wordCoverage(text string, terms []weightedTerm) float64 {
	if len(terms) == 0 {
		return 1
	}
	// The query's few terms are looked for among the text's words: a set
	// of the text's words cost a map insert a word (1 % of a recall).
	held := make([]bool, len(terms))
	for _, w := range querywords.Words(text) {
		for j, t := range terms {
			if w == t.word || w == t.stem {
				held[j] = true
			}
		}
	}
	var got, all float64
	for j, t := range terms {
		all += t.idf
		if held[j] {
			got += t.idf
		}
	}
	if all == 0 {
		return 1
	}
	return got / all
}

// cover fills in how much of the query each candidate turn holds, and of
// its stopwords: from the fields the engine found each term in (a word
// counts in the turn's text, an identifier in its identifiers), or from the
// turn's text for a candidate without them and for stopwords the engine did
// not probe.
func cover(cands []candidate, terms, stopTerms []weightedTerm, et engineTerms) {
	var stopAll float64 // the stopwords' whole IDF: stopCov times it is what a turn holds
	for _, t := range stopTerms {
		stopAll += t.idf
	}
	stopText := len(stopTerms) > 0 && len(et.Stop) == 0
	for i := range cands {
		c := &cands[i]
		if c.fields == nil {
			c.cov = coverage(c.body, terms)
			if len(stopTerms) > 0 {
				c.stopCov = coverage(c.body, stopTerms)
				c.stopIDF = c.stopCov * stopAll
			}
			continue
		}
		c.cov = fieldCoverage(c.fields, terms, et)
		if stopText {
			c.stopCov = wordCoverage(c.body, stopTerms)
			c.stopIDF = c.stopCov * stopAll
		} else if len(stopTerms) > 0 {
			c.stopCov = fieldCoverage(c.fields, stopTerms, engineTerms{Word: et.Stop})
			c.stopIDF = c.stopCov * stopAll
		}
	}
}

// fieldCoverage is coverage from the engine's per-term fields: the share of
// the query's weight whose terms the turn's text (a word, or one of its
// forms) or identifiers (an identifier) hold.
func fieldCoverage(fields []engine.FieldMask, terms []weightedTerm, et engineTerms) float64 {
	if len(terms) == 0 {
		return 1
	}
	has := func(at int, f engine.Field) bool { return at < len(fields) && fields[at].Has(f) }
	var got, all float64
	for _, t := range terms {
		all += t.idf
		if t.id {
			if at, ok := et.ID[t.stem]; ok && has(at, engine.IDs) {
				got += t.idf
			}
			continue
		}
		held := false
		if at, ok := et.Word[t.word]; ok && has(at, engine.Body) {
			held = true
		}
		for _, at := range et.Alt[t.word] {
			held = held || has(at, engine.Body)
		}
		if held {
			got += t.idf
		}
	}
	if all == 0 {
		return 1
	}
	return got / all
}

// turnTextBytes bounds the text read of one turn for coverage and the
// semantic stage.
const turnTextBytes = 4000

// heldIDs fills in the share of the question's identifiers each candidate
// holds whole: in its identifiers field as the engine found it, or in its
// text for a candidate read without fields.
func heldIDs(cands []candidate, ids []string, et engineTerms) {
	for i := range cands {
		c := &cands[i]
		var text map[string]bool
		n := 0
		for _, id := range ids {
			if at, ok := et.ID[id]; ok && c.fields != nil {
				if at < len(c.fields) && c.fields[at].Has(engine.IDs) {
					n++
				}
				continue
			}
			if text == nil {
				text = map[string]bool{}
				for _, x := range querywords.Identifiers(c.body) {
					text[x] = true
				}
			}
			if text[id] {
				n++
			}
		}
		c.idShare = float64(n) / float64(len(ids))
	}
}
