package mcpserver

import (
	"fmt"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/plumbing"
)

// The text content of each tool, rendered from its structured answer: what
// a model reads when its client shows text rather than structuredContent.
// Both carry the same facts, notice and paging hints, and both begin with
// plumbing.ResultMarker (see results.go).

// marked puts the marker before an answer's text.
func marked(text string) string { return plumbing.ResultMarker + " " + text }

func minute(t time.Time) string {
	if t.IsZero() {
		return "undated"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func projectList(ps []string) string {
	if len(ps) == 0 {
		return "untagged"
	}
	return strings.Join(ps, ", ")
}

// recallText is recall's context block.
func recallText(out *RecallOutput) string {
	var b strings.Builder
	if len(out.Hits) == 0 {
		if out.Cut > 0 {
			fmt.Fprintf(&b, "%s Matches for %q exist but none fits in a budget of %d tokens; ask again with a larger token_budget.\n", plumbing.ResultMarker, out.Query, out.TokenBudget)
		} else {
			fmt.Fprintf(&b, "%s No past conversation matches %q. Nothing was found in memory; try other words, a key identifier, or say you don't know.\n", plumbing.ResultMarker, out.Query)
		}
		return b.String()
	}
	b.WriteString(recallHeader(out, len(out.Hits)))
	for i, h := range out.Hits {
		b.WriteString("\n")
		b.WriteString(hitText(i+1, h))
	}
	if out.Next != "" {
		fmt.Fprintf(&b, "\n%s\n", out.Next)
	}
	return b.String()
}

func recallHeader(out *RecallOutput, hits int) string {
	return marked(fmt.Sprintf("Past conversations matching %q: %d passage(s), best first. %s\n", out.Query, hits, out.Notice))
}

// recallFrameText is the context block without its hits: what is left of
// the budget for them is counted from it.
func recallFrameText(out *RecallOutput, hits int) string {
	s := recallHeader(out, hits)
	if out.Next != "" {
		s += "\n" + out.Next + "\n"
	}
	return s
}

// hitText is one hit of the context block.
func hitText(n int, h RecallHit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s · %s", n, h.Date, h.Source)
	if h.Title != "" {
		fmt.Fprintf(&b, " · %q", h.Title)
	}
	if len(h.Projects) > 0 {
		fmt.Fprintf(&b, " · project: %s", strings.Join(h.Projects, ", "))
	}
	fmt.Fprintf(&b, "\nreceipt: session_id=%s turn_uuid=%s\n", h.SessionID, h.TurnUUID)
	for _, p := range h.Before {
		fmt.Fprintf(&b, "  (before) %s: %s\n", p.Role, p.Text)
	}
	fmt.Fprintf(&b, "%s: %s\n", h.Role, h.Text)
	for _, p := range h.After {
		fmt.Fprintf(&b, "  (after) %s: %s\n", p.Role, p.Text)
	}
	return b.String()
}

// getText renders a conversation window.
func getText(out *GetOutput) string {
	var b strings.Builder
	si := out.Session
	fmt.Fprintf(&b, "%s Conversation %q (%s, %s to %s, projects: %s)\nsession_id: %s · %d turns\n",
		plumbing.ResultMarker, si.Title, si.Source, si.Started, si.Updated, projectList(si.Projects), si.SessionID, si.Turns)
	if len(out.Turns) == 0 {
		b.WriteString("\n(no turns)\n")
		return b.String()
	}
	fmt.Fprintf(&b, "Showing turns %d to %d. %s\n", out.Turns[0].Seq, out.Turns[len(out.Turns)-1].Seq, out.Notice)
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
		mark = " ← the turn asked for"
	}
	if t.Truncated {
		mark += " (shortened to fit the token budget)"
	}
	return fmt.Sprintf("[turn %d · %s · %s · turn_uuid %s]%s\n%s\n", t.Seq, t.Date, t.Role, t.TurnUUID, mark, t.Text)
}

func sessionsText(r *SessionsResult) string {
	var b strings.Builder
	if len(r.Sessions) == 0 {
		if r.Total > 0 {
			fmt.Fprintf(&b, "%s No conversations at offset %d; %d match in all.\n", plumbing.ResultMarker, r.Offset, r.Total)
		} else {
			b.WriteString(marked("No conversations in memory match. Try fewer filters or other words.\n"))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%s %d conversation(s) match; showing %d to %d, newest first.\n\n", plumbing.ResultMarker, r.Total, r.Offset+1, r.Offset+len(r.Sessions))
	for _, si := range r.Sessions {
		b.WriteString(sessionLine(si))
	}
	if r.Next != "" {
		fmt.Fprintf(&b, "\n%s\n", r.Next)
	}
	return b.String()
}

func sessionLine(si SessionBrief) string {
	return fmt.Sprintf("- %s · %s · %q · projects: %s · %d turns · session_id %s\n",
		si.Updated, si.Source, si.Title, projectList(si.Projects), si.Turns, si.SessionID)
}

func projectsText(r ProjectsResult) string {
	var b strings.Builder
	if len(r.Projects) == 0 {
		b.WriteString(marked("No projects."))
	} else {
		b.WriteString(marked("Projects (conversations):\n"))
		for _, p := range r.Projects {
			fmt.Fprintf(&b, "- %s (%d)\n", p.Name, p.Count)
		}
	}
	if r.Untagged > 0 {
		fmt.Fprintf(&b, "\n%d conversation(s) carry no project.\n", r.Untagged)
	}
	return b.String()
}
