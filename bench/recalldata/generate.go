// Package recalldata generates the synthetic conversation history of the
// recall benchmark (issue 7), and the questions asked of it.
//
// The history is in the spirit of the funes article's benchmark: N
// conversations of about six messages, each hiding one checkable fact (a
// ticket number, a task owner, a decision reference, or a production line's
// weekly figure) among small talk. Machines and sites recur in about six
// conversations each, near-identical facts are told about different machines
// of one kind, and a line's figure is re-reported week after week, so that a
// query has to match a combination of words and, for a figure, the newest
// report. Every fact is asked as a short agent-style query and as a long
// paraphrased question; some are also asked without their identifier, only
// when the remaining words name exactly one conversation.
//
// Generation is deterministic: the same Config, seed included, gives the
// same conversations, identifiers, timestamps and questions, byte for byte.
// WriteExports writes the history in the four export formats Ireneo imports
// (ChatGPT, Claude.ai, Codex CLI, Claude Code).
package recalldata

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Question types.
const (
	TypeShort  = "short"  // an agent's short query around the identifier
	TypeLong   = "long"   // a long paraphrased question with the identifier
	TypeUpdate = "update" // a question for the latest of a re-reported figure
	TypeNoID   = "noid"   // a question without the identifier
)

// QuestionTypes lists the question types in report order.
var QuestionTypes = []string{TypeShort, TypeLong, TypeUpdate, TypeNoID}

// Fact kinds.
const (
	KindTicket   = "ticket"   // a work order number raised for an issue on a machine
	KindOwner    = "owner"    // the person who took on a task for a machine
	KindDecision = "decision" // the reference of a decision about a machine
	KindMeasure  = "measure"  // a line's weekly figure, re-reported in a series
)

// Config says what to generate. Zero fields take the defaults.
type Config struct {
	N    int    // conversations; default 1000
	Seed uint64 // default 1

	Start time.Time // first day of the history, UTC; default 2025-12-01
	Days  int       // span of the history in days; default 365

	// UpdateShare is the share of conversations that belong to
	// knowledge-update series; default 0.15.
	UpdateShare float64

	// Questions per type. FactQuestions facts are each asked twice (short
	// and long). A negative value asks all; zero takes the default.
	FactQuestions   int // default 600
	NoIDQuestions   int // default 400
	UpdateQuestions int // default 400
}

