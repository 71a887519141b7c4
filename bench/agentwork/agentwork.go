// Package agentwork generates a seeded history of one developer's work with
// AI assistants at realistic length — chats whose replies run to thousands
// of characters of prose and code, and coding-agent sessions with tool calls
// and their output — and identifier questions whose gold turn is known: the
// evaluation set where identifiers and facts inside long turns decide.
//
// Facts come in families that share their topic and differ in their
// identifier (V-261, M-261 and F-261 each had sensor drift, each with its own
// cause; ERR_CONN_RESET in two services; batch_writer.go beside
// batch_writer_test.go), half of them stated in a short turn and half buried
// in a long code-heavy reply. Status reports mention the identifiers without
// their topics, and other conversations discuss the topics without them.
//
// Generate plans the history and renders the sessions (memory's model, which
// the importers also produce) one at a time from their own seeds; Sessions
// streams them, so the text is never held whole.
package agentwork

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Question types: the question's form (a terse agent query, or a sentence)
// and where the fact is (a short turn, or inside a long reply).
const (
	TypeShort       = "short"        // terse query, fact in a short turn
	TypeLong        = "long"         // natural question, fact in a short turn
	TypeBuriedShort = "buried-short" // terse query, fact inside a long code-heavy reply
	TypeBuriedLong  = "buried-long"  // natural question, fact inside a long code-heavy reply
)

// Types lists the question types in report order.
var Types = []string{TypeShort, TypeLong, TypeBuriedShort, TypeBuriedLong}

// Version names the generator's text: a change to what it writes (not to
// the questions) changes it, so a memory built from an older one is built
// again (recallbench.AgentworkMemory). 2: a fact placed after a paragraph's
// last sentence is no longer glued to it.
const Version = 2

// Config sizes the history.
type Config struct {
	N    int   // conversations
	Seed int64 // the same (N, Seed) gives the same history
	// PerType is the questions of each type; 0: N·1.5 %, at least 4, at most 300.
	PerType int
}

// Question is one question with its gold evidence.
type Question struct {
	ID        string // the fact: kind, family and identifier
	Ident     string // the identifier asked about, as typed
	Type      string
	Text      string
	Harness   string // the gold conversation as Ireneo stores it
	SessionID string
	TurnUUID  string // the turn stating the fact
	Answer    string // a string the gold turn holds
}

// Dataset is a planned history and its questions.
type Dataset struct {
	Questions []Question
	cfg       Config
	convs     []convPlan
	facts     []*fact
}

// Conversation kinds.
const (
	kindWork      = iota // a code chat or agent session about a service
	kindFact             // one that states a fact
	kindStatus           // a status report naming identifiers without their topics
	kindTopic            // a discussion of a fact's topic without its identifier
	kindSmallTalk        // everyday questions
)

type convPlan struct {
	harness string
	id      string
	start   time.Time
	kind    int
	svc     string
	fact    *fact    // kindFact
	topic   topic    // kindTopic
	mention []string // kindStatus: identifiers named
}

// Fact kinds.
const (
	factTicket  = "ticket"
	factError   = "error"
	factFile    = "file"
	factVersion = "version"
	factCVE     = "cve"
)

type fact struct {
	kind   string
	family int
	id     string // as typed
	svc    string
	topic  topic
	cause  string
	fix    string
	answer string
	buried bool
	short  bool // asked as a terse query
	conv   int
}

// said is the fact's sentence as its conversation says it.
func (f *fact) said() string {
	switch f.kind {
	case factTicket:
		return fmt.Sprintf("%s, the %s on %s: it turned out to be %s, and we %s.", f.id, f.topic.said, f.svc, f.cause, f.fix)
	case factError:
		return fmt.Sprintf("The %s errors in %s came from %s; we %s.", f.id, f.svc, f.cause, f.fix)
	case factFile:
		return fmt.Sprintf("The %s in %s was %s, so in %s we %s.", f.topic.said, f.svc, f.cause, f.id, f.fix)
	case factVersion:
		return fmt.Sprintf("%s %s %s because of %s; we %s in the next patch.", f.svc, f.id, f.topic.said, f.cause, f.fix)
	}
	return fmt.Sprintf("%s reached %s through %s; we %s.", f.id, f.svc, f.cause, f.fix)
}

