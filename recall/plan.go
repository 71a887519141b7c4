package recall

import (
	"slices"
	"strings"
	"unicode"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/querywords"
)

// Plan is a recall query taken apart: what is searched, what only tells
// turns apart, and what the question says of whose words and which time it
// asks about. The words are cut as the index cuts them (querywords.Words,
// querywords.Identifiers).
type Plan struct {
	Terms []string // content words searched in the body and title
	All   []string // every content word, before pruning by cost
	// Stops are the stopwords taken out of the query: too common to search
	// by, they still tell apart turns that match its content words alike.
	Stops  []string
	IDs    []string // normalised identifiers
	Recent bool     // the query asks for the latest state of something
	// Speaker is the role whose turns the question is about: RoleUser for
	// "what did I say", RoleAssistant for "what did you suggest"; "" if
	// neither.
	Speaker string
	// forms: a content word also searches its verb forms (verbForms).
	forms bool
	// idPartsOnce: coverage counts an identifier whole, not its parts too
	// (Tuning.IDPartsOnce).
	idPartsOnce bool
	query       string
}

// idParts are the words of the query that are parts of its identifiers:
// the words of each space-separated piece of it that holds one.
func (p Plan) idParts() map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.Fields(p.query) {
		if len(querywords.Identifiers(f)) == 0 {
			continue
		}
		for _, w := range querywords.Words(f) {
			out[w] = true
		}
	}
	return out
}

// planQuery cuts the query to querywords.MaxQueryRunes, takes out identifiers,
// and drops stopwords and question words (when dropStop) unless nothing
// would be left.
func planQuery(q string, dropStop bool) Plan {
	if rs := []rune(q); len(rs) > querywords.MaxQueryRunes {
		q = string(rs[:querywords.MaxQueryRunes])
	}
	p := Plan{query: q}
	p.IDs = querywords.Identifiers(q)
	seen := map[string]bool{}
	var all []string
	for _, w := range querywords.Words(q) {
		if seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if len([]rune(w)) < 2 && !unicode.IsDigit([]rune(w)[0]) {
			if dropStop {
				p.Stops = append(p.Stops, w) // "I" says whose words are asked about
			}
			continue
		}
		if querywords.IsRecencyWord(w) {
			p.Recent = true
			if dropStop {
				continue
			}
		}
		if dropStop && querywords.IsStopword(w) {
			p.Stops = append(p.Stops, w)
			continue
		}
		p.Terms = append(p.Terms, w)
	}
	if len(p.Terms) == 0 && len(p.IDs) == 0 {
		p.Terms, p.Stops = all, nil
	}
	p.All = append([]string(nil), p.Terms...)
	p.Speaker = speakerOf(q)
	return p
}

// speakerOf tells whose words a question asks about, from how it says it:
// the person's own ("what did I say", "I mentioned", "my …") or the
// assistant's ("what did you suggest", "your advice"). A question about
// both, or neither, gets "".
func speakerOf(q string) string {
	ws := querywords.Words(q)
	var user, asst bool
	for i, w := range ws {
		next := ""
		if i+1 < len(ws) {
			next = ws[i+1]
		}
		prev := ""
		if i > 0 {
			prev = ws[i-1]
		}
		switch {
		case (w == "i" && userVerbs[next]) || (userVerbs[w] && prev == "i"):
			user = true
		case w == "you" && asstVerbs[next], asstVerbs[w] && prev == "you",
			w == "your" && asstNouns[next]:
			asst = true
		}
	}
	switch {
	case user && !asst:
		return funes.RoleUser
	case asst && !user:
		return funes.RoleAssistant
	}
	return ""
}

// userVerbs and asstVerbs are what a person or the assistant did with
// words; asstNouns what the assistant gave.
var (
	userVerbs = setOf(`said say told tell mentioned mention asked ask wrote write shared share described describe
		explained explain wanted want planned plan decided decide chose choose picked prefer preferred like liked
		noted note stated state called named set listed`)
	asstVerbs = setOf(`suggest suggested recommend recommended propose proposed advise advised say said tell told
		mention mentioned give gave provide provided write wrote list listed explain explained call called offer
		offered outline outlined come came share shared`)
	asstNouns = setOf(`suggestion suggestions advice recommendation recommendations proposal idea ideas answer
		explanation plan tips list`)
)

