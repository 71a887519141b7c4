package recall

import "github.com/ireneo-app/ireneo/engine"

// Tuning holds the knobs of the ranking pipeline.
type Tuning struct {
	Candidates  int  // the engine's turns ranked for the first hits (deeper pages rank from 4×, 16×, …: newRun)
	NoIDs       bool // ignore the identifier column
	NoStopwords bool // keep stopwords and question words in the query
	// KeepStopsOver keeps them for an identifier-free question of more than
	// this many content words; 0: never.
	KeepStopsOver int
	BodyWeight    float64 // BM25 column weights
	// CtxWeight adds the match of the turns around a chunk (up to
	// CtxTurns either side, in the same conversation) to its own: a turn
	// is scored with its exchange. 0 turns it off.
	CtxWeight   float64
	CtxTurns    int
	DateWeight  float64 // the chunk's date as words; 0 leaves it unsearched
	TitleWeight float64
	IDWeight    float64
	// SpeakerWeight is what a turn by the speaker a question is about
	// ("what did I say", "what did you suggest") adds, as a fraction of
	// the score. 0 turns it off.
	SpeakerWeight float64
	// FirstPerson is what a person's own turn adds, as a fraction of its
	// score, to a question in the first person ("my", "I") that does not
	// ask for the assistant's words ("what did you suggest"): it asks
	// about the person's life, which their messages tell and the replies
	// only echo. 0 turns it off.
	FirstPerson   float64
	HalfLifeDays  float64 // recency half-life; 0 turns recency off
	RecencyWeight float64 // the most recency can add, as a fraction of the score
	StarWeight    float64 // what a star adds, as a fraction of the score
	SameSession   float64 // score factor for each further hit from one conversation; 1 turns diversity off
	// GroupTurns: a conversation's first hit brings its next best turns
	// with it, up to GroupTurns hits in all, when they score at least
	// GroupShare of it; they are shown together, before the diversity
	// discount applies. 0 or 1 turns grouping off.
	GroupTurns int
	GroupShare float64
	// OneHitPerExchange keeps one hit of a message and the reply to it
	// (the better one; the other shows as its neighbour).
	OneHitPerExchange bool
	// SameExchange is a score factor for a turn whose message or reply is
	// already a hit (on top of SameSession); 0 or 1 turns it off.
	SameExchange float64
	// OwnTurn, above 0, lists a person's own message in place of the reply
	// it led to, for a first-person question (FirstPerson) whose hit is that
	// reply, when the message covers at least OwnTurn of the question: the
	// fact is the person's, the reply only echoes it. 0 turns it off.
	OwnTurn     float64
	NoNeighbors bool
	// CoverPower raises the share of the query a chunk covers (IDF
	// weighted) into the score: a chunk that holds every asked-for word beats
	// one that repeats a few of them. 0 turns it off.
	CoverPower float64
	// SessionCover weighs the conversation's other turns by their own
	// coverage in the session signal, so a small-talk turn that shares a
	// common word with the question lifts nothing.
	SessionCover bool
	// CoverMaxTerms limits coverage to queries of at most this many content
	// words and identifiers: a long message covers nothing whole. 0: any.
	CoverMaxTerms int
	// CoverMaxPlain is the same limit for a question without an identifier,
	// usually a paraphrase that no turn holds whole. 0: CoverMaxTerms.
	CoverMaxPlain int
	// TieShare: chunks that cover as much of the query as the best one and
	// score at least this share of it are ordered newest first, so the latest
	// report of a repeated measurement wins. TieShare applies to a question
	// naming an identifier, TieShareRecent to one asking for the latest.
	// 0 turns it off.
	TieShare       float64
	TieShareRecent float64
	// SessionWeight adds to a turn's match the matches of its
	// conversation's other turns (the best SessionTurns of them): a
	// conversation about the question shows in more than one turn. 0 turns
	// it off.
	SessionWeight float64
	SessionTurns  int
	// TurnLenPower scores a turn cut into several chunks as one document:
	// its best chunk's match is divided by its chunk count raised to this
	// power, as BM25 would normalise a long turn. 0 turns it off.
	TurnLenPower float64
	// StopWeight: a turn holding the question's stopwords ("what did I
	// say", "I got") gains up to this fraction of its score, their IDF
	// weighted share; they break ties between turns that match the content
	// words alike, as they do for plain BM25. 0 turns it off.
	StopWeight float64
	// StopAdd adds the IDF of the question's stopwords a turn holds, times
	// this, to its BM25 (as a term matched once in a turn of average length
	// scores): plain BM25's tie-break between turns that match the content
	// words alike. 0 turns it off.
	StopAdd float64
	// StopMaxTerms keeps StopWeight and StopAdd to questions of at most
	// this many content words and identifiers: a long paraphrase's
	// stopwords favour long replies, which hold them all. 0: any.
	StopMaxTerms int
	// StopFromText looks for StopAdd's stopwords in the candidates' text
	// rather than having the engine probe their long posting lists.
	StopFromText bool
	VectorWeight float64 // the semantic stage's weight beside BM25 (semantic.go); 0 turns it off
	// Echo is the score factor of a turn that holds nothing but the query's
	// own words (echo.go: the question asked before, which answers
	// nothing); 0 or 1 turns it off.
	Echo float64
	// FoldCopies shows turns of one text in several conversations (a
	// question asked again) as one hit, the best, with their count.
	FoldCopies bool
	// Dates reads the question's dates and order (when.go): the turns
	// inside an explicit day or range join the candidates and gain
	// SpanWeight of their score; a loose span and an order ("the first
	// time", "right after the move") favour the turns they fit, by up to
	// WhenWeight.
	Dates      bool
	SpanWeight float64
	WhenWeight float64
	// VerbForms searches a verb's irregular forms beside it ("eat", "ate").
	VerbForms bool
	// AnswerFollows: when the first hit asks something, the turn that
	// answers it (the next of the other speaker's) comes right after it,
	// ranked with it (answers.go).
	AnswerFollows bool
	// AskLoose counts any short turn with a question mark as asking, not
	// only one whose question holds the match (answers.go).
	AskLoose bool
	// IDHeld: for a question naming identifiers, a turn holding them
	// whole (its identifiers field, not only their parts in the text)
	// gains this fraction of its score, times the share it holds: V-261
	// outranks M-261 and the turns that only say "261". 0 turns it off.
	IDHeld float64
	// IDPartsOnce: coverage weighs a query identifier once, whole; its
	// parts ("err", "quota" of ERR_QUOTA_EXCEEDED) are not further words
	// asked for, so a turn holding the identifier alone does not cover the
	// topic words the question adds to it.
	IDPartsOnce bool
	// SessionOwnExchange leaves a turn's own exchange (the message and its
	// reply) out of the session signal: a reply repeating the message's
	// words is one place in the conversation, not a second one about the
	// question.
	SessionOwnExchange bool
	// BM25 overrides the engine's k1 and per-field b (the field weights stay
	// the *Weight knobs above); nil is engine.DefaultParams.
	BM25 *engine.Params
}