// question is the fact asked about.
func (f *fact) question() string {
	if f.short {
		switch f.kind {
		case factTicket:
			return fmt.Sprintf("%s %s fix", f.id, f.topic.short)
		case factError:
			return fmt.Sprintf("%s %s cause", f.id, f.svc)
		case factFile:
			return fmt.Sprintf("%s %s change", f.id, f.topic.short)
		case factVersion:
			return fmt.Sprintf("%s %s %s", f.svc, f.id, f.topic.short)
		}
		return fmt.Sprintf("%s %s mitigation", f.id, f.svc)
	}
	switch f.kind {
	case factTicket:
		return fmt.Sprintf("What did we find was behind the %s on %s, and what did we do about it?", f.topic.asked, f.id)
	case factError:
		return fmt.Sprintf("Why was %s throwing %s, and how did we fix it?", f.svc, f.id)
	case factFile:
		return fmt.Sprintf("What did we change in %s for the %s?", f.id, f.topic.asked)
	case factVersion:
		return fmt.Sprintf("What went wrong in %s %s with the %s?", f.svc, f.id, f.topic.asked)
	}
	return fmt.Sprintf("How did we deal with %s on %s?", f.id, f.svc)
}

func (f *fact) qtype() string {
	switch {
	case f.buried && f.short:
		return TypeBuriedShort
	case f.buried:
		return TypeBuriedLong
	case f.short:
		return TypeShort
	}
	return TypeLong
}

var day0 = time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC)

// Generate plans the history of cfg and its questions.
func Generate(cfg Config) *Dataset {
	if cfg.N < 20 {
		cfg.N = 20
	}
	if cfg.PerType <= 0 {
		cfg.PerType = min(300, max(4, cfg.N*15/1000))
	}
	r := rand.New(rand.NewPCG(uint64(cfg.Seed), 0xa9e17))
	d := &Dataset{cfg: cfg}
	d.facts = planFacts(r, 4*cfg.PerType)
	if len(d.facts) > cfg.N/3 {
		d.facts = d.facts[:cfg.N/3]
	}
	d.convs = make([]convPlan, cfg.N)
	order := r.Perm(cfg.N)
	status, topics := max(2, cfg.N*2/100), max(4, cfg.N*12/100)
	for i := range d.convs {
		c := &d.convs[i]
		c.start = day0.Add(time.Duration(r.Int64N(int64(425 * 24 * time.Hour)))).Truncate(time.Minute)
		c.harness = pick(r, []string{funes.HarnessChatGPT, funes.HarnessChatGPT, funes.HarnessChatGPT,
			funes.HarnessClaude, funes.HarnessClaude, funes.HarnessClaude,
			funes.HarnessClaudeCode, funes.HarnessClaudeCode, funes.HarnessCodex, funes.HarnessCodex})
		c.id = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))
		c.svc = pick(r, services)
		c.kind = kindWork
		if r.IntN(100) < 8 {
			c.kind = kindSmallTalk
		}
	}
	at := 0
	for _, f := range d.facts {
		c := &d.convs[order[at]]
		f.conv, c.kind, c.fact, c.svc = order[at], kindFact, f, f.svc
		at++
	}
	for range status {
		c := &d.convs[order[at]]
		c.kind = kindStatus
		for range 2 + r.IntN(3) {
			f := pick(r, d.facts)
			c.mention = append(c.mention, f.id)
		}
		at++
	}
	for range topics {
		c := &d.convs[order[at]]
		f := pick(r, d.facts)
		c.kind, c.topic = kindTopic, f.topic
		at++
	}
	for _, f := range d.facts {
		c := d.convs[f.conv]
		_, seq := d.render(f.conv)
		d.Questions = append(d.Questions, Question{
			ID: fmt.Sprintf("%s-%d-%s", f.kind, f.family, f.id), Ident: f.id, Type: f.qtype(), Text: f.question(),
			Harness: c.harness, SessionID: c.id, TurnUUID: turnUUID(c.id, seq), Answer: f.answer,
		})
	}
	return d
}

