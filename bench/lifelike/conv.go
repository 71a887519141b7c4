package lifelike

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// A rendered conversation, in the shape Ireneo will store it: one turn per
// stored turn, so turn ids (and Codex's <session>-<seq> ids) are known.
// The writers add each format's envelope and quirks around these turns.
type block struct {
	kind  string // text, thinking, tool_use, tool_result
	text  string
	tool  string
	call  string // tool call id
	input string // a tool call's input, JSON
	isErr bool
	agent string // a Task result: the sub-agent's id
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

type turn struct {
	role   string // user, assistant, tool
	uuid   string
	ts     time.Time
	blocks []block
}

type conv struct {
	plan     *convPlan
	title    string
	turns    []turn
	evidence map[*fact]string
	branch   string
	tasks    []subTask
}

// subTask is a Claude Code sub-agent: the Task call that started it and
// what it reported back.
type subTask struct {
	agentID, prompt, result string
	ts                      time.Time
	sc                      scene
}

func newUUID(r *rand.Rand) string {
	a, b := r.Uint64(), r.Uint64()
	a = a&^0xf000 | 0x4000           // version 4
	b = b&^(0xc000<<48) | 0x8000<<48 // variant
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

// uuid7 is a time-ordered id, as newer Codex sessions use.
func uuid7(r *rand.Rand, t time.Time) string {
	ms := uint64(t.UnixMilli())
	a := ms<<16 | 0x7000 | r.Uint64()&0xfff
	b := r.Uint64()&^(0xc000<<48) | 0x8000<<48
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

func (d *Dataset) idRand(c *convPlan) *rand.Rand {
	return seedRand(d.cfg.Seed, 3<<40+uint64(c.idx))
}

func (d *Dataset) convID(c *convPlan) string {
	r := d.idRand(c)
	if c.harness == hCodex && c.start.After(time.Date(2025, 10, 15, 0, 0, 0, 0, time.UTC)) {
		return uuid7(r, c.start)
	}
	return newUUID(r)
}

func (cv *conv) add(r *rand.Rand, role string, ts time.Time, bs ...block) string {
	id := newUUID(r)
	if cv.plan.harness == hCodex {
		id = fmt.Sprintf("%s-%d", cv.plan.id, len(cv.turns))
	}
	cv.turns = append(cv.turns, turn{role: role, uuid: id, ts: ts, blocks: bs})
	return id
}

func text(s string) block     { return block{kind: "text", text: s} }
func thinking(s string) block { return block{kind: "thinking", text: s} }

var workTasks = []string{
	"add retries to the {svc} client without hammering {svc2}",
	"write a migration that adds a status column to {table}",
	"track down a memory leak in {svc}",
	"upgrade {lib} in {proj} without breaking the build",
	"review PR #{pr} for {svc}",
	"speed up a slow query on the {table} table",
	"set up alerts for {svc} error rates",
	"structure the tests for {svc}",
	"use {concept} in {proj}",
	"clean up the config loading in {svc}",
	"paginate the {table} endpoint in {svc}",
	"add tracing to {svc} with {lib}",
	"split {svc} into smaller packages",
	"handle timeouts between {svc} and {svc2}",
	"write a runbook for restarting {svc}",
	"backfill the {table} table without locking it",
	"make the {svc} deploy roll back automatically",
	"reduce the {svc} image size",
}

var lifeTasks = []string{
	"plan a long weekend in {city}", "cook {dish} for four people", "write a thank-you note to {person}",
	"understand how compound interest works", "pick a book for a long flight", "fix a squeaky door hinge",
	"get better sleep during a busy week", "set up a simple workout routine", "learn a few Portuguese phrases",
	"choose a houseplant that survives neglect", "plan a budget for the holidays", "make {dish} without an oven",
	"write a toast for a friend's wedding", "keep a sourdough starter alive", "pack for a week of rain in {city}",
}

var lifeSubjects = []string{
	// Everyday subjects that the person's own facts are about too, so a
	// question's subject word is never unique to its gold conversation.
	"figure out a training plan for the {u0}", "pace myself in the {u0}", "get settled in my first week on the {u1} team", "pick what to demo at the end of my first sprint on the {u1} team",
	"cook something my {u2} will like", "plan a picnic my {u2} can enjoy", "compare two {u3} models", "sell my old {u3}",
	"find things to do in {u4} in the evening", "get from the airport to the centre of {u4}", "write up the {u5}",
	"find a birthday present for my {u6}", "plan a surprise for my {u6}", "come up with a name for the {u7}",
	"take care of the {u7}", "plan the {u8}", "cook for the {u8} on a budget", "make time for my {u9}",
	"prepare for my {u9}", "choose between two hotels in {u10}", "plan a rainy day in {u10}",
	"pick curtains for the {u11}", "clean up the {u11}", "return the {u12} I ordered", "choose a {u12}",
	"book a seat on the train to {u13}", "study for the {u14}", "relax before the {u14}",
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func trimTitle(s string) string {
	s = capitalize(s)
	if len(s) > 70 {
		if i := strings.LastIndexByte(s[:70], ' '); i > 20 {
			s = s[:i]
		}
	}
	return s
}

// render builds one conversation from its own random stream.
func (d *Dataset) render(c *convPlan) *conv {
	r := seedRand(d.cfg.Seed, streamConv+uint64(c.idx))
	cv := &conv{plan: c, evidence: map[*fact]string{}, branch: pick(r, c.proj.branch)}
	personal := c.kind == kindSmallTalk || (len(c.facts) > 0 && c.facts[0].personal)
	sc := newScene(r, c.proj, "")
	// Fillers and facts, facts at random places.
	items := make([]*fact, c.size+len(c.facts))
	for i, p := range r.Perm(len(items))[:len(c.facts)] {
		items[p] = c.facts[i]
	}
	t := c.start
	for i, f := range items {
		if i > 0 {
			if c.kind == kindAgent {
				t = t.Add(time.Duration(30+r.IntN(900)) * time.Second)
				if r.IntN(6) == 0 { // picked up again the next day
					t = t.Add(time.Duration(14+r.IntN(10)) * time.Hour)
				}
			} else {
				t = t.Add(time.Duration(60+r.IntN(1800)) * time.Second)
			}
		}
		var task string
		if f == nil {
			if i < len(c.echo) {
				task = c.echo[i]
			} else if personal && r.IntN(5) < 3 {
				task = fill(r, sc, pick(r, lifeSubjects))
			} else if personal {
				task = fill(r, sc, pick(r, lifeTasks))
			} else {
				task = fill(r, sc, pick(r, workTasks))
			}
			sc.topic = task
		} else {
			sc = newScene(r, c.proj, f.topic)
		}
		if cv.title == "" {
			if f != nil {
				cv.title = trimTitle(f.topic)
			} else {
				cv.title = trimTitle(task)
			}
		}
		switch {
		case c.kind == kindAgent:
			t = d.agentExchange(r, cv, sc, f, task, t)
		case personal && f == nil:
			t = d.lifeExchange(r, cv, sc, task, t, i)
		default:
			t = d.chatExchange(r, cv, sc, f, task, t)
		}
	}
	return cv
}

func userMessage(r *rand.Rand, sc scene, core string, paste bool) string {
	var b strings.Builder
	if o := pick(r, userOpeners); o != "" {
		b.WriteString(o)
		b.WriteByte(' ')
	}
	b.WriteString(core)
	if r.IntN(2) == 0 {
		b.WriteString(" ")
		b.WriteString(techPara(r, sc, 1+r.IntN(2)))
	}
	if paste {
		switch r.IntN(3) {
		case 0:
			b.WriteString("\n\nHere's the code:\n\n")
			b.WriteString(code(r, sc, langFor(r, sc.p)))
		case 1:
			b.WriteString("\n\nThis is what I see:\n\n```\n")
			b.WriteString(strings.TrimRight(toolOutput(r, sc, r.IntN(8)), "\n"))
			b.WriteString("\n```")
		default:
			b.WriteString("\n\n")
			b.WriteString(techPara(r, sc, 2+r.IntN(3)))
		}
	}
	return b.String()
}

func assistantMessage(r *rand.Rand, sc scene, core, restate string, long bool) string {
	var b strings.Builder
	b.WriteString(pick(r, openers))
	b.WriteByte(' ')
	if restate != "" && r.IntN(2) == 0 {
		b.WriteString(restate)
		b.WriteByte(' ')
	}
	if core != "" {
		b.WriteString(core)
		b.WriteString("\n\n")
	}
	b.WriteString(techPara(r, sc, 2+r.IntN(4)))
	if long || r.IntN(2) == 0 {
		b.WriteString("\n\n")
		b.WriteString(code(r, sc, langFor(r, sc.p)))
	}
	if r.IntN(2) == 0 {
		b.WriteString("\n\nA few things to check:\n\n")
		b.WriteString(bullets(r, sc, 2+r.IntN(4)))
	}
	if long {
		b.WriteString("\n\n")
		b.WriteString(techPara(r, sc, 3+r.IntN(5)))
	}
	return b.String()
}

func sec(r *rand.Rand, lo, hi int) time.Duration {
	return time.Duration(lo+r.IntN(hi-lo+1)) * time.Second
}

// chatExchange is one question and answer in ChatGPT or Claude.ai.
func (d *Dataset) chatExchange(r *rand.Rand, cv *conv, sc scene, f *fact, task string, t time.Time) time.Time {
	h := cv.plan.harness
	var ucore, acore, restate string
	if f != nil {
		ucore, acore = f.user, f.asst
	} else {
		ucore = fmt.Sprintf("I'm trying to %s. %s", task, pick(r, []string{"What would you do?", "Where should I start?", "Is there a standard way to do this?", "Any pitfalls I should know about?"}))
		restate = fmt.Sprintf("You're asking how to %s.", task)
	}
	umsg := ucore
	if f == nil || !f.personal {
		umsg = userMessage(r, sc, ucore, f == nil && r.IntN(3) == 0)
	}
	uid := cv.add(r, "user", t, text(umsg))
	if f != nil && f.evidUser {
		cv.evidence[f] = uid
	}
	t = t.Add(sec(r, 3, 40))
	long := r.IntN(5) == 0
	var amsg string
	if f != nil && f.personal {
		amsg = acore + "\n\n" + plainPara(r, 2+r.IntN(3))
	} else {
		amsg = assistantMessage(r, sc, acore, restate, long)
	}
	var aid string
	switch h {
	case hChatGPT:
		if r.IntN(5) == 0 {
			cv.add(r, "assistant", t, thinking(fmt.Sprintf("**Considering %s**\n\n%s", sc.topic, techPara(r, sc, 2))))
			t = t.Add(sec(r, 2, 20))
		}
		if f == nil && r.IntN(8) == 0 {
			src := strings.TrimSuffix(strings.TrimPrefix(code(r, sc, "python"), "```python\n"), "\n```")
			cv.add(r, "assistant", t, block{kind: "tool_use", text: src, tool: "python"})
			t = t.Add(sec(r, 1, 10))
			cv.add(r, "tool", t, block{kind: "tool_result", text: toolOutput(r, sc, 3), tool: "python"})
			t = t.Add(sec(r, 1, 10))
		}
		aid = cv.add(r, "assistant", t, text(amsg))
	default: // claude
		var bs []block
		if r.IntN(4) == 0 {
			bs = append(bs, thinking(fmt.Sprintf("The user wants help with %s. %s", sc.topic, techPara(r, sc, 2))))
		}
		if f == nil && r.IntN(8) == 0 {
			q := fmt.Sprintf("%s %s best practices", sc.lib, pick(r, genericWords))
			in, _ := json.Marshal(map[string]string{"query": q})
			call := "toolu_01" + strings.ReplaceAll(newUUID(r), "-", "")[:22]
			bs = append(bs, block{kind: "tool_use", tool: "web_search", input: string(in), call: call})
			bs = append(bs, block{kind: "tool_result", tool: "web_search", call: call, text: fmt.Sprintf("%s — docs\nhttps://docs.example.org/%s\n%s", capitalize(sc.lib), sc.lib, techPara(r, sc, 2))})
		}
		bs = append(bs, text(amsg))
		aid = cv.add(r, "assistant", t, bs...)
	}
	if f != nil && !f.evidUser {
		cv.evidence[f] = aid
	}
	return t
}

// lifeExchange is small talk or an everyday question.
func (d *Dataset) lifeExchange(r *rand.Rand, cv *conv, sc scene, task string, t time.Time, i int) time.Time {
	if i > 0 && r.IntN(4) == 0 {
		cv.add(r, "user", t, text(pick(r, []string{"Thanks, that helped!", "Perfect, thank you.", "Great, I'll try that tonight.", "ok cool", "That's really useful, thanks!"})))
		t = t.Add(sec(r, 2, 10))
		cv.add(r, "assistant", t, text(pick(r, []string{"You're welcome! Let me know how it goes.", "Glad it helped. Good luck!", "Anytime — enjoy!"})))
		return t
	}
	cv.add(r, "user", t, text(fmt.Sprintf("%s Can you help me %s?", pick(r, userOpeners), task)))
	t = t.Add(sec(r, 3, 30))
	var b strings.Builder
	fmt.Fprintf(&b, "%s Here's how I'd approach it: %s\n\n", pick(r, openers), plainPara(r, 2+r.IntN(3)))
	for k := 0; k < 3+r.IntN(4); k++ {
		fmt.Fprintf(&b, "- %s\n", pick(r, plainSentences))
	}
	b.WriteString("\n")
	b.WriteString(plainPara(r, 1+r.IntN(2)))
	cv.add(r, "assistant", t, text(b.String()))
	return t
}

// agentExchange is one task in a Codex or Claude Code session: the
// request, tool calls and their results, and a closing summary.
func (d *Dataset) agentExchange(r *rand.Rand, cv *conv, sc scene, f *fact, task string, t time.Time) time.Time {
	h := cv.plan.harness
	var umsg, final string
	if f != nil {
		umsg = f.user
	} else {
		where := " in " + sc.p.name
		if strings.Contains(task, sc.p.name) {
			where = ""
		}
		umsg = fmt.Sprintf("%s%s. %s", capitalize(task), where, techPara(r, sc, 1+r.IntN(2)))
	}
	uid := cv.add(r, "user", t, text(umsg))
	if f != nil && f.evidUser {
		cv.evidence[f] = uid
	}
	steps := 2 + r.IntN(5)
	if cv.plan.size > 3 {
		steps += r.IntN(12)
	}
	for s := 0; s < steps; s++ {
		t = t.Add(sec(r, 2, 25))
		var think, say string
		if r.IntN(2) == 0 {
			think = fmt.Sprintf("**%s**\n\n%s", pick(r, []string{"Inspecting the code", "Checking the tests", "Looking at the logs", "Planning the change", "Verifying the fix"}), techPara(r, sc, 1+r.IntN(2)))
		}
		if r.IntN(2) == 0 {
			say = fmt.Sprintf("%s %s", pick(r, []string{"Let me look at", "I'll check", "Next I'll inspect", "Now let me run", "Checking"}), fill(r, sc, pick(r, []string{"how {svc} builds its client.", "the tests around {table}.", "the recent logs for {svc}.", "where the timeout is configured.", "the {lib} usage in {proj}."})))
		}
		ncalls := 1
		if r.IntN(5) == 0 {
			ncalls = 2 // parallel calls
		}
		calls := make([]block, ncalls)
		results := make([]block, ncalls)
		for k := range calls {
			calls[k], results[k] = toolCall(r, sc, h, cv.branch)
		}
		if h == hClaudeCode && len(cv.tasks) < cv.plan.subagents && (s == steps-1 || r.IntN(3) == 0) {
			st := subTask{agentID: fmt.Sprintf("%08x", r.Uint32()), ts: t, sc: sc,
				prompt: fill(r, sc, pick(r, []string{
					"Search the {proj} codebase for every place that talks to {svc2} and list the call sites with their timeouts.",
					"Read the tests for {svc} and summarise which error paths are not covered.",
					"Find where the {table} table is written and check whether the writes are idempotent.",
					"Look through the recent logs for {svc} and group the errors by cause.",
				}))}
			st.result = fmt.Sprintf("Summary of what I found:\n\n%s\n\n%s", bullets(r, sc, 3+r.IntN(3)), techPara(r, sc, 2))
			cv.tasks = append(cv.tasks, st)
			in, _ := json.Marshal(map[string]string{"description": capitalize(firstWords(st.prompt, 4)), "prompt": st.prompt, "subagent_type": "general-purpose"})
			calls[0] = block{kind: "tool_use", tool: "Task", call: calls[0].call, input: string(in)}
			results[0] = block{kind: "tool_result", tool: "Task", call: calls[0].call, text: st.result, agent: st.agentID}
		}
		if h == hCodex {
			if think != "" {
				cv.add(r, "assistant", t, thinking(think))
			}
			if say != "" {
				cv.add(r, "assistant", t, text(say))
			}
			for _, c := range calls {
				cv.add(r, "assistant", t, c)
			}
			t = t.Add(sec(r, 1, 30))
			for _, res := range results {
				cv.add(r, "tool", t, res)
			}
		} else {
			var bs []block
			if think != "" {
				bs = append(bs, thinking(think))
			}
			if say != "" {
				bs = append(bs, text(say))
			}
			bs = append(bs, calls...)
			cv.add(r, "assistant", t, bs...)
			t = t.Add(sec(r, 1, 30))
			cv.add(r, "tool", t, results...)
		}
	}
	t = t.Add(sec(r, 3, 40))
	if f != nil {
		final = f.asst + "\n\n" + techPara(r, sc, 1+r.IntN(3))
	} else {
		final = fmt.Sprintf("Done. %s\n\n%s\n\nChanges:\n%s", techPara(r, sc, 1+r.IntN(2)), code(r, sc, langFor(r, sc.p)), bullets(r, sc, 2+r.IntN(3)))
	}
	aid := cv.add(r, "assistant", t, text(final))
	if f != nil && !f.evidUser {
		cv.evidence[f] = aid
	}
	return t
}

// toolCall is one tool call and its result, in the harness's tool set.
func toolCall(r *rand.Rand, sc scene, h, branch string) (block, block) {
	id := "call_" + strings.ReplaceAll(newUUID(r), "-", "")[:24]
	if h == hClaudeCode {
		id = "toolu_01" + strings.ReplaceAll(newUUID(r), "-", "")[:22]
	}
	file := fmt.Sprintf("internal/%s/%s.go", ident(sc.svc, false), pick(r, genericWords))
	switch sc.p.lang {
	case "python":
		file = fmt.Sprintf("%s/%s/%s.py", sc.p.name, ident(sc.svc, false), pick(r, genericWords))
	case "typescript":
		file = fmt.Sprintf("src/%s/%s.ts", ident(sc.svc, true), pick(r, genericWords))
	case "rust":
		file = fmt.Sprintf("src/%s.rs", pick(r, genericWords))
	case "hcl":
		file = fmt.Sprintf("modules/%s/main.tf", ident(sc.svc, false))
	}
	wd := sc.p.workdir
	switch k := r.IntN(10); {
	case k < 5: // shell
		kind := r.IntN(8)
		cmd := shellCommand(r, sc, kind)
		out := toolOutput(r, sc, kind)
		if h == hCodex {
			in, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", cmd}, "workdir": wd, "timeout_ms": 120000})
			return block{kind: "tool_use", tool: "shell", call: id, input: string(in), text: cmd},
				block{kind: "tool_result", tool: "shell", call: id, text: out}
		}
		in, _ := json.Marshal(map[string]string{"command": cmd, "description": pick(r, []string{"Run the tests", "Check the logs", "Look at pod status", "Search the code", "Show the diff"})})
		return block{kind: "tool_use", tool: "Bash", call: id, input: string(in), text: cmd},
			block{kind: "tool_result", tool: "Bash", call: id, text: out, isErr: kind == 1 || kind == 2}
	case k < 8: // read a file
		body := code(r, sc, langFor(r, sc.p))
		body = body[strings.IndexByte(body, '\n')+1 : len(body)-4]
		var num strings.Builder
		for i, l := range strings.Split(body, "\n") {
			fmt.Fprintf(&num, "%6d\t%s\n", i+1, l)
		}
		if h == hCodex {
			cmd := fmt.Sprintf("sed -n '1,200p' %s", file)
			in, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", cmd}, "workdir": wd})
			return block{kind: "tool_use", tool: "shell", call: id, input: string(in), text: cmd},
				block{kind: "tool_result", tool: "shell", call: id, text: body}
		}
		in, _ := json.Marshal(map[string]string{"file_path": wd + "/" + file})
		return block{kind: "tool_use", tool: "Read", call: id, input: string(in)},
			block{kind: "tool_result", tool: "Read", call: id, text: num.String()}
	default: // edit
		oldS := fill(r, sc, "timeout := {n} * time.Second")
		newS := fill(r, sc, "timeout := cfg.Timeout // was {n}s, see {svc} dashboards")
		if h == hCodex {
			patch := fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n@@\n-\t%s\n+\t%s\n*** End Patch", file, oldS, newS)
			return block{kind: "tool_use", tool: "apply_patch", call: id, input: patch, text: patch},
				block{kind: "tool_result", tool: "apply_patch", call: id, text: fmt.Sprintf("Success. Updated the following files:\nM %s", file)}
		}
		in, _ := json.Marshal(map[string]string{"file_path": wd + "/" + file, "old_string": oldS, "new_string": newS})
		return block{kind: "tool_use", tool: "Edit", call: id, input: string(in)},
			block{kind: "tool_result", tool: "Edit", call: id, text: fmt.Sprintf("The file %s/%s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%6d\t%s", wd, file, 10+r.IntN(200), newS)}
	}
}
