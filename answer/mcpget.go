package answer

import (
	"fmt"
	"strings"
)

// GetOutput is the get tool's structured answer: a window of one
// conversation.
type GetOutput struct {
	Marker      string       `json:"marker"` // Marker
	Notice      string       `json:"notice"`
	Session     SessionBrief `json:"session"`
	Turns       []TurnOut    `json:"turns"`
	Earlier     string       `json:"earlier,omitempty"` // turns before the window, and how to read them
	Later       string       `json:"later,omitempty"`   // turns after the window, and how to read them
	TokenBudget int          `json:"token_budget"`
}

// TurnOut is one turn, its blocks joined into one text.
type TurnOut struct {
	Seq       int    `json:"seq"`
	TurnUUID  string `json:"turn_uuid"`
	Date      string `json:"date"`
	Role      string `json:"role"`
	Text      string `json:"text"`
	Focus     bool   `json:"focus,omitempty"` // the turn asked for
	Truncated bool   `json:"truncated,omitempty"`
}

// SessionBrief describes one conversation.
type SessionBrief struct {
	SessionID string   `json:"session_id"`
	Source    string   `json:"source"`
	Title     string   `json:"title,omitempty"`
	Projects  []string `json:"projects,omitempty"`
	Started   string   `json:"started"`
	Updated   string   `json:"updated"`
	Turns     int      `json:"turns"`
	Starred   bool     `json:"starred,omitempty"`
}

func briefOf(c Conversation, scope []string) SessionBrief {
	return SessionBrief{
		SessionID: c.SessionID, Source: c.Source, Title: c.Title,
		Projects: inScope(c.Projects, scope),
		Started:  day(c.Started), Updated: day(c.Updated), Turns: c.Turns, Starred: c.Starred,
	}
}

// turnText joins a turn's blocks, marking the ones that are not plain text
// and folding what is no one's words.
func turnText(t Turn) string {
	var b strings.Builder
	for i, bl := range t.Blocks {
		if i > 0 {
			b.WriteString("\n\n")
		}
		switch bl.Type {
		case BlockThinking:
			b.WriteString("(thinking) ")
		case BlockToolUse:
			fmt.Fprintf(&b, "(tool call %s) ", bl.ToolName)
		case BlockToolResult:
			fmt.Fprintf(&b, "(tool result %s) ", bl.ToolName)
		}
		b.WriteString(strings.TrimRight(shownText(bl), "\n"))
	}
	return b.String()
}

// shownText is a block as get shows it: Ireneo's own earlier answers and
// harness plumbing (its Folds) as one short line each; the rest as written.
func shownText(bl Block) string {
	if len(bl.Folds) == 0 {
		return bl.Text
	}
	var b strings.Builder
	at := 0
	for _, f := range bl.Folds {
		b.WriteString(bl.Text[at:f.Start])
		fmt.Fprintf(&b, "[%s, not shown]\n", f.Label)
		at = f.End
	}
	b.WriteString(bl.Text[at:])
	return b.String()
}