// engineTerms is a plan as the engine's query terms, and where each of the
// plan's words and identifiers sits among them (for coverage, from the
// fields the hits say hold each term).
type engineTerms struct {
	Terms []engine.QueryTerm
	Word  map[string]int   // content word (All) → term index
	Alt   map[string][]int // content word → its other forms' term indexes (verbForms)
	ID    map[string]int   // identifier → term index
	Stop  map[string]int   // stopword → term index, when asked for
}

// verbForms are English verbs whose forms the Porter stemmer does not join:
// a question asks "what did I eat", the memory says "I ate". Each word
// stands for the others of its group.
var verbForms = func() map[string][]string {
	m := map[string][]string{}
	for _, g := range strings.Split(`eat ate eaten|buy bought|go went gone|make made|take took taken|see saw seen|get got gotten|
		have had|think thought|bring brought|write wrote written|run ran|drink drank drunk|meet met|pay paid|leave left|find found|
		give gave given|feel felt|keep kept|sell sold|send sent|spend spent|build built|teach taught|catch caught|choose chose chosen|
		fly flew flown|drive drove driven|ride rode ridden|swim swam swum|sing sang sung|begin began begun|break broke broken|
		wear wore worn|win won|lose lost|hear heard|hold held|sit sat|stand stood|understand understood|forget forgot forgotten|
		fall fell fallen|grow grew grown|know knew known|throw threw thrown|draw drew drawn|hide hid hidden|bite bit bitten|
		lend lent|bend bent|lead led|feed fed|sleep slept|sweep swept|weep wept|shoot shot|light lit|dig dug|hang hung|
		seek sought|fight fought|sting stung|swing swung|steal stole stolen|speak spoke spoken|wake woke woken|freeze froze frozen|
		choose chose|rise rose risen|shake shook shaken|forgive forgave forgiven|mistake mistook|overcome overcame|withdraw withdrew`, "|") {
		ws := strings.Fields(g)
		for _, w := range ws {
			for _, o := range ws {
				if o != w && !slices.Contains(m[w], o) {
					m[w] = append(m[w], o)
				}
			}
		}
	}
	return m
}()

// engineTerms renders the plan for the engine: content words searched in a
// turn's text, its title and (when date) its date words; identifiers in
// their own field (probed only, unless useIDs). Words pruned by cost, and
// stopwords (when stops), only probe: the hits say whether they hold them.
func (p Plan) engineTerms(useIDs, date, stops bool) engineTerms {
	et := engineTerms{Word: map[string]int{}, Alt: map[string][]int{}, ID: map[string]int{}, Stop: map[string]int{}}
	words := engine.FieldMask(1<<engine.Body | 1<<engine.Title)
	if date {
		words |= 1 << engine.Date
	}
	add := func(term string, f engine.FieldMask, probe bool) int {
		et.Terms = append(et.Terms, engine.QueryTerm{Term: term, Fields: f, Probe: probe})
		return len(et.Terms) - 1
	}
	searched := map[string]bool{}
	for _, w := range p.Terms {
		searched[w] = true
		et.Word[w] = add(engine.Term(w), words, false)
		if p.forms {
			for _, f := range verbForms[w] {
				if engine.Term(f) != engine.Term(w) {
					et.Alt[w] = append(et.Alt[w], add(engine.Term(f), words, false))
				}
			}
		}
	}
	for _, w := range p.All {
		if !searched[w] {
			et.Word[w] = add(engine.Term(w), 1<<engine.Body, true)
		}
	}
	for _, id := range p.IDs {
		et.ID[id] = add(engine.Term(id), 1<<engine.IDs, !useIDs)
	}
	if stops {
		for _, w := range p.Stops {
			et.Stop[w] = add(engine.Term(w), 1<<engine.Body, true)
		}
	}
	return et
}

// searched reports whether any term is searched (not only probed).
func (et engineTerms) searched() bool {
	for _, t := range et.Terms {
		if !t.Probe && t.Term != "" {
			return true
		}
	}
	return false
}

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
