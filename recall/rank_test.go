package recall

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// Table tests for the pipeline's pure parts: ranking, coverage and budget
// fitting; and two recalls that need the date words.

func TestCoverageTable(t *testing.T) {
	terms := []weightedTerm{{stem: "flaki", word: "flaky", idf: 3}, {stem: "test", word: "test", idf: 1}, {stem: "mt4471", id: true, idf: 2}}
	for _, c := range []struct {
		text string
		want float64
	}{
		{"Fix the flaky tests, MT-4471", 1},
		{"the tests", 1.0 / 6},
		{"flakiness of MT 4471", 3.0 / 6}, // "MT 4471" is two words, not the identifier
		{"", 0},
	} {
		if got := coverage(c.text, terms); got != c.want {
			t.Errorf("coverage(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if coverage("anything", nil) != 1 {
		t.Error("no terms should cover fully")
	}
	// Stopwords count as words, never as the start of another word.
	stops := []weightedTerm{{stem: "the", word: "the", idf: 1}, {stem: "for", word: "for", idf: 1}}
	for text, want := range map[string]float64{"there is a format": 0, "the format": 0.5, "For the record": 1} {
		if got := wordCoverage(text, stops); got != want {
			t.Errorf("wordCoverage(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestRankTable(t *testing.T) {
	tn := DefaultTuning
	tn.HalfLifeDays = 0
	tn.SpeakerWeight, tn.TieShare = 0.3, 0 // the table sets the tie share per case
	tn.SessionWeight = 0                   // TestRankConversationSignals checks it
	tn.SameSession = 0.5                   // a discount the table's scores show
	day := int64(86400)
	c := func(sess int64, seq int, bm25, cov float64, role string, ts int64) candidate {
		return candidate{sess: sess, seq: seq, bm25: bm25, cov: cov, role: role, ts: ts}
	}
	order := func(cs []candidate) []int64 {
		var out []int64
		for _, x := range cs {
			out = append(out, x.id())
		}
		return out
	}
	cases := []struct {
		name    string
		cands   []candidate
		tie     float64
		speaker string
		k       int
		want    []int64
	}{
		{"bm25 and coverage", []candidate{c(1, 0, -10, 0.5, funes.RoleUser, 0), c(2, 0, -8, 1, funes.RoleUser, 0)}, 0, "", 2, []int64{200, 100}},
		{"one hit per turn", []candidate{c(1, 0, -10, 1, funes.RoleUser, 0), c(1, 0, -9, 1, funes.RoleUser, 0)}, 0, "", 5, []int64{100}},
		{"diversity", []candidate{c(1, 0, -10, 1, funes.RoleUser, 0), c(1, 1, -9.9, 1, funes.RoleUser, 0), c(2, 0, -6, 1, funes.RoleUser, 0)}, 0, "", 2, []int64{100, 200}},
		{"speaker favoured", []candidate{c(1, 0, -10, 1, funes.RoleAssistant, 0), c(2, 0, -9, 1, funes.RoleUser, 0)}, 0, funes.RoleUser, 2, []int64{200, 100}},
		{"no speaker, no favour", []candidate{c(1, 0, -10, 1, funes.RoleAssistant, 0), c(2, 0, -9, 1, funes.RoleUser, 0)}, 0, "", 2, []int64{100, 200}},
		{"newest first among ties", []candidate{c(1, 0, -10, 1, funes.RoleUser, 1*day), c(2, 0, -9, 1, funes.RoleUser, 9*day), c(3, 0, -2, 1, funes.RoleUser, 20*day)}, 0.7, "", 3, []int64{200, 100, 300}},
		{"ties off", []candidate{c(1, 0, -10, 1, funes.RoleUser, 1*day), c(2, 0, -9, 1, funes.RoleUser, 9*day)}, 0, "", 2, []int64{100, 200}},
		{"empty", nil, 0, "", 3, nil},
	}
	for _, tc := range cases {
		if got := order(rank(tc.cands, tc.k, tn, tc.tie, tc.speaker)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: rank = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRankConversationSignals checks the stages that look past a turn's own
// match: its conversation's other matching turns, and the question's
// stopwords as a tie-breaker.
func TestRankConversationSignals(t *testing.T) {
	base := DefaultTuning
	base.HalfLifeDays, base.CoverPower, base.SameSession, base.SessionWeight = 0, 0, 1, 0
	c := func(sess int64, seq int, bm25, stopCov float64) candidate {
		return candidate{sess: sess, seq: seq, bm25: bm25, stopCov: stopCov, role: funes.RoleUser}
	}
	first := func(tn Tuning, cs []candidate) int64 { return rank(cs, 3, tn, 0, "")[0].id() }
	// One strong turn alone against a slightly weaker one whose
	// conversation matches in another turn too.
	cs := []candidate{c(1, 0, -10, 0), c(2, 0, -9, 0), c(2, 1, -8, 0)}
	if got := first(base, cs); got != 100 {
		t.Errorf("without the session signal the best turn leads: got %d", got)
	}
	tn := base
	tn.SessionWeight, tn.SessionTurns = 0.5, 2
	if got := first(tn, cs); got != 200 {
		t.Errorf("with the session signal the conversation that matches twice leads: got %d", got)
	}
	// Only the best SessionTurns other turns count: many weak turns don't
	// outweigh one strong one.
	many := []candidate{c(1, 0, -10, 0), c(1, 1, -10, 0), c(2, 0, -10, 0)}
	for i := 1; i <= 8; i++ {
		many = append(many, c(2, i, -4, 0))
	}
	tn.SessionTurns = 1
	if got := first(tn, many); got != 100 {
		t.Errorf("SessionTurns 1: one strong other turn beats eight weak ones; got %d", got)
	}
	// Stopwords break a near tie, and only a near tie.
	tn = base
	tn.StopWeight = 0.2
	if got := first(tn, []candidate{c(1, 0, -10, 0), c(2, 0, -9.5, 1)}); got != 200 {
		t.Errorf("stopwords should break a near tie: got %d", got)
	}
	if got := first(tn, []candidate{c(1, 0, -10, 0), c(2, 0, -7, 1)}); got != 100 {
		t.Errorf("stopwords should not beat a clearly better match: got %d", got)
	}
	// StopAdd adds the held stopwords' IDF to the BM25 itself: 1.5 of IDF
	// lifts a turn 1 behind, not one 2 behind.
	tn = base
	tn.StopAdd = 1
	sc := func(sess int64, bm25, stopIDF float64) candidate {
		x := c(sess, 0, bm25, 0)
		x.stopIDF = stopIDF
		return x
	}
	if got := first(tn, []candidate{sc(1, -10, 0), sc(2, -9, 1.5)}); got != 200 {
		t.Errorf("StopAdd: the stopwords' IDF should close a gap of 1: got %d", got)
	}
	if got := first(tn, []candidate{sc(1, -10, 0), sc(2, -8, 1.5)}); got != 100 {
		t.Errorf("StopAdd: the stopwords' IDF should not close a gap of 2: got %d", got)
	}
}

// TestSessionCover: with SessionCover a conversation's other turns lift a
// turn by what they match of the whole question, so small talk that
// shares one common word with it lifts nothing.
func TestSessionCover(t *testing.T) {
	tn := DefaultTuning
	tn.HalfLifeDays, tn.SameSession, tn.SameExchange = 0, 1, 0
	tn.SessionWeight, tn.SessionTurns, tn.CoverPower = 0.5, 2, 2
	c := func(sess int64, seq int, bm25, cov float64) candidate {
		return candidate{sess: sess, seq: seq, bm25: bm25, cov: cov, role: funes.RoleUser}
	}
	// Conversation 1: the fact, alone. Conversation 2: a weaker fact and a
	// small-talk turn that matches a common word strongly but covers little.
	cs := []candidate{c(1, 0, -10, 0.6), c(2, 0, -9.5, 0.6), c(2, 1, -12, 0.1)}
	if got := rank(cs, 3, tn, 0, "")[0].id(); got != 200 {
		t.Errorf("without SessionCover the small talk lifts its conversation's fact: got %d", got)
	}
	tn.SessionCover = true
	if got := rank(cs, 3, tn, 0, "")[0].id(); got != 100 {
		t.Errorf("with SessionCover the small talk lifts nothing: got %d", got)
	}
}

// TestDateWordsMatch: a question naming a month finds the turn of that
// month through the indexed date words, which the text itself never says.
func TestDateWordsMatch(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("march", "funes", "", "", time.Date(2026, 3, 11, 9, 0, 0, 0, time.UTC), "we picked the blue kiln glaze", "noted"),
		conv("june", "funes", "", "", time.Date(2026, 6, 2, 9, 0, 0, 0, time.UTC), "we picked the red kiln glaze", "noted"),
	)
	res, err := Recall(ctx, m, Options{Query: "which kiln glaze did we pick in March"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].SessionID != "march" {
		t.Fatalf("want the March conversation first, got %+v", res.Hits)
	}
}

// TestFirstReleaseMemoryRecallsWithNewRanking: a memory written by the
// first release (index layout 1) opens with no manual step, its index is
// rebuilt in this layout, and recall uses what the new layout adds: a
// question that only a date answers finds the conversations of that month.
func TestFirstReleaseMemoryRecallsWithNewRanking(t *testing.T) {
	// memory's TestOpenUpgradesFirstReleaseMemory checks the layout itself.
	m, err := memory.Open(copyMemory(t, v0Memory))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	for q, want := range map[string]map[string]bool{
		"what did we talk about in November 2023": {"conv-branch": true, "conv-gpt": true, "conv-nocurrent": true},
		"the build that failed in August 2025":    {"5f1c2d3e-0000-4000-8000-000000000003": true},
	} {
		res, err := Recall(ctx, m, Options{Query: q, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || !want[res.Hits[0].SessionID] {
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.SessionID)
			}
			t.Errorf("%q: top %v, want one of %v first", q, got, want)
		}
	}
}

// TestRankGroupsAndExchanges checks the two ways a conversation's turns are
// kept together: a first hit's near-equal turns brought along (grouping),
// and one hit per message and its reply.
func TestRankGroupsAndExchanges(t *testing.T) {
	base := DefaultTuning
	base.HalfLifeDays, base.CoverPower, base.SessionWeight = 0, 0, 0
	c := func(sess int64, seq int, bm25 float64, role string) candidate {
		return candidate{sess: sess, seq: seq, bm25: bm25, cov: 1, role: role}
	}
	order := func(tn Tuning, cs []candidate, k int) []int64 {
		var out []int64
		for _, x := range rank(append([]candidate(nil), cs...), k, tn, 0, "") {
			out = append(out, x.id())
		}
		return out
	}
	// Conversation 1 has two strong turns, conversation 2 one a little
	// weaker than the second of them.
	cs := []candidate{c(1, 0, -10, funes.RoleUser), c(1, 4, -9, funes.RoleUser), c(2, 0, -8, funes.RoleUser), c(3, 0, -3, funes.RoleUser)}
	if got := order(base, cs, 3); !reflect.DeepEqual(got, []int64{100, 200, 104}) {
		t.Errorf("diversity alone: %v, want the second conversation before the first's second turn", got)
	}
	g := base
	g.GroupTurns, g.GroupShare = 3, 0.8
	if got := order(g, cs, 3); !reflect.DeepEqual(got, []int64{100, 104, 200}) {
		t.Errorf("grouping: %v, want the first conversation's near-equal turn right after it", got)
	}
	g.GroupShare = 0.95
	if got := order(g, cs, 3); !reflect.DeepEqual(got, []int64{100, 200, 104}) {
		t.Errorf("grouping at 0.95: %v, want a turn below the share left to diversity", got)
	}
	// A message and its reply: one hit, the better; the next exchange of
	// the same conversation is another hit.
	ex := base
	ex.SameSession, ex.OneHitPerExchange = 1, true
	pair := []candidate{c(1, 2, -10, funes.RoleUser), c(1, 3, -9.5, funes.RoleAssistant), c(1, 5, -9, funes.RoleAssistant), c(2, 0, -5, funes.RoleUser)}
	if got := order(ex, pair, 3); !reflect.DeepEqual(got, []int64{102, 105, 200}) {
		t.Errorf("one hit per exchange: %v, want the reply at seq 3 folded into its message", got)
	}
}

// TestStopAddRecall: on a real memory, the question's stopwords lift the
// conversation that says it as the question does ("for the kiln at
// Kingsley") over one that matches the same content words without them,
// whether the stopwords come from the engine's probes or the turn's text;
// and without StopAdd the other leads (the control).
func TestStopAddRecall(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	mustIngest(t, m,
		conv("plain", "funes", "", "", day0.AddDate(0, 1, 0), "Decision kiln Kingsley: fit a speed drive, reference N-702.", "Noted."),
		conv("said", "funes", "", "", day0, "We agreed to fit a speed drive, for the kiln at Kingsley; it is logged as N-374.", "Noted."),
	)
	q := "what was the decision for the kiln at Kingsley, when we chose to fit a speed drive?"
	first := func(tn Tuning) string { return topHit(t, m, q, tn).SessionID }
	tn := DefaultTuning
	tn.StopAdd = 0
	if got := first(tn); got != "plain" {
		t.Fatalf("control: without StopAdd the conversation naming the decision leads, got %s", got)
	}
	tn.StopAdd, tn.StopFromText = 2, false
	if got := first(tn); got != "said" {
		t.Errorf("StopAdd (engine probes): want the conversation that says it as asked, got %s", got)
	}
	tn.StopFromText = true
	if got := first(tn); got != "said" {
		t.Errorf("StopAdd (from the text): want the conversation that says it as asked, got %s", got)
	}
}

func TestFirstPersonTable(t *testing.T) {
	for q, want := range map[string]bool{
		"whose phone served as my alternative?":  true,
		"Which camera did I rely on in January?": true,
		"what did I tell you about the kiln?":    true,
		"can you remind me what my dentist said": true, // asked of the assistant, about the person
		"what did you suggest for the kiln?":     false,
		"what did we decide about N-11?":         false, // an agent's "we"
		"kiln speed drive decision":              false,
		"Is MYSQL mine to fix?":                  true,
	} {
		if got := firstPerson(q); got != want {
			t.Errorf("firstPerson(%q) = %v, want %v", q, got, want)
		}
	}
	for q, want := range map[string]bool{
		"What was suggested when I asked about the slow tests?": true,
		"I got a tip about knee pain, what was it":              true,
		"remind me of the recommendation for my balcony":        true,
		"whose phone did I borrow until June?":                  false,
	} {
		if got := asksForAdvice(q); got != want {
			t.Errorf("asksForAdvice(%q) = %v, want %v", q, got, want)
		}
	}
}

// A question about the person's own life finds the message where they
// told it, not the longer reply that repeats its words.
func TestFirstPersonFavoursTheirTurn(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("told", "funes", "", "", day0,
			"Long morning at the field station: the gate code changed again, the truck needed air in two tyres, and Ruth moved the survey to the north wash. At the repair shop I borrowed Maya's phone until June 10, since my Pixel waits there for a new screen, and then I drove out to count burrows until the light went flat.",
			"A borrowed phone until June is a relief. Keep the borrowed phone charged, test the borrowed phone's camera, and back it up before June."),
		conv("a", "funes", "", "", day0.AddDate(0, 0, -3), "The kiln at Kingsley needs a speed drive.", "Fit the drive in March."),
		conv("b", "funes", "", "", day0.AddDate(0, 0, -2), "My sister's wedding is in the autumn.", "Congratulations to her."),
		conv("c", "funes", "", "", day0.AddDate(0, 0, -1), "Counting kit fox burrows in the wash today.", "Note the entrances and tracks."),
	)
	q := "whose phone did I borrow until June?"
	first := func(tn Tuning) string { return topHit(t, m, q, tn).Role }
	tn := DefaultTuning
	tn.FirstPerson = 0
	if got := first(tn); got != funes.RoleAssistant {
		t.Fatalf("control: without FirstPerson the reply that repeats the question's words leads, got %s", got)
	}
	tn.FirstPerson = DefaultTuning.FirstPerson
	if got := first(tn); got != funes.RoleUser {
		t.Errorf("FirstPerson: want the person's own message first, got %s", got)
	}
	// Asked for the assistant's words, the stage stays out: the same
	// ranking with it as without it.
	roles := func(q string, tn Tuning) string {
		res, err := Recall(ctx, m, Options{Query: q, Tuning: &tn})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Hits {
			out = append(out, fmt.Sprintf("%s %.6f", h.Role, h.Score))
		}
		return strings.Join(out, ", ")
	}
	off := DefaultTuning
	off.FirstPerson = 0
	for _, q := range []string{"what did you suggest for my borrowed phone until June?", "what was recommended when I asked about the borrowed phone until June?"} {
		if with, without := roles(q, DefaultTuning), roles(q, off); with != without {
			t.Errorf("%q asks for the assistant's words: %s with FirstPerson, %s without", q, with, without)
		}
	}
}

// With the person's turns favoured, a reply that matched better than the
// message it answers is not discounted as part of a shown exchange.
func TestFirstPersonKeepsBetterReply(t *testing.T) {
	tn := DefaultTuning
	tn.HalfLifeDays, tn.SessionWeight, tn.CoverPower = 0, 0, 0
	tn.SpeakerWeight = 1
	cands := []candidate{
		{sess: 1, seq: 1, bm25: -8, cov: 1, role: funes.RoleAssistant}, // the fix, in the reply
		{sess: 1, seq: 0, bm25: -5, cov: 1, role: funes.RoleUser},
		{sess: 2, seq: 1, bm25: -6, cov: 1, role: funes.RoleAssistant},
	}
	order := func(speaker string, cs []candidate) []int64 {
		var out []int64
		for _, c := range rank(append([]candidate(nil), cs...), 3, tn, 0, speaker) {
			out = append(out, c.id())
		}
		return out
	}
	if got, want := order(funes.RoleUser, cands), []int64{100, 101, 201}; !reflect.DeepEqual(got, want) {
		t.Errorf("favoured: got %v, want %v (the better reply right after its message)", got, want)
	}
	// A reply that matched worse than its message takes the exchange discount.
	worse := append([]candidate(nil), cands...)
	worse[0].bm25 = -3
	if got, want := order(funes.RoleUser, worse), []int64{100, 201, 101}; !reflect.DeepEqual(got, want) {
		t.Errorf("favoured, weaker reply: got %v, want %v", got, want)
	}
	if got, want := order("", cands), []int64{101, 201, 100}; !reflect.DeepEqual(got, want) {
		t.Errorf("not favoured: got %v, want %v", got, want)
	}
}

// topHit is the first hit recall gives for q under tn.
func topHit(t *testing.T, m *memory.Memory, q string, tn Tuning) Hit {
	t.Helper()
	res, err := Recall(context.Background(), m, Options{Query: q, Tuning: &tn})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatalf("%q: no hits", q)
	}
	return res.Hits[0]
}

// id names a test candidate by its conversation and turn: sess·100 + seq.
func (c candidate) id() int64 { return c.sess*100 + int64(c.seq) }

// TestSessionOwnExchange: with SessionOwnExchange the session signal counts
// a conversation's other exchanges, not the reply that repeats a message's
// words, so a note and its rendering ("Carry-over: V-261" / "Still open:
// V-261") do not lift each other past a better turn that stands alone,
// while a conversation that comes back to the question in another exchange
// still gains.
func TestSessionOwnExchange(t *testing.T) {
	tn := DefaultTuning
	tn.HalfLifeDays, tn.CoverPower, tn.SameSession, tn.SameExchange = 0, 0, 1, 0
	tn.SessionWeight, tn.SessionTurns = 0.5, 2
	c := func(sess int64, seq int, role string, bm25 float64) candidate {
		return candidate{sess: sess, seq: seq, bm25: bm25, role: role}
	}
	pair := []candidate{c(1, 0, funes.RoleUser, -10), c(1, 1, funes.RoleAssistant, -10), c(2, 1, funes.RoleAssistant, -11)}
	if got := rank(pair, 3, tn, 0, "")[0].id(); got == 201 {
		t.Errorf("without SessionOwnExchange the pair lifts itself past the better turn; got %d first", got)
	}
	tn.SessionOwnExchange = true
	if got := rank(pair, 3, tn, 0, "")[0].id(); got != 201 {
		t.Errorf("with SessionOwnExchange the turn that matches best leads; got %d", got)
	}
	// Two exchanges of one conversation still lift each other.
	two := []candidate{c(1, 0, funes.RoleUser, -10), c(1, 2, funes.RoleUser, -10), c(2, 1, funes.RoleAssistant, -11)}
	if got := rank(two, 3, tn, 0, "")[0].sess; got != 1 {
		t.Errorf("a conversation matching in two exchanges should lead; got conversation %d", got)
	}
}

// TestIDHeld: a turn holding the question's identifier whole outranks one
// that matches its parts and the topic a little better.
func TestIDHeld(t *testing.T) {
	tn := DefaultTuning
	tn.HalfLifeDays, tn.CoverPower, tn.SameSession, tn.SessionWeight = 0, 0, 1, 0
	parts := candidate{sess: 1, bm25: -10, role: funes.RoleAssistant}
	whole := candidate{sess: 2, bm25: -6, role: funes.RoleAssistant, idShare: 1}
	tn.IDHeld = 0
	if got := rank([]candidate{parts, whole}, 2, tn, 0, "")[0].sess; got != 1 {
		t.Errorf("IDHeld 0: the better match leads; got %d", got)
	}
	tn.IDHeld = 1
	if got := rank([]candidate{parts, whole}, 2, tn, 0, "")[0].sess; got != 2 {
		t.Errorf("IDHeld 1: the turn holding the identifier leads; got %d", got)
	}
	half := whole
	half.idShare = 0.5 // one of two identifiers: 1.5x, not enough for 6 against 10
	if got := rank([]candidate{parts, half}, 2, tn, 0, "")[0].sess; got != 1 {
		t.Errorf("IDHeld 1, half the identifiers: the better match leads; got %d", got)
	}
}

// OwnTurn (on by default, 0.5): for a first-person question whose best
// hit is a reply, the person's message it answers is listed in its place
// when it covers enough of the question; the reply may follow.
func TestOwnTurnListsThePersonsMessage(t *testing.T) {
	tn := DefaultTuning
	tn.HalfLifeDays, tn.SessionWeight = 0, 0
	tn.SpeakerWeight, tn.OwnTurn = 1, 0.5
	cands := []candidate{
		{sess: 1, seq: 1, bm25: -20, cov: 1, role: funes.RoleAssistant}, // the reply echoes every word
		{sess: 1, seq: 0, bm25: -5, cov: 0.6, role: funes.RoleUser},     // the fact is the person's
		{sess: 2, seq: 1, bm25: -4, cov: 1, role: funes.RoleAssistant},
	}
	first := func(tn Tuning, speaker string, cs []candidate) int64 {
		return rank(append([]candidate(nil), cs...), 3, tn, 0, speaker)[0].id()
	}
	if got := first(tn, funes.RoleUser, cands); got != 100 {
		t.Errorf("first-person question: first hit %d, want the person's message 100", got)
	}
	if got := first(tn, "", cands); got != 101 {
		t.Errorf("not first person: first hit %d, want the reply 101", got)
	}
	low := append([]candidate(nil), cands...)
	low[1].cov = 0.4
	if got := first(tn, funes.RoleUser, low); got != 101 {
		t.Errorf("a message covering too little: first hit %d, want the reply 101", got)
	}
	tn.OwnTurn = 0
	if got := first(tn, funes.RoleUser, cands); got != 101 {
		t.Errorf("off: first hit %d, want the reply 101", got)
	}
}
