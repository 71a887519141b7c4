package answer

import (
	"fmt"
	"strings"
)

// ScanMatch is one place a scan found its pattern: the line it is on, the
// text it matched, and the receipt to read around it with get.
type ScanMatch struct {
	SessionID string   `json:"session_id"`
	TurnUUID  string   `json:"turn_uuid"`
	Date      string   `json:"date"`
	Source    string   `json:"source"`
	Title     string   `json:"title,omitempty"`
	Projects  []string `json:"projects,omitempty"`
	Role      string   `json:"role"`
	Match     string   `json:"match"`
	Line      string   `json:"line"` // the line of the turn the match is on, cut around it when long
	// At is where a scan resumes to show this match first: the cursor of
	// the page that would begin with it.
	At string `json:"-"`
}

// ScanOutput is the scan tool's structured answer: one page of every
// match, in order (conversations oldest first, then turns and places).
type ScanOutput struct {
	Marker     string      `json:"marker"` // Marker
	Notice     string      `json:"notice"`
	Pattern    string      `json:"pattern"`
	Regexp     bool        `json:"regexp,omitempty"`
	IgnoreCase bool        `json:"ignore_case,omitempty"`
	Matches    []ScanMatch `json:"matches"`
	// Scanned is how many conversations in scope have been read to the end
	// by this page and those before it, of InScope.
	Scanned  int  `json:"conversations_scanned"`
	InScope  int  `json:"conversations_in_scope"`
	Complete bool `json:"complete"` // no match is left after this page
	// Cursor resumes the scan after the last match shown.
	Cursor      string `json:"cursor,omitempty"`
	Next        string `json:"next,omitempty"`
	TokenBudget int    `json:"token_budget"`
}

// ScanPage is what a scan found for one page: the matches in order, how
// far it read, and where it stopped (end, "" when the scope is done).
type ScanPage struct {
	Pattern    string
	Regexp     bool
	IgnoreCase bool
	Matches    []ScanMatch
	Scanned    int
	InScope    int
	End        string
}

// MCPScan fits a page of matches into budget tokens in both forms; the
// matches that do not fit are the next page's (the cursor points at the
// first of them), so paging on loses none.
func MCPScan(p ScanPage, scope []string, budget int, count Count) (*ScanOutput, string) {
	out := &ScanOutput{Marker: Marker, Notice: RecordsNotice, Pattern: p.Pattern, Regexp: p.Regexp, IgnoreCase: p.IgnoreCase,
		Matches: []ScanMatch{}, Scanned: p.Scanned, InScope: p.InScope, TokenBudget: budget}
	// The frame with its longest hint.
	out.Cursor = strings.Repeat("x", 96)
	out.Next = scanNext(out)
	u := newUse(budget, 2)
	u.add(costs{countJSON(out, count) + seamSlack, count(scanText(out)) + seamSlack})
	out.Cursor, out.Next = "", ""
	shown := 0
	for _, m := range p.Matches {
		m.Projects = inScope(m.Projects, scope)
		c := costs{countJSON(m, count) + seamSlack, count(scanLine(shown+1, m)) + seamSlack}
		if !u.fits(c) && shown > 0 {
			break
		}
		if !u.fits(c) {
			// One match alone over the budget: its line is cut to fit.
			m.Line = trimText(m.Line, u.over(c))
			c = costs{countJSON(m, count) + seamSlack, count(scanLine(shown+1, m)) + seamSlack}
			if !u.fits(c) {
				break
			}
		}
		out.Matches = append(out.Matches, m)
		u.add(c)
		shown++
	}
	switch {
	case shown < len(p.Matches):
		out.Cursor = p.Matches[shown].At
	default:
		out.Cursor = p.End
	}
	out.Complete = out.Cursor == ""
	out.Next = scanNext(out)
	return out, scanText(out)
}

func scanNext(out *ScanOutput) string {
	if out.Cursor == "" {
		return ""
	}
	return fmt.Sprintf("%s%d%s%d conversations read so far): %s%q.", scanMoreHead, out.Scanned, scanReadMid, out.InScope, scanMoreTail, out.Cursor)
}

