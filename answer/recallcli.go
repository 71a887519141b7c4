package answer

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The context block: recall's text answer on the command line, for an
// agent that runs the CLI through its shell (and in `recall --json`).
//
//	[ireneo-result] Past conversations matching "q": 2 verbatim passage(s), best first. Quote them …
//
//	[1] 2026-03-01 09:00 UTC · chatgpt · "Title" · project: plant
//	receipt: session_id=… turn_uuid=…
//	  (before) assistant: …
//	user: the passage
//	  (after) assistant: …
//
//	[2] …

// hitEntry is one hit as it appears in the context block.
func hitEntry(n int, h Hit) string {
	var b strings.Builder
	size := 96 + len(h.Source) + len(h.Title) + len(h.SessionID) + len(h.TurnUUID) + len(h.Role) + len(h.Text)
	for _, p := range h.Projects {
		size += len(p) + 2
	}
	for _, nb := range h.Neighbors {
		size += 16 + len(nb.Role) + len(nb.Text)
	}
	b.Grow(size)
	// Written piece by piece: fmt's verbs were most of the cost of the
	// entries the budget counts. %q is strconv.Quote.
	b.WriteByte('[')
	b.WriteString(strconv.Itoa(n))
	b.WriteString("] ")
	b.WriteString(minute(h.TS))
	b.WriteString(sep)
	b.WriteString(h.Source)
	if h.Title != "" {
		b.WriteString(sep)
		b.WriteString(strconv.Quote(h.Title))
	}
	if len(h.Projects) > 0 {
		b.WriteString(projectsLabel)
		b.WriteString(strings.Join(h.Projects, ", "))
	}
	b.WriteString("\n" + receiptHead)
	b.WriteString(h.SessionID)
	b.WriteString(receiptTurn)
	b.WriteString(h.TurnUUID)
	b.WriteByte('\n')
	for _, n := range h.Neighbors {
		if n.Seq < h.Seq {
			neighbourLine(&b, beforeLabel, n)
		}
	}
	b.WriteString(h.Role)
	b.WriteString(": ")
	b.WriteString(h.Text)
	b.WriteByte('\n')
	for _, n := range h.Neighbors {
		if n.Seq > h.Seq {
			neighbourLine(&b, afterLabel, n)
		}
	}
	return b.String()
}

func neighbourLine(b *strings.Builder, label string, n Neighbor) {
	b.WriteString(label)
	b.WriteString(n.Role)
	b.WriteString(": ")
	b.WriteString(n.Text)
	b.WriteByte('\n')
}

// minute is a time as the answers show it, to the minute, in UTC.
func minute(t time.Time) string {
	if t.IsZero() {
		return Undated
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// contextBlock renders the result for an agent: plain, dated, verbatim.
func contextBlock(query string, res *RecallResult) string {
	if len(res.Hits) == 0 {
		// Marked, and ended by a newline, as every answer is: unmarked
		// and unended, after other shell output, it read as the shell's.
		if res.Cut > 0 {
			return marked(overBudget(query, res.Budget) + "\n")
		}
		return marked(noMatch(query) + "\n")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s%q: %d%s%s", Marker, recallHead, query, len(res.Hits), passagesCLI, adviceCLI)
	if res.Cut > 0 {
		fmt.Fprintf(&b, " %d%s", res.Cut, cutCLI)
	}
	b.WriteString("\n\n")
	for i, h := range res.Hits {
		b.WriteString(hitEntry(i+1, h))
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// CLIRecall is recall's text answer: the context block, safe for a
// terminal (its --json holds the block as it is).
func CLIRecall(res *RecallResult) string { return Terminal(res.ContextBlock) }

// noMatch says that nothing matches query.
func noMatch(query string) string { return noMatchHead + strconv.Quote(query) + noMatchTail }

// overBudget says that matches exist but none fits budget tokens.
func overBudget(query string, budget int) string {
	return overBudgetHead + strconv.Quote(query) + overBudgetMid + strconv.Itoa(budget) + overBudgetTail
}