// planFacts makes n facts in families of two to four that share a topic.
func planFacts(r *rand.Rand, n int) []*fact {
	var out []*fact
	used := map[string]bool{}
	for fam := 0; len(out) < n; fam++ {
		kind := pick(r, []string{factTicket, factTicket, factTicket, factError, factFile, factVersion, factCVE})
		var ids []string
		var tp topic
		svcs := []string{pick(r, services), pick(r, services), pick(r, services)}
		switch kind {
		case factTicket:
			tp = pick(r, ticketTopics)
			if r.IntN(2) == 0 {
				num := 100 + r.IntN(900)
				for _, p := range r.Perm(len(shortPrefixes))[:3] {
					ids = append(ids, fmt.Sprintf("%s-%d", shortPrefixes[p], num))
				}
			} else {
				p := pick(r, longPrefixes)
				a, b, c, e := 1+r.IntN(9), r.IntN(10), r.IntN(10), r.IntN(10)
				for _, ds := range [][4]int{{a, b, c, e}, {a, b, e, c}, {a, c, b, e}} {
					ids = append(ids, fmt.Sprintf("%s-%d%d%d%d", p, ds[0], ds[1], ds[2], ds[3]))
				}
			}
		case factError:
			codes := pick(r, errorCodes)
			tp = topic{said: "errors", asked: "errors", short: "errors"}
			ids = []string{codes[0], codes[1], codes[0]}
			svcs[1] = svcs[0] // a sibling code in one service, the same code in another
		case factFile:
			st := pick(r, fileStems)
			tp = pick(r, fileBugs)
			ids = []string{st[0] + ".go", st[0] + "_test.go", st[1] + ".go"}
			svcs[1], svcs[2] = svcs[0], svcs[0]
		case factVersion:
			tp = pick(r, versionBugs)
			x, y, z := 1+r.IntN(4), 2+r.IntN(20), 2+r.IntN(9)
			ids = []string{fmt.Sprintf("v%d.%d.%d", x, y, z), fmt.Sprintf("v%d.%d.%d", x, y, z-1), fmt.Sprintf("v%d.%d.%d", x, y-1, z)}
			svcs[1], svcs[2] = svcs[0], svcs[0]
		default:
			y, a := 2024+r.IntN(2), 10000+r.IntN(89999)
			rev := []byte(fmt.Sprint(a))
			rev[3], rev[4] = rev[4], rev[3]
			ids = []string{fmt.Sprintf("CVE-%d-%d", y, a), fmt.Sprintf("CVE-%d-%s", y, rev), fmt.Sprintf("CVE-%d-%d", y+1, a)}
			tp = topic{said: "the vulnerability", asked: "vulnerability", short: "mitigation"}
		}
		size := 2 + r.IntN(2)
		for i := 0; i < size && len(out) < n; i++ {
			key := ids[i] + "\x00" + svcs[i]
			if used[key] || used[ids[i]] && kind != factError {
				continue
			}
			used[key], used[ids[i]] = true, true
			fx := pick(r, fixes)
			out = append(out, &fact{kind: kind, family: fam, id: ids[i], svc: svcs[i], topic: tp, cause: pick(r, causes),
				fix: fx.text, answer: fx.answer, buried: r.IntN(2) == 0, short: r.IntN(2) == 0})
		}
	}
	return out
}

// N is the number of conversations.
func (d *Dataset) N() int { return len(d.convs) }