func (c Config) withDefaults() Config {
	if c.N <= 0 {
		c.N = 1000
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Start.IsZero() {
		c.Start = time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	}
	c.Start = c.Start.UTC()
	if c.Days <= 0 {
		c.Days = 365
	}
	if c.UpdateShare <= 0 {
		c.UpdateShare = 0.15
	}
	if c.FactQuestions == 0 {
		c.FactQuestions = 600
	}
	if c.NoIDQuestions == 0 {
		c.NoIDQuestions = 400
	}
	if c.UpdateQuestions == 0 {
		c.UpdateQuestions = 400
	}
	return c
}

// Dataset is a generated history and its questions.
type Dataset struct {
	Config        Config
	Conversations []*Conversation // in order of their first message
	Questions     []Question
}

// Conversation is one synthetic conversation, before it is written in an
// export format.
type Conversation struct {
	Harness  string // funes.HarnessChatGPT, …
	ID       string // the source's own conversation id, as importers must keep it
	Title    string // the title the source gives it; "" for Codex
	Workdir  string // the working directory of Codex and Claude Code sessions
	Messages []Message
	Fact     Fact
	FactMsg  int // index of the message that states the fact
}

// Message is one message of a conversation.
type Message struct {
	UUID     string // the source's message id
	Role     string // funes.RoleUser or funes.RoleAssistant
	TS       time.Time
	Text     string
	Thinking string     // assistant reasoning shown before the text, if any
	Tools    []ToolCall // tool calls an agent made before its text
}

// ToolCall is one shell command a coding agent ran, and its output.
type ToolCall struct {
	ID      string
	Command string
	Output  string
}

// Fact is the one checkable fact a conversation hides.
type Fact struct {
	Kind    string // KindTicket, …
	Topic   string // the issue, task, decision or quantity id
	Machine string // the machine (K-039) or the line (L-07)
	Noun    string // the machine's noun (kiln), or "line"
	Site    string
	Answer  string // MT-4471, Ravi, DR-512, 3.4%
	Series  string // for measures: the series key, line/quantity
	SeriesN int    // for measures: position in the series, 0 = oldest
}

// Question is one benchmark question with its expected conversation.
type Question struct {
	ID        string
	Type      string // TypeShort, …
	Kind      string // the fact kind asked about
	Text      string
	Topic     string // the words the question uses for the fact's topic
	Harness   string // expected conversation
	SessionID string
	Answer    string // the string the returned text should contain
}

// Started is the time of a conversation's first message.
func (c *Conversation) Started() time.Time { return c.Messages[0].TS }

// Text is all of a conversation's message text, as the fact and small talk
// read; used by tests and by the miss report.
func (c *Conversation) Text() string {
	var b strings.Builder
	for _, m := range c.Messages {
		b.WriteString(m.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// harnessWeights spreads conversations over the four sources.
var harnessWeights = []struct {
	name string
	w    float64
}{
	{funes.HarnessChatGPT, 0.30},
	{funes.HarnessClaude, 0.30},
	{funes.HarnessCodex, 0.20},
	{funes.HarnessClaudeCode, 0.20},
}

var workdirs = []string{
	"/home/dana/src/plant-maint", "/home/dana/src/ops-notes",
	"/home/dana/work/maint-scripts", "/home/dana/work/reports",
}

type machine struct {
	id     string
	typ    int
	site   string
	uses   int
	topics map[string]bool
}

type gen struct {
	cfg  Config
	rng  *rand.Rand
	used map[string]bool // answers and identifiers handed out
}

// Generate makes the history and questions that cfg describes.
func Generate(cfg Config) *Dataset {
	cfg = cfg.withDefaults()
	g := &gen{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x1eb0_f00d)), used: map[string]bool{}}

	nUpd := int(math.Round(float64(cfg.N) * cfg.UpdateShare))
	if cfg.N >= 6 && nUpd < 3 {
		nUpd = 3
	}
	nFacts := cfg.N - nUpd

	facts := g.makeFacts(nFacts)
	series := g.makeSeries(nUpd)

	var convs []*Conversation
	for _, f := range facts {
		start := cfg.Start.Add(time.Duration(g.rng.Int64N(int64(cfg.Days) * int64(24*time.Hour))))
		convs = append(convs, g.conversation(f, start.Truncate(time.Second), nil))
	}
	for _, s := range series {
		span := cfg.Days - 7*len(s) - 1
		if span < 1 {
			span = 1
		}
		start := cfg.Start.Add(time.Duration(g.rng.Int64N(int64(span) * int64(24*time.Hour))))
		for i, f := range s {
			ts := start.Add(time.Duration(i)*7*24*time.Hour + time.Duration(g.rng.Int64N(int64(20*time.Hour))))
			var prev *Fact
			if i > 0 {
				prev = &s[i-1]
			}
			convs = append(convs, g.conversation(f, ts.Truncate(time.Second), prev))
		}
	}
	sort.SliceStable(convs, func(i, j int) bool { return convs[i].Started().Before(convs[j].Started()) })

	d := &Dataset{Config: cfg, Conversations: convs}
	d.Questions = makeQuestions(cfg, convs)
	return d
}

func (g *gen) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// weighted picks an index by weight.
func (g *gen) weighted(ws ...float64) int {
	total := 0.0
	for _, w := range ws {
		total += w
	}
	x := g.rng.Float64() * total
	for i, w := range ws {
		if x < w {
			return i
		}
		x -= w
	}
	return len(ws) - 1
}

// unique draws identifiers from draw until one is new.
func (g *gen) unique(draw func() string) string {
	for {
		s := draw()
		if !g.used[s] {
			g.used[s] = true
			return s
		}
	}
}

// makeMachines makes about one machine per six fact conversations.
func (g *gen) makeMachines(nFacts int) [][]*machine {
	n := max(len(equipmentTypes)*2, (nFacts+5)/6)
	perType := min(999, (n+len(equipmentTypes)-1)/len(equipmentTypes))
	byType := make([][]*machine, len(equipmentTypes))
	for t, e := range equipmentTypes {
		for range perType {
			id := g.unique(func() string { return fmt.Sprintf("%s-%03d", e.Letter, 1+g.rng.IntN(999)) })
			byType[t] = append(byType[t], &machine{id: id, typ: t, site: g.pick(sites), topics: map[string]bool{}})
		}
	}
	return byType
}

// makeFacts makes the one-off facts in clusters: the same topic told about
// one to three machines of one kind, the near-identical distractors.
func (g *gen) makeFacts(n int) []Fact {
	byType := g.makeMachines(n)
	var facts []Fact
	for len(facts) < n {
		kind := []string{KindTicket, KindOwner, KindDecision}[g.weighted(0.4, 0.3, 0.3)]
		var tp topic
		switch kind {
		case KindTicket:
			tp = issues[g.rng.IntN(len(issues))]
		case KindOwner:
			tp = tasks[g.rng.IntN(len(tasks))]
		default:
			tp = decisions[g.rng.IntN(len(decisions))]
		}
		t := g.rng.IntN(len(equipmentTypes))
		size := min(1+g.weighted(0.2, 0.3, 0.5), n-len(facts))
		cands := slices.Clone(byType[t])
		g.rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].uses < cands[j].uses })
		for _, m := range cands {
			if size == 0 {
				break
			}
			if m.topics[tp.ID] {
				continue
			}
			m.topics[tp.ID] = true
			m.uses++
			size--
			facts = append(facts, Fact{
				Kind: kind, Topic: tp.ID, Machine: m.id, Noun: equipmentTypes[t].Noun,
				Site: m.site, Answer: g.answer(kind),
			})
		}
	}
	return facts
}