// DefaultTuning is the pipeline Ireneo ships; bench/README.md says which
// evidence each stage earned its place on.
var DefaultTuning = Tuning{
	Candidates:     40, // within noise of 50 on every set, type and granularity of the five, 0.83-0.86x the CPU on the heavy memory; 50 was within noise of 200 (BENCHMARKS.md)
	BodyWeight:     1.0,
	CtxWeight:      0,
	CtxTurns:       2,
	DateWeight:     2.0,
	TitleWeight:    0.1, // 0.5: recalldata noid 0.500 against the floor's 0.515 (BENCHMARKS.md); above 0, a word only a title holds still finds its conversation
	IDWeight:       2.0,
	SpeakerWeight:  0,
	HalfLifeDays:   180,
	RecencyWeight:  0.05,
	StarWeight:     0.10,
	SameSession:    0.85,
	CoverPower:     2,
	CoverMaxTerms:  12,
	CoverMaxPlain:  10,
	TieShare:       0,
	TieShareRecent: 0.4,
	SessionWeight:  0.5,
	SessionTurns:   2,

	FirstPerson: 1, // a person's own turn doubles for a question about their life: RHELM turn R@5 +0.030, RealMem +0.040, lifelike +0.006, recalldata unchanged (BENCHMARKS.md)

	SameExchange: 0.5, // 0.3 cost lifelike turn@3 0.006 for nothing once FirstPerson came; 0.7 costs RHELM conversation R@5 0.004, 0 its turn R@5 0.011 (BENCHMARKS.md)
	// The person's message for a first-person question whose hit is the
	// reply echoing it: lifelike user-said turn@3 +0.063, the one lifelike
	// type that was below the floor; RHELM −0.001 (within noise), RealMem,
	// recalldata and agentwork unchanged. It helps one set where
	// bench/README's rule asks two, and ships as SameExchange and StopAdd
	// did, for a type below the floor (BENCHMARKS.md "A person's own message").
	OwnTurn: 0.5,
	// Plain BM25's stopwords, for short questions: the floor's edge on
	// recalldata's identifier-free questions (BENCHMARKS.md). Read from the
	// candidates' text: the same ranking as the engine's probes on all four
	// sets, and cheaper (heavy memory p95 +2 ms, not +8 to +14).
	StopAdd:      2,
	StopMaxTerms: 9,
	StopFromText: true,
	BM25:         shippedBM25(),

	// Issue 27's identifier stages (BENCHMARKS.md "#27, the ranking side"):
	// a turn holding the question's identifier whole doubles (agentwork
	// hit@3 +0.020, lifelike turn@3 +0.007, RealMem turn R@5 +0.003), and
	// coverage weighs it once, not its parts as further words (recalldata
	// hit@1 +0.007, agentwork hit@1 +0.088).
	IDHeld:      1,
	IDPartsOnce: true,

	Dates:         true,
	SpanWeight:    1000, // a tier: the named days' turns first, the rest after them
	VerbForms:     true,
	WhenWeight:    0.5,
	Echo:          0.5,
	FoldCopies:    true,
	AnswerFollows: true,
}

// shippedBM25 is the engine's BM25F with k1 = 2: a turn that says a word
// several times keeps gaining a little longer (RHELM's long replies). A
// long turn's best passage counts 0.75 of its score, not the engine's 0.5:
// a fact inside a long reply (agentwork hit@3 +0.023, lifelike hit@3
// +0.012; 1 helps agentwork alone, BENCHMARKS.md).
func shippedBM25() *engine.Params {
	p := engine.DefaultParams()
	p.K1 = 2
	p.Passage = 0.75
	return &p
}