// Sessions renders every conversation, in order, and hands each to fn.
func (d *Dataset) Sessions(fn func(*funes.Session) error) error {
	for i := range d.convs {
		s, _ := d.render(i)
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

func turnUUID(sid string, seq int) string { return fmt.Sprintf("%s-t%03d", sid, seq) }

// render makes conversation i from its own seed, and says which turn states
// its fact (-1 if none).
func (d *Dataset) render(i int) (*funes.Session, int) {
	c := d.convs[i]
	r := rand.New(rand.NewPCG(uint64(d.cfg.Seed), uint64(i)+1))
	s := &funes.Session{ID: c.id, Harness: c.harness}
	agent := c.harness == funes.HarnessClaudeCode || c.harness == funes.HarnessCodex
	if agent {
		s.Workdir = "/home/dev/src/" + c.svc
	}
	at := c.start
	add := func(role string, blocks ...funes.Block) int {
		seq := len(s.Turns)
		s.Turns = append(s.Turns, funes.Turn{TurnUUID: turnUUID(c.id, seq), Seq: seq, TS: at, Role: role, Blocks: blocks})
		at = at.Add(time.Duration(20+r.IntN(300)) * time.Second)
		return seq
	}
	text := func(t string) funes.Block { return funes.Block{Type: funes.BlockText, Text: t} }
	gold := -1
	switch c.kind {
	case kindSmallTalk:
		s.Title = "Everyday questions"
		for range 1 + r.IntN(3) {
			add(funes.RoleUser, text(pick(r, smallTalk)))
			add(funes.RoleAssistant, text(paragraph(r, "the recipe", 2)+"\n\n"+paragraph(r, "the plan", 3)))
		}
		return s, gold
	case kindStatus:
		s.Title = "Weekly status"
		add(funes.RoleUser, text("Can you turn my notes into a short status update for the team?\n\nCarry-over: "+strings.Join(c.mention, ", ")+
			". Also "+pick(r, people)+" is out on Friday and the "+c.svc+" on-call rotation changes."))
		add(funes.RoleAssistant, text("**Status**\n\n- Still open: "+strings.Join(c.mention, "; ")+".\n- On-call for "+c.svc+" moves to "+pick(r, people)+
			" next week.\n- "+pick(r, people)+" is out on Friday.\n\nWant me to add the dashboards' links?"))
		return s, gold
	}
	// Work, fact and topic conversations: exchanges about c.svc.
	s.Title = capital(strings.ReplaceAll(c.svc, "-", " ")) + " " + pick(r, []string{"work", "debugging", "review", "question", "refactor", "incident"})
	exchanges := 1 + r.IntN(4)
	factAt := -1
	if c.kind == kindFact {
		factAt = r.IntN(exchanges)
	}
	for e := range exchanges {
		ask := userAsk(r, c, e != factAt)
		if c.kind == kindTopic && e == 0 {
			ask = fmt.Sprintf("We're seeing %s again on %s. %s", c.topic.said, c.svc, ask)
		}
		var f *fact
		if e == factAt {
			f = c.fact
		}
		if f != nil && !f.buried && r.IntN(2) == 0 {
			// The person states it, then asks on.
			gold = add(funes.RoleUser, text("For the record, before I forget: "+f.said()+"\n\n"+ask))
			f = nil
		} else {
			add(funes.RoleUser, text(ask))
		}
		if agent {
			for range r.IntN(4) {
				toolStep(r, c, add)
			}
		}
		if f != nil && !f.buried {
			gold = add(funes.RoleAssistant, text("From what we found earlier: "+f.said()+" "+sentence(r, c.svc)))
			continue
		}
		size := replySize(r)
		insert := ""
		if c.kind == kindTopic {
			insert = fmt.Sprintf("The %s usually shows up first on the %s dashboards.", c.topic.said, c.svc)
		}
		if f != nil {
			size = max(size, 3000+r.IntN(3000))
			insert = f.said()
		}
		seq := add(funes.RoleAssistant, text(longReply(r, c.svc, insert, size)))
		if f != nil {
			gold = seq
		}
	}
	return s, gold
}

// userAsk is what the person asks in an exchange: a question, sometimes
// (when paste) with code or a log pasted in.
func userAsk(r *rand.Rand, c convPlan, paste bool) string {
	q := pick(r, []string{
		"Why does %[1]s %[2]s the %[3]s twice under load?", "Can you review this change to %[1]s before I open the PR?",
		"How should %[1]s handle a %[3]s that arrives after the lease expired?", "What's the cleanest way to %[2]s %[3]ss in %[1]s?",
		"The %[1]s tests are slow again, any idea which part dominates?", "Is there a way to make %[1]s %[2]s without holding the lock?",
	})
	q = fmt.Sprintf(q, c.svc, pick(r, verbs), pick(r, nouns))
	if !paste {
		return q
	}
	switch r.IntN(4) {
	case 0:
		q += "\n\n" + logLines(r, c.svc, 4+r.IntN(12))
	case 1:
		q += "\n\n" + code(r, c.svc)
	}
	return q
}

// toolStep is one tool call of an agent session and its output.
func toolStep(r *rand.Rand, c convPlan, add func(string, ...funes.Block) int) {
	pkg := pick(r, packages)
	var tool, input, output string
	switch r.IntN(3) {
	case 0:
		tool, input, output = "Bash", fmt.Sprintf(`{"command":"go test ./%s/..."}`, pkg), testOutput(r, pkg, r.IntN(3) == 0)
	case 1:
		file := pkg + "/" + strings.ReplaceAll(pick(r, nouns), "-", "_") + ".go"
		tool, input, output = "Read", fmt.Sprintf(`{"file_path":"/home/dev/src/%s/%s"}`, c.svc, file), strings.Trim(goCode(r, c.svc, pkg, 10+r.IntN(40)), "`go\n")
	default:
		tool, input, output = "Grep", fmt.Sprintf(`{"pattern":"%s","path":"%s"}`, camel(pick(r, verbs), pick(r, nouns)), pkg), logLines(r, c.svc, 3+r.IntN(8))
	}
	if c.harness == funes.HarnessCodex {
		tool = "shell"
	}
	add(funes.RoleAssistant, funes.Block{Type: funes.BlockText, Text: pick(r, []string{"Let me look at the code first.", "Running the tests.", "Checking where this is called."})},
		funes.Block{Type: funes.BlockToolUse, Text: input, ToolName: tool})
	add(funes.RoleTool, funes.Block{Type: funes.BlockToolResult, Text: output, ToolName: tool})
}

// replySize draws an assistant reply's length in bytes: most a page or
// two, some much longer.
func replySize(r *rand.Rand) int {
	switch p := r.IntN(100); {
	case p < 45:
		return 400 + r.IntN(1000)
	case p < 80:
		return 1400 + r.IntN(2000)
	case p < 96:
		return 3500 + r.IntN(3500)
	}
	return 7000 + r.IntN(5000)
}
