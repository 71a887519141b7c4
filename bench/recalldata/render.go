package recalldata

import (
	"fmt"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// conversation renders one fact as a conversation starting at start. prev is
// the previous report of a measure series, if any.
func (g *gen) conversation(f Fact, start time.Time, prev *Fact) *Conversation {
	ws := make([]float64, len(harnessWeights))
	for i, h := range harnessWeights {
		ws[i] = h.w
	}
	c := &Conversation{Harness: harnessWeights[g.weighted(ws...)].name, Fact: f}
	switch c.Harness {
	case funes.HarnessCodex:
		c.ID = g.uuid(7, start)
		c.Workdir = g.pick(workdirs)
	case funes.HarnessClaudeCode:
		c.ID = g.uuid(4, start)
		c.Workdir = g.pick(workdirs)
	default:
		c.ID = g.uuid(4, start)
	}
	agent := c.Workdir != ""

	pairs := []int{2, 3, 4}[g.weighted(0.15, 0.6, 0.25)]
	factPair := g.rng.IntN(pairs)
	c.FactMsg = 2 * factPair
	ts := start
	for p := range pairs {
		var user, asst Message
		switch {
		case p == factPair:
			user, asst = g.factPair(f, prev, agent)
			if p == 0 && g.rng.IntN(2) == 0 {
				user.Text = g.pick(smallOpeners) + " " + user.Text
			}
		case p == 0:
			st := smallTalk[g.rng.IntN(len(smallTalk))]
			user.Text = g.pick(smallOpeners) + " " + st[0]
			asst.Text = g.pick(smallReplies) + " " + st[1]
		case p == pairs-1:
			user.Text = g.pick(smallClosers)
			asst.Text = g.pick(assistantClosers)
		default:
			st := smallTalk[g.rng.IntN(len(smallTalk))]
			user.Text = st[0]
			asst.Text = g.pick(smallReplies) + " " + st[1]
		}
		user.Role, asst.Role = funes.RoleUser, funes.RoleAssistant
		if asst.Thinking == "" && g.rng.IntN(4) == 0 && c.Harness != funes.HarnessCodex {
			asst.Thinking = g.pick(thoughts)
		}
		user.TS = ts.Add(time.Duration(g.rng.IntN(1000)) * time.Millisecond)
		ts = ts.Add(time.Duration(5+g.rng.IntN(40)) * time.Second)
		asst.TS = ts.Add(time.Duration(g.rng.IntN(1000)) * time.Millisecond)
		ts = ts.Add(time.Duration(30+g.rng.IntN(330)) * time.Second)
		c.Messages = append(c.Messages, user, asst)
	}
	for i := range c.Messages {
		c.Messages[i].UUID = g.uuid(4, c.Messages[i].TS)
		for j := range c.Messages[i].Tools {
			c.Messages[i].Tools[j].ID = g.hex(24)
		}
	}

	switch {
	case c.Harness == funes.HarnessCodex:
		// Codex has no titles.
	case c.Harness == funes.HarnessChatGPT && g.rng.IntN(30) == 0:
		// Some ChatGPT conversations have a null title.
	case g.rng.IntN(2) == 0:
		c.Title = g.pick(genericTitles)
	default:
		c.Title = topicTitle(f)
	}
	return c
}

var thoughts = []string{
	"The user is sharing something; a brief, friendly acknowledgement is enough.",
	"I should keep this short and answer the practical part first.",
	"They want a quick confirmation, no need for a long answer.",
	"Let me restate what matters so it is easy to find later.",
}

// topicTitle is the title a chat app would give a conversation about f.
func topicTitle(f Fact) string {
	switch f.Kind {
	case KindMeasure:
		return f.Site + " weekly numbers"
	case KindOwner:
		return title(f.Noun) + " " + topicOf(f).Short + " owner"
	default:
		return title(f.Noun) + " " + topicOf(f).Short
	}
}

// logLine is the line a coding agent appends to the notes for f.
func logLine(f Fact) string {
	switch f.Kind {
	case KindMeasure:
		return fmt.Sprintf("- %s %s: %s", f.Machine, quantityOf(f).Name, f.Answer)
	case KindOwner:
		return fmt.Sprintf("- %s %s: owner %s", f.Machine, topicOf(f).Short, f.Answer)
	default:
		return fmt.Sprintf("- %s %s: %s", f.Machine, topicOf(f).Short, f.Answer)
	}
}

// factPair renders the user's statement of f and the assistant's echo.
func (g *gen) factPair(f Fact, prev *Fact, agent bool) (user, asst Message) {
	var u, a string
	switch f.Kind {
	case KindTicket:
		fact := g.pick(topicOf(f).Fact)
		u = g.pick([]string{
			"Also, the %[1]s %[2]s at %[3]s: the %[4]s. I raised %[5]s for it this morning.",
			"Work thing: %[2]s (%[1]s, %[3]s site), the %[4]s. Ticket is %[5]s.",
			"Can you note this for me? On the %[1]s %[2]s at %[3]s the %[4]s, so I opened work order %[5]s.",
			"Heads-up from %[3]s: the %[4]s on %[1]s %[2]s. Maintenance ticket %[5]s is open.",
		})
		u = fmt.Sprintf(u, f.Noun, f.Machine, f.Site, fact, f.Answer)
		a = fmt.Sprintf(g.pick([]string{
			"Noted: work order %[1]s for %[2]s. I can draft a heads-up for the shift lead if you like.",
			"Got it, %[1]s for the %[3]s %[2]s. Worth attaching the last inspection photos to it.",
			"Thanks, I have %[1]s down against %[2]s.",
		}), f.Answer, f.Machine, f.Noun)
	case KindOwner:
		task := g.pick(topicOf(f).Fact)
		u = g.pick([]string{
			"%[5]s will own the %[4]s of the %[1]s %[2]s at %[3]s from now on.",
			"Quick update: %[5]s agreed to take the %[4]s on %[1]s %[2]s (%[3]s).",
			"For the record, %[5]s is the owner for the %[4]s of %[2]s, the %[1]s at %[3]s.",
			"We sorted out the %[4]s for the %[1]s %[2]s at %[3]s: %[5]s has it.",
		})
		u = fmt.Sprintf(u, f.Noun, f.Machine, f.Site, task, f.Answer)
		a = fmt.Sprintf(g.pick([]string{
			"Great, so %[1]s has the %[2]s for %[3]s.",
			"Thanks, noted that %[1]s owns it for %[3]s.",
			"Good to have a name on it: %[1]s, for %[3]s.",
		}), f.Answer, task, f.Machine)
	case KindDecision:
		what := g.pick(topicOf(f).Fact)
		u = g.pick([]string{
			"We agreed to %[4]s, for the %[1]s %[2]s at %[3]s; it is logged as %[5]s.",
			"Decision from this morning on %[1]s %[2]s (%[3]s site): %[4]s. Reference %[5]s.",
			"After the review at %[3]s we decided to %[4]s, the %[1]s %[2]s that is. Recorded under %[5]s.",
		})
		u = fmt.Sprintf(u, f.Noun, f.Machine, f.Site, what, f.Answer)
		a = fmt.Sprintf(g.pick([]string{
			"Logged: %[1]s for the %[3]s %[2]s.",
			"Understood, %[1]s it is. I will mention it in the weekly summary.",
			"Thanks, I will refer to %[1]s when %[2]s comes up again.",
		}), f.Answer, f.Machine, f.Noun)
	case KindMeasure:
		q := quantityOf(f)
		u = g.pick([]string{
			"Weekly numbers for line %[1]s at %[2]s: %[3]s came in at %[4]s this week.",
			"%[2]s update: line %[1]s %[3]s is %[4]s for the week.",
			"Figure from %[2]s this week: %[3]s on line %[1]s was %[4]s.",
		})
		u = fmt.Sprintf(u, f.Machine, f.Site, q.Name, f.Answer)
		if prev == nil {
			a = fmt.Sprintf("Thanks, %s noted as the first %s reading for %s.", f.Answer, q.Name, f.Machine)
		} else {
			a = fmt.Sprintf(g.pick([]string{
				"Thanks, %[1]s on %[3]s, compared with %[2]s the week before.",
				"Noted %[1]s for %[3]s; last time it was %[2]s.",
			}), f.Answer, prev.Answer, f.Machine)
		}
	}
	if agent {
		u += " Please add it to notes/maintenance.md."
		line := logLine(f)
		asst.Tools = []ToolCall{{
			Command: fmt.Sprintf("printf '%%s\\n' '%s' >> notes/maintenance.md && tail -n 2 notes/maintenance.md", line),
			Output:  g.pick([]string{"- weekly walk-round done", "- (no entries yet)", "- checked spares cupboard"}) + "\n" + line + "\n",
		}}
		a = "Added to notes/maintenance.md. " + a
	}
	user.Text, asst.Text = u, a
	return user, asst
}

// Session is the conversation as an ideal importer reads it back: the
// funes jsonl session the benchmark ingests directly when it does not go
// through the importers.
func (c *Conversation) Session() *funes.Session {
	s := &funes.Session{ID: c.ID, Harness: c.Harness, Title: c.Title, Workdir: c.Workdir}
	for i, m := range c.Messages {
		t := funes.Turn{TurnUUID: m.UUID, Seq: i, TS: m.TS, Role: m.Role}
		if c.Harness == funes.HarnessCodex {
			t.TurnUUID = fmt.Sprintf("%s-%d", c.ID, i)
		}
		if m.Thinking != "" {
			t.Blocks = append(t.Blocks, funes.Block{Type: funes.BlockThinking, Text: m.Thinking})
		}
		for _, tc := range m.Tools {
			t.Blocks = append(t.Blocks,
				funes.Block{Type: funes.BlockToolUse, Text: tc.Command, ToolName: "Bash"},
				funes.Block{Type: funes.BlockToolResult, Text: tc.Output, ToolName: "Bash"})
		}
		t.Blocks = append(t.Blocks, funes.Block{Type: funes.BlockText, Text: m.Text})
		s.Turns = append(s.Turns, t)
	}
	return s
}

// Sessions are all conversations as sessions (see Conversation.Session).
func (d *Dataset) Sessions() []*funes.Session {
	out := make([]*funes.Session, len(d.Conversations))
	for i, c := range d.Conversations {
		out[i] = c.Session()
	}
	return out
}
