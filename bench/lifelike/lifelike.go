// Package lifelike generates a seeded, realistic history of one person's
// AI-assistant conversations (ChatGPT, Claude.ai, Codex, Claude Code) in
// the four export formats, with questions whose gold evidence is known:
// an independent recall benchmark, written without reading Ireneo's
// ranking code.
//
// Generate plans the history and the questions; WriteExports renders
// each conversation from its own seed and streams it to disk, so the
// text is never held whole in memory.
package lifelike

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"time"
)

// Question types.
const (
	TypeShort         = "short"          // terse agent query: an identifier and key nouns
	TypeLong          = "long"           // natural paraphrased question with an identifier
	TypeNoID          = "noid"           // natural question, no identifier, paraphrased topic words
	TypeUserSaid      = "user-said"      // the evidence is the person's own message
	TypeAssistantSaid = "assistant-said" // the evidence is an assistant turn
	TypeTemporal      = "temporal"       // the conversation's month decides the answer
	TypeUpdate        = "update"         // a value that changed; only the newest is right
)

// Types lists the question types in report order.
var Types = []string{TypeShort, TypeLong, TypeNoID, TypeUserSaid, TypeAssistantSaid, TypeTemporal, TypeUpdate}

// Config sizes the history.
type Config struct {
	N    int   // conversations
	Seed int64 // the same (N, Seed) gives the same history, byte for byte
}

// Question is one benchmark question with its gold evidence.
type Question struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Text string `json:"text"`
	// Harness and SessionID name the gold conversation as Ireneo stores it.
	Harness   string `json:"harness"`
	SessionID string `json:"session_id"`
	// TurnUUIDs are the Ireneo turn_uuids of the evidence turns.
	TurnUUIDs []string `json:"turn_uuids"`
	// Answer is a string the gold turn contains.
	Answer string `json:"answer"`
	// Date is the gold conversation's start (UTC), for reports.
	Date time.Time `json:"date"`
}

// WriteQuestions writes the questions as JSON lines, one a line.
func (d *Dataset) WriteQuestions(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range d.Questions {
		if err := enc.Encode(&d.Questions[i]); err != nil {
			return err
		}
	}
	return nil
}

// Dataset is a planned history and its questions.
type Dataset struct {
	Questions []Question
	// Conversations counts the conversations per harness.
	Conversations map[string]int
	// SubAgents counts Claude Code sub-agent transcripts, which Ireneo
	// stores as sessions of their own beside the Conversations.
	SubAgents int

	cfg   Config
	convs []*convPlan
	facts []*fact
}

// Conversation kinds.
const (
	kindSmallTalk = iota // generic chat, no facts
	kindChat             // a topical chat
	kindAgent            // a coding-agent session
)

type convPlan struct {
	idx      int
	harness  string
	id       string
	start    time.Time
	fixed    bool // the date is set by a fact
	kind     int
	size     int // filler exchanges
	proj     *project
	facts    []*fact
	families map[int]bool
	echo     []string // everyday tasks the small talk is about, first
	// subagents is how many Task sub-agents a Claude Code session starts;
	// each is its own transcript, and Ireneo stores it as its own session.
	subagents int
}

// Harness names as Ireneo stores them.
const (
	hChatGPT    = "chatgpt"
	hClaude     = "claude"
	hCodex      = "codex"
	hClaudeCode = "claude_code"
)

// perType is how many questions of each type: about 12% of N, at least 3
// and at most 300.
func perType(n int) int {
	q := n * 12 / 100
	if q < 3 {
		q = 3
	}
	if q > 300 {
		q = 300
	}
	return q
}