func (g *gen) answer(kind string) string {
	switch kind {
	case KindTicket:
		return g.unique(func() string { return fmt.Sprintf("MT-%04d", 1000+g.rng.IntN(9000)) })
	case KindOwner:
		return g.pick(people)
	default:
		return g.unique(func() string {
			if g.rng.IntN(2) == 0 {
				if g.rng.IntN(3) == 0 {
					return fmt.Sprintf("DR-%d", 1000+g.rng.IntN(9000))
				}
				return fmt.Sprintf("DR-%d", 100+g.rng.IntN(900))
			}
			return fmt.Sprintf("N-%d", 10+g.rng.IntN(990))
		})
	}
}

// makeSeries makes the knowledge-update series: each line reports two
// quantities, each in a series of three to six weekly conversations.
func (g *gen) makeSeries(n int) [][]Fact {
	var lens []int
	for left := n; left > 0; {
		l := min(3+g.rng.IntN(4), left)
		if left-l > 0 && left-l < 3 { // no series shorter than three
			l = left
		}
		lens = append(lens, l)
		left -= l
	}
	nLines := (len(lens) + 1) / 2
	width := 2
	if nLines > 80 {
		width = 3
	}
	type line struct {
		id, site string
		qs       []int
	}
	lines := make([]line, nLines)
	for i := range lines {
		id := g.unique(func() string { return fmt.Sprintf("L-%0*d", width, 1+g.rng.IntN(int(math.Pow10(width))-1)) })
		qs := g.rng.Perm(len(quantities))[:2]
		lines[i] = line{id: id, site: g.pick(sites), qs: qs}
	}
	var out [][]Fact
	for i, l := range lens {
		ln := lines[i/2]
		q := quantities[ln.qs[i%2]]
		seen := map[string]bool{}
		var s []Fact
		for j := range l {
			var v string
			for v == "" || seen[v] {
				x := q.Min + g.rng.Float64()*(q.Max-q.Min)
				if q.Unit == " s" {
					v = fmt.Sprintf("%.0f%s", x, q.Unit)
				} else {
					v = fmt.Sprintf("%.1f%s", x, q.Unit)
				}
			}
			seen[v] = true
			s = append(s, Fact{
				Kind: KindMeasure, Topic: q.ID, Machine: ln.id, Noun: "line", Site: ln.site,
				Answer: v, Series: ln.id + "/" + q.ID, SeriesN: j,
			})
		}
		out = append(out, s)
	}
	return out
}

// uuid draws a random UUID; version 7 ones carry ts in their first 48 bits.
func (g *gen) uuid(version int, ts time.Time) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.rng.Uint32())
	}
	if version == 7 {
		ms := uint64(ts.UnixMilli())
		for i := range 6 {
			b[i] = byte(ms >> (40 - 8*i))
		}
	}
	b[6] = b[6]&0x0f | byte(version)<<4
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (g *gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.rng.IntN(16)]
	}
	return string(b)
}

// Topic lookup.

func topicOf(f Fact) topic {
	var list []topic
	switch f.Kind {
	case KindTicket:
		list = issues
	case KindOwner:
		list = tasks
	case KindDecision:
		list = decisions
	default:
		return topic{}
	}
	for _, t := range list {
		if t.ID == f.Topic {
			return t
		}
	}
	panic("recalldata: unknown topic " + f.Topic)
}

func quantityOf(f Fact) quantity {
	for _, q := range quantities {
		if q.ID == f.Topic {
			return q
		}
	}
	panic("recalldata: unknown quantity " + f.Topic)
}

// Key is a lower-case string that every wording of the fact contains: the
// topic's key words, or the quantity's name.
func (f Fact) Key() string {
	if f.Kind == KindMeasure {
		return strings.ToLower(quantityOf(f).Name)
	}
	return topicOf(f).Key
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
