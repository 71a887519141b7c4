package recalldata

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// ComboKey is what an identifier-free question names: the topic, the kind of
// machine and the site. A question is asked only when exactly one
// conversation's fact has its key.
func ComboKey(f Fact) string { return f.Kind + "/" + f.Topic + "/" + f.Noun + "/" + f.Site }

// makeQuestions draws the questions from their own seeded source, so that
// changing the number of questions never changes the history.
func makeQuestions(cfg Config, convs []*Conversation) []Question {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e37_79b9))
	pick := func(list []string) string { return list[rng.IntN(len(list))] }

	var facts []*Conversation
	combos := map[string]int{}
	latest := map[string]*Conversation{}
	var seriesKeys []string
	for _, c := range convs {
		f := c.Fact
		if f.Kind == KindMeasure {
			if l, ok := latest[f.Series]; !ok || f.SeriesN > l.Fact.SeriesN {
				if !ok {
					seriesKeys = append(seriesKeys, f.Series)
				}
				latest[f.Series] = c
			}
			continue
		}
		facts = append(facts, c)
		combos[ComboKey(f)]++
	}

	var qs []Question
	add := func(typ string, c *Conversation, text, topicWords string) {
		qs = append(qs, Question{
			ID: fmt.Sprintf("%s-%04d", typ, len(qs)), Type: typ, Kind: c.Fact.Kind,
			Text: text, Topic: topicWords, Harness: c.Harness, SessionID: c.ID, Answer: c.Fact.Answer,
		})
	}

	// Short and long: the same facts, asked twice.
	for _, c := range sample(rng, facts, cfg.FactQuestions) {
		f := c.Fact
		tp := topicOf(f)
		site := ""
		if rng.IntN(3) == 0 {
			site = " at " + f.Site
		}
		var short, long string
		switch f.Kind {
		case KindTicket:
			short = pick([]string{"%[1]s %[2]s ticket", "%[2]s %[1]s work order", "ticket for %[1]s %[2]s"})
			long = pick([]string{
				"which work order was raised for the %[3]s on %[4]s %[1]s%[5]s?",
				"what ticket number did we open for the %[3]s on the %[4]s %[1]s%[5]s?",
				"can you find the maintenance ticket we logged about the %[3]s on %[1]s%[5]s?",
				"remind me, what was the work order for %[4]s %[1]s%[5]s when it had the %[3]s?",
			})
		case KindOwner:
			short = pick([]string{"%[1]s %[2]s owner", "who owns %[2]s %[1]s", "%[2]s %[1]s assigned to"})
			long = pick([]string{
				"who agreed to take on the %[3]s for %[4]s %[1]s%[5]s?",
				"who is responsible for the %[3]s on the %[4]s %[1]s%[5]s?",
				"remind me who said they would handle the %[3]s of %[1]s%[5]s?",
			})
		case KindDecision:
			short = pick([]string{"%[1]s %[2]s decision", "%[1]s %[2]s decision ref", "decision record %[1]s %[2]s"})
			long = pick([]string{
				"what was the decision reference when we chose to %[3]s on %[4]s %[1]s%[5]s?",
				"which decision record covers the call to %[3]s for the %[4]s %[1]s%[5]s?",
				"we made a decision to %[3]s for %[1]s%[5]s; what reference did we log it under?",
			})
		}
		add(TypeShort, c, fmt.Sprintf(short, f.Machine, tp.Short), tp.Short)
		add(TypeLong, c, fmt.Sprintf(long, f.Machine, tp.Short, tp.Long, f.Noun, site), tp.Long)
	}

	// Knowledge updates: only the newest report of a series is right.
	var newest []*Conversation
	for _, k := range seriesKeys {
		newest = append(newest, latest[k])
	}
	for _, c := range sample(rng, newest, cfg.UpdateQuestions) {
		f := c.Fact
		q := quantityOf(f)
		t := pick([]string{
			"what's the latest %[2]s on line %[1]s at %[3]s?",
			"what is the current %[2]s for line %[1]s?",
			"%[1]s %[4]s latest",
			"%[1]s %[4]s",
			"what %[2]s did line %[1]s at %[3]s report?",
			"how is line %[1]s doing on %[2]s these days?",
		})
		add(TypeUpdate, c, fmt.Sprintf(t, f.Machine, q.Name, f.Site, q.Short), q.Name)
	}

	// Identifier-free: only where the combination names one conversation.
	var unique []*Conversation
	for _, c := range facts {
		if combos[ComboKey(c.Fact)] == 1 {
			unique = append(unique, c)
		}
	}
	for _, c := range sample(rng, unique, cfg.NoIDQuestions) {
		f := c.Fact
		tp := topicOf(f)
		var t string
		switch f.Kind {
		case KindTicket:
			t = pick([]string{
				"which ticket did we open for the %[1]s on the %[2]s at %[3]s?",
				"what was the work order number for the %[1]s problem with the %[2]s at the %[3]s site?",
			})
		case KindOwner:
			t = pick([]string{
				"who took on %[1]s for the %[2]s at the %[3]s site?",
				"who said they would handle %[1]s on the %[2]s over at %[3]s?",
			})
		case KindDecision:
			t = pick([]string{
				"what was the decision reference for the %[2]s at %[3]s, when we chose to %[1]s?",
				"we decided to %[1]s, the %[2]s at %[3]s; which decision record was that?",
			})
		}
		add(TypeNoID, c, fmt.Sprintf(t, tp.NoID, f.Noun, f.Site), tp.NoID)
	}

	sort.SliceStable(qs, func(i, j int) bool { return typeOrder(qs[i].Type) < typeOrder(qs[j].Type) })
	return qs
}

func typeOrder(t string) int {
	for i, x := range QuestionTypes {
		if x == t {
			return i
		}
	}
	return len(QuestionTypes)
}

// sample returns n of list in a seeded random order; n < 0 means all.
func sample(rng *rand.Rand, list []*Conversation, n int) []*Conversation {
	out := append([]*Conversation(nil), list...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	if n >= 0 && n < len(out) {
		out = out[:n]
	}
	return out
}

// Digest is a SHA-256 of the conversations, to tell two histories apart.
func (d *Dataset) Digest() [32]byte {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, c := range d.Conversations {
		enc.Encode(c)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// ByID indexes conversations by harness and id.
func (d *Dataset) ByID() map[[2]string]*Conversation {
	m := make(map[[2]string]*Conversation, len(d.Conversations))
	for _, c := range d.Conversations {
		m[[2]string{c.Harness, c.ID}] = c
	}
	return m
}

// Filter keeps the questions of the given types; an empty list keeps all.
func Filter(qs []Question, types []string) []Question {
	if len(types) == 0 {
		return qs
	}
	var out []Question
	for _, q := range qs {
		for _, t := range types {
			if strings.EqualFold(q.Type, t) {
				out = append(out, q)
				break
			}
		}
	}
	return out
}