func seedRand(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

// Stream numbers: the plan, the questions' wording, and one per
// conversation (offset so they never collide).
const (
	streamPlan      = 1
	streamQuestions = 2
	streamConv      = 1 << 32
)

// Generate plans a history of cfg.N conversations and its questions.
func Generate(cfg Config) *Dataset {
	if cfg.N < 1 {
		cfg.N = 1
	}
	r := seedRand(cfg.Seed, streamPlan)
	d := &Dataset{cfg: cfg, Conversations: map[string]int{}}
	d.planConversations(r)
	d.planFacts(r)
	d.place(r)
	d.locateEvidence()
	d.ask()
	return d
}

func (d *Dataset) planConversations(r *rand.Rand) {
	n := d.cfg.N
	hs := make([]string, 0, n)
	counts := []struct {
		h string
		n int
	}{{hChatGPT, n * 30 / 100}, {hClaude, n * 30 / 100}, {hCodex, n * 20 / 100}}
	for _, c := range counts {
		for i := 0; i < c.n; i++ {
			hs = append(hs, c.h)
		}
	}
	for len(hs) < n {
		hs = append(hs, hClaudeCode)
	}
	r.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
	span := spanEnd.Sub(spanStart)
	for i, h := range hs {
		c := &convPlan{idx: i, harness: h, families: map[int]bool{}}
		c.start = randomMoment(r, span)
		switch {
		case h == hCodex || h == hClaudeCode:
			c.kind = kindAgent
			c.proj = projects[r.IntN(len(projects))]
			c.size = agentSize(r)
			if h == hClaudeCode && r.IntN(7) == 0 {
				c.subagents = 1 + r.IntN(2)
				d.SubAgents += c.subagents
			}
		case r.IntN(4) == 0:
			c.kind = kindSmallTalk
			c.proj = projects[5+r.IntN(2)]
			c.size = 1 + r.IntN(3)
		default:
			c.kind = kindChat
			c.proj = projects[r.IntN(len(projects))]
			c.size = chatSize(r)
		}
		d.convs = append(d.convs, c)
		d.Conversations[h]++
	}
}

// randomMoment is a time in the span, weighted to working hours and
// weekdays (in the person's UTC-5 local time).
func randomMoment(r *rand.Rand, span time.Duration) time.Time {
	for {
		t := spanStart.Add(time.Duration(r.Int64N(int64(span))))
		local := t.In(localZone)
		h := local.Hour()
		wd := local.Weekday()
		w := 1.0
		switch {
		case h < 7:
			w = 0.05
		case h < 9 || h > 21:
			w = 0.4
		}
		if wd == time.Saturday || wd == time.Sunday {
			w *= 0.5
		}
		if r.Float64() < w {
			return t.Truncate(time.Second)
		}
	}
}

// localZone is the person's time zone (fixed, so no tzdata is needed).
var localZone = time.FixedZone("EST", -5*3600)

func chatSize(r *rand.Rand) int {
	switch x := r.IntN(100); {
	case x < 55:
		return 1
	case x < 80:
		return 2 + r.IntN(3)
	case x < 95:
		return 5 + r.IntN(5)
	default:
		return 10 + r.IntN(11)
	}
}

func agentSize(r *rand.Rand) int {
	switch x := r.IntN(100); {
	case x < 55:
		return 1
	case x < 85:
		return 2 + r.IntN(2)
	default:
		return 4 + r.IntN(6)
	}
}

// planFacts makes the fact families, enough for each type's questions.
func (d *Dataset) planFacts(r *rand.Rand) {
	q := perType(d.cfg.N)
	used := map[string]bool{}
	fam := 0
	add := func(fs []*fact) bool {
		if len(fs) == 0 {
			return false
		}
		for _, f := range fs {
			f.family = fam
		}
		fam++
		d.facts = append(d.facts, fs...)
		return true
	}
	count := func(typ string) int {
		n := 0
		for _, f := range d.facts {
			if f.typ == typ {
				n++
			}
		}
		return n
	}
	// short and long share families: the same kind of incident or bug, with
	// different identifiers.
	ns, nl := 0, 0
	for ns < q || nl < q {
		size := 2 + r.IntN(2)
		var types []string
		for i := 0; i < size; i++ {
			switch {
			case ns < q && (nl >= q || r.IntN(2) == 0):
				types = append(types, TypeShort)
				ns++
			case nl < q:
				types = append(types, TypeLong)
				nl++
			default:
				types = append(types, "")
			}
		}
		add(idFamily(r, fam, types, used))
	}
	gen := func(typ string, minSize, maxSize int, f func([]string) []*fact) {
		misses := 0
		for have := count(typ); have < q && misses < 200; have = count(typ) {
			size := minSize + r.IntN(maxSize-minSize+1)
			types := make([]string, size)
			for i := range types {
				if have+i < q {
					types[i] = typ
				}
			}
			if !add(f(types)) {
				misses++
			}
		}
	}
	gen(TypeNoID, 2, 4, func(t []string) []*fact { return noidFamily(r, fam, t, used) })
	gen(TypeUserSaid, 1, 3, func(t []string) []*fact { return userSaidFamily(r, fam, t, used) })
	gen(TypeAssistantSaid, 1, 3, func(t []string) []*fact { return assistantSaidFamily(r, fam, t, used) })
	topics := len(temporalKinds) * 5
	tsize := (q + topics - 1) / topics
	if tsize < 3 {
		tsize = 3
	}
	gen(TypeTemporal, tsize, tsize+2, func(t []string) []*fact { return temporalFamily(r, fam, t, used) })
	misses := 0
	for count(TypeUpdate) < q && misses < 200 {
		if !add(updateFamily(r, fam, used)) {
			misses++
		}
	}
}

// place puts each fact in a conversation: personal facts in chats only, at
// most one date-bound fact per conversation, never two of one family
// together.
func (d *Dataset) place(r *rand.Rand) {
	order := r.Perm(len(d.facts))
	capOf := func(c *convPlan) int {
		if c.kind == kindAgent {
			return 3
		}
		return 2
	}
	ok := func(c *convPlan, f *fact, relax int) bool {
		if c.kind == kindSmallTalk || c.families[f.family] {
			return false
		}
		if f.personal && c.kind == kindAgent {
			return false
		}
		if !f.when.IsZero() && c.fixed {
			return false
		}
		return len(c.facts) < capOf(c)+relax
	}
	for _, fi := range order {
		f := d.facts[fi]
		var c *convPlan
		for tries := 0; tries < 60 && c == nil; tries++ {
			x := d.convs[r.IntN(len(d.convs))]
			if ok(x, f, 0) {
				c = x
			}
		}
		for relax := 0; c == nil; relax++ {
			start := r.IntN(len(d.convs))
			for i := range d.convs {
				x := d.convs[(start+i)%len(d.convs)]
				if ok(x, f, relax) {
					c = x
					break
				}
			}
			if relax > 50 {
				// No chat conversation at all (tiny N): use any.
				c = d.convs[start]
				if c.kind == kindSmallTalk {
					c.kind = kindChat
				}
			}
		}
		if !f.when.IsZero() {
			c.start = f.when
			c.fixed = true
		}
		if c.kind == kindChat && f.proj != nil && len(c.facts) == 0 && !f.personal {
			c.proj = f.proj
		}
		if c.kind == kindAgent && len(c.facts) == 0 && f.proj != nil {
			c.proj = f.proj
		}
		c.facts = append(c.facts, f)
		c.families[f.family] = true
		f.conv = c.idx
	}
	// Other chats mention the subjects of the person's own facts (the race,
	// the trip, the sofa), as a real history does.
	var small []*convPlan
	for _, c := range d.convs {
		if c.kind == kindSmallTalk {
			small = append(small, c)
		}
	}
	for _, f := range d.facts {
		if len(f.echo) == 0 || len(small) == 0 {
			continue
		}
		for k := 0; k < 2; k++ {
			c := small[r.IntN(len(small))]
			c.echo = append(c.echo, f.echo[r.IntN(len(f.echo))])
			if c.size < len(c.echo) {
				c.size = len(c.echo)
			}
		}
	}
	for _, c := range d.convs {
		c.id = d.convID(c)
	}
}

// locateEvidence renders each conversation that holds a fact and records
// its evidence turn.
func (d *Dataset) locateEvidence() {
	for _, c := range d.convs {
		if len(c.facts) == 0 {
			continue
		}
		cv := d.render(c)
		for _, f := range c.facts {
			f.turn = cv.evidence[f]
		}
	}
}

// ask words the questions, from their own random stream.
func (d *Dataset) ask() {
	r := seedRand(d.cfg.Seed, streamQuestions)
	for _, typ := range Types {
		n := 0
		for _, f := range d.facts {
			if f.typ != typ {
				continue
			}
			c := d.convs[f.conv]
			n++
			q := Question{
				ID: fmt.Sprintf("%s-%03d", typ, n), Type: typ, Text: f.qs[r.IntN(len(f.qs))],
				Harness: c.harness, SessionID: c.id, Answer: f.answer, Date: c.start,
			}
			if f.turn != "" {
				q.TurnUUIDs = []string{f.turn}
			}
			d.Questions = append(d.Questions, q)
		}
	}
}

// sortedConvs returns the conversations of one harness by start time.
func (d *Dataset) sortedConvs(h string) []*convPlan {
	var out []*convPlan
	for _, c := range d.convs {
		if c.harness == h {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start.Before(out[j].start) })
	return out
}