// scanText is the scan tool's text content.
func scanText(out *ScanOutput) string {
	var b strings.Builder
	what := scanWhat(out)
	switch {
	case len(out.Matches) == 0 && out.Complete:
		fmt.Fprintf(&b, "%s %s%s in %s in scope.\n", Marker, scanNoMatch, what, plural(out.InScope, "conversation", "conversations"))
	case len(out.Matches) == 0:
		fmt.Fprintf(&b, "%s %s%s yet (%d%s%d%s.\n", Marker, scanNoMatch, what, out.Scanned, scanReadMid, out.InScope, scanReadTail)
	default:
		fmt.Fprintf(&b, "%s %s%s%s (%d%s%d%s:\n\n", Marker, plural(len(out.Matches), "match", "matches"), scanFor, what, out.Scanned, scanReadMid, out.InScope, scanReadTail)
		for i, m := range out.Matches {
			b.WriteString(scanLine(i+1, m))
		}
		b.WriteString(out.Notice + "\n")
	}
	switch {
	case out.Next != "":
		b.WriteString(out.Next + "\n")
	case len(out.Matches) > 0:
		b.WriteString(scanEvery + "\n")
	}
	return b.String()
}

// scanWhat is the pattern as the text shows it: quoted, or /between
// slashes/ for a regular expression.
func scanWhat(out *ScanOutput) string {
	what := fmt.Sprintf("%q", out.Pattern)
	if out.Regexp {
		what = "/" + out.Pattern + "/"
	}
	if out.IgnoreCase {
		what += " (any case)"
	}
	return what
}

// scanLine is one match: "[n] date · source · "title" · role", its
// receipt, and its line, indented; a blank line after. The line is one
// line of the turn, so the three are always three lines.
func scanLine(n int, m ScanMatch) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s%s%s", n, m.Date, sep, m.Source)
	if m.Title != "" {
		fmt.Fprintf(&b, "%s%q", sep, m.Title)
	}
	fmt.Fprintf(&b, "%s%s\n%s%s%s%s\n%s%s\n\n", sep, m.Role, receiptHead, m.SessionID, receiptTurn, m.TurnUUID, scanMatchLine, oneLine(m.Line))
	return b.String()
}

// isScanText reports scan's text answer by its header.
func isScanText(body string) bool {
	first, _, _ := strings.Cut(body, "\n")
	if strings.HasPrefix(first, scanNoMatch) {
		return true
	}
	n := digits(first)
	rest := first[n:]
	return n > 0 && (strings.HasPrefix(rest, " match"+scanFor) || strings.HasPrefix(rest, " matches"+scanFor)) && strings.HasSuffix(first, scanReadTail+":")
}

// eraseScan erases the forgotten conversations' matches from scan's text
// answer: a match whose receipt names one becomes "[n] [forgotten]", its
// line with it. A match is taken as one only when its three lines are as
// scanLine writes them, after a blank line.
func eraseScan(text string, gone Gone) (string, int) {
	lines := strings.SplitAfter(text, "\n")
	var out strings.Builder
	out.Grow(len(text))
	n := 0
	for i := 0; i < len(lines); i++ {
		bare := strings.TrimSuffix(lines[i], "\n")
		if i > 0 && i+2 < len(lines) && strings.TrimSpace(lines[i-1]) == "" {
			k, isHead := readHitNumber(bare)
			sid, hasReceipt := readReceipt(strings.TrimSuffix(lines[i+1], "\n"))
			if isHead && hasReceipt && strings.HasPrefix(lines[i+2], scanMatchLine) && gone(namedSource(bare), sid) {
				fmt.Fprintf(&out, "[%d] %s\n", k, ForgottenText)
				n++
				i += 2
				continue
			}
		}
		out.WriteString(lines[i])
	}
	if n == 0 {
		return text, 0
	}
	return out.String(), n
}
