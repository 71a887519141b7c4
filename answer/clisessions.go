package answer

import (
	"fmt"
	"strings"
)

// `ireneo sessions` and `ireneo projects`: tables under the marker, on a
// line of its own.
//
//	[ireneo-result]
//	* 2026-03-01  chatgpt     conv-1      12 turns  Title  [plant]
//	1 conversation of 1

// CLISessions is sessions' text answer: a page of total conversations,
// safe for a terminal.
func CLISessions(list []Conversation, total int) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	for _, s := range list {
		star := ' '
		if s.Starred {
			star = cliStarred
		}
		fmt.Fprintf(&b, "%c %-10s  %-11s %-40s %3d%s%s  [%s]\n", star, day(s.Updated), s.Source, s.SessionID,
			s.Turns, cliTurns, oneLine(orDash(s.Title)), strings.Join(s.Projects, ", "))
	}
	fmt.Fprintf(&b, "%s of %d\n", plural(len(list), "conversation", "conversations"), total)
	return Terminal(b.String())
}

// CLISessionsJSON is sessions' --json answer.
func CLISessionsJSON(list []Conversation, total int) any {
	if list == nil {
		list = []Conversation{}
	}
	return struct {
		Marker   string         `json:"marker"`
		Sessions []Conversation `json:"sessions"`
		Total    int            `json:"total"`
	}{Marker, list, total}
}

// CLIProjects is projects' text answer, safe for a terminal.
func CLIProjects(ps []ProjectCount, untagged int) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "%6d  %s\n", p.Count, p.Name)
	}
	fmt.Fprintf(&b, "%6d  (untagged)\n", untagged)
	return Terminal(b.String())
}

// CLIProjectsJSON is projects' --json answer.
func CLIProjectsJSON(ps []ProjectCount, untagged int) any {
	return struct {
		Marker   string         `json:"marker"`
		Projects []ProjectCount `json:"projects"`
		Untagged int            `json:"untagged"`
	}{Marker, ps, untagged}
}