// MCPGet shapes a conversation window into the get tool's answer, whose
// structured form and text each fit budget tokens: the turn asked for
// first (shortened if it alone is too long), then turns either side while
// they fit.
func MCPGet(w *Window, scope []string, budget int, count Count) (*GetOutput, string) {
	total := w.Session.Turns
	out := &GetOutput{Marker: Marker, Notice: RecordsNotice, Session: briefOf(w.Session, scope), Turns: []TurnOut{}, TokenBudget: budget}
	turns := make([]TurnOut, len(w.Turns))
	at := 0
	for i, t := range w.Turns {
		turns[i] = TurnOut{Seq: t.Seq, TurnUUID: t.TurnUUID, Date: minute(t.TS), Role: t.Role, Text: turnText(t), Focus: t.Seq == w.Focus}
		if t.Seq == w.Focus {
			at = i
		}
	}
	if len(turns) == 0 {
		return out, getText(out)
	}
	// Frame: the hints at their longest.
	longest := turns[0]
	longest.Seq, longest.TurnUUID = total, strings.Repeat("x", len(longest.TurnUUID)+8)
	id := w.Session.SessionID
	out.Earlier = earlierHint(id, longest)
	out.Later = laterHint(id, longest, total)
	u := newUse(budget, 2)
	u.add(costs{countJSON(out, count) + seamSlack, count(getText(out)) + seamSlack})
	cost := func(t TurnOut) costs {
		return costs{countJSON(t, count) + seamSlack, count(turnBlock(t)) + seamSlack}
	}
	first := turns[at]
	c := cost(first)
	for !u.fits(c) && first.Text != "" {
		next := trimText(first.Text, u.over(c))
		if len(next) >= len(first.Text) {
			next = "" // no progress: see fitHits
		}
		first.Text = next
		first.Truncated = true
		c = cost(first)
	}
	u.add(c)
	lo, hi := at, at+1
	kept := map[int]TurnOut{at: first}
	for {
		grew := false
		if hi < len(turns) {
			if c := cost(turns[hi]); u.fits(c) {
				kept[hi] = turns[hi]
				u.add(c)
				hi++
				grew = true
			}
		}
		if lo > 0 {
			if c := cost(turns[lo-1]); u.fits(c) {
				lo--
				kept[lo] = turns[lo]
				u.add(c)
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	for i := lo; i < hi; i++ {
		out.Turns = append(out.Turns, kept[i])
	}
	hints := func() {
		out.Earlier, out.Later = "", ""
		if f := out.Turns[0]; f.Seq > 0 {
			out.Earlier = earlierHint(id, f)
		}
		if l := out.Turns[len(out.Turns)-1]; l.Seq < total-1 {
			out.Later = laterHint(id, l, total)
		}
	}
	hints()
	text := getText(out)
	// A guard, not a loop expected to run: the pieces' sum bounds the whole.
	for countJSON(out, count) > budget || count(text) > budget {
		switch n := len(out.Turns); {
		case n > 1 && out.Turns[n-1].Focus:
			out.Turns = out.Turns[1:]
		case n > 1:
			out.Turns = out.Turns[:n-1]
		case out.Turns[0].Text != "":
			out.Turns[0].Text = trimText(out.Turns[0].Text, 16)
			out.Turns[0].Truncated = true
		default:
			return out, text
		}
		hints()
		text = getText(out)
	}
	return out, text
}

func earlierHint(id string, first TurnOut) string {
	return fmt.Sprintf("%d%s%q and turn_uuid %q (turn %d) to read back.", first.Seq, getEarlierMid, id, first.TurnUUID, first.Seq)
}

func laterHint(id string, last TurnOut, total int) string {
	return fmt.Sprintf("%d%s%q and turn_uuid %q (turn %d) to read on.", total-1-last.Seq, getLaterMid, id, last.TurnUUID, last.Seq)
}

func projectList(ps []string) string {
	if len(ps) == 0 {
		return "untagged"
	}
	return strings.Join(ps, ", ")
}

// getText is the get tool's text content.
func getText(out *GetOutput) string {
	var b strings.Builder
	si := out.Session
	fmt.Fprintf(&b, "%s %s%q (%s, %s to %s, projects: %s)\n%s%s%s%d%s\n",
		Marker, getHead, si.Title, si.Source, si.Started, si.Updated, projectList(si.Projects), getSessionID, si.SessionID, sep, si.Turns, getTurnsTail)
	if len(out.Turns) == 0 {
		b.WriteString("\n" + getNoTurns + "\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%s%d to %d. %s\n", getShowing, out.Turns[0].Seq, out.Turns[len(out.Turns)-1].Seq, out.Notice)
	for _, t := range out.Turns {
		b.WriteString("\n")
		b.WriteString(turnBlock(t))
	}
	if out.Earlier != "" {
		fmt.Fprintf(&b, "\n%s\n", out.Earlier)
	}
	if out.Later != "" {
		fmt.Fprintf(&b, "\n%s\n", out.Later)
	}
	return b.String()
}

// turnBlock is one turn of getText.
func turnBlock(t TurnOut) string {
	mark := ""
	if t.Focus {
		mark = getFocusMark
	}
	if t.Truncated {
		mark += getShortMark
	}
	return fmt.Sprintf("%s%d%s%s%s%s%s%s]%s\n%s\n", getTurnHead, t.Seq, sep, t.Date, sep, t.Role, getTurnUUID, t.TurnUUID, mark, t.Text)
}
