package answer

import (
	"fmt"
	"strings"
)

// SessionsResult is the sessions tool's structured answer.
type SessionsResult struct {
	Marker      string         `json:"marker"` // Marker
	Total       int            `json:"total"`
	Offset      int            `json:"offset"`
	Sessions    []SessionBrief `json:"sessions"`
	Next        string         `json:"next,omitempty"` // how to see the next page
	TokenBudget int            `json:"token_budget"`
}

// MCPSessions fits a page of conversations into budget tokens, in both
// forms; what does not fit is left for the next page.
func MCPSessions(list []Conversation, total, offset int, scope []string, budget int, count Count) (*SessionsResult, string) {
	out := &SessionsResult{Marker: Marker, Total: total, Offset: offset, Sessions: []SessionBrief{}, TokenBudget: budget}
	out.Next = sessionsNext(total, offset+total)
	u := newUse(budget, 2)
	u.add(costs{countJSON(out, count) + seamSlack, count(sessionsText(out)) + seamSlack})
	for _, c := range list {
		b := briefOf(c, scope)
		cost := costs{countJSON(b, count) + seamSlack, count(sessionLine(b)) + seamSlack}
		if !u.fits(cost) && len(out.Sessions) > 0 {
			break
		}
		out.Sessions = append(out.Sessions, b)
		u.add(cost)
	}
	next := func() {
		out.Next = ""
		if end := offset + len(out.Sessions); end < total {
			out.Next = sessionsNext(total-end, end)
		}
	}
	next()
	text := sessionsText(out)
	for len(out.Sessions) > 1 && (countJSON(out, count) > budget || count(text) > budget) {
		out.Sessions = out.Sessions[:len(out.Sessions)-1]
		next()
		text = sessionsText(out)
	}
	return out, text
}

func sessionsNext(more, offset int) string {
	return fmt.Sprintf("%d more: call sessions again with offset %d.", more, offset)
}

// sessionsText is the sessions tool's text content.
func sessionsText(r *SessionsResult) string {
	var b strings.Builder
	if len(r.Sessions) == 0 {
		if r.Total > 0 {
			fmt.Fprintf(&b, "%s %s%d; %d match in all.\n", Marker, sessionsNoneAt, r.Offset, r.Total)
		} else {
			b.WriteString(marked(sessionsNone + "\n"))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%s %d%s%d to %d%s\n\n", Marker, r.Total, sessionsHeadMid, r.Offset+1, r.Offset+len(r.Sessions), sessionsHeadTail)
	for _, si := range r.Sessions {
		b.WriteString(sessionLine(si))
	}
	if r.Next != "" {
		fmt.Fprintf(&b, "\n%s\n", r.Next)
	}
	return b.String()
}

func sessionLine(si SessionBrief) string {
	return fmt.Sprintf("%s%s%s%s%s%q%sprojects: %s%s%d%s%s%s\n",
		sessionLineHead, si.Updated, sep, si.Source, sep, si.Title, sep, projectList(si.Projects), sep, si.Turns, getTurnsTail, sessionLineID, si.SessionID)
}
