package memory

import (
	"regexp"
	"strings"

	"github.com/ireneo-app/ireneo/plumbing"
)

// The CLI's text answers, as an agent that ran it through a shell has them
// in its transcript (app/cli prints them): each begins with the marker,
// and a shell's output may hold several (`ireneo sessions; ireneo get …`),
// so each is read from its marker on.
//
//	[ireneo-result] Title · claude_code · 5d1f0c7e-…     get: the header line
//	projects: plant
//
//	> [3] 2026-03-01 09:00 user (turn-uuid)
//	  the turn's text…
//
//	[ireneo-result]                                      sessions: a line of its own
//	* 2026-03-01  chatgpt     conv-1      12 turns  Title  [plant]
//	1 conversation of 1
//
// A get answer goes whole, as the server's does, up to its last turn's
// last line (every line of a turn's text is indented, so what the shell
// printed next is known); a sessions line goes alone, the table around it
// stays.

var (
	cliGetTurn     = regexp.MustCompile(`^[ >] \[\d+\] `)
	cliSessionLine = regexp.MustCompile(`^[ *] \S+ +(\S+) +(\S+) +\d+ turns  `)
)

// cliAnswers cuts text at each line that begins with the marker: the
// first piece is what came before any (often ""), each other one answer.
func cliAnswers(text string) []string {
	var out []string
	start := 0
	for at := 0; ; {
		i := strings.Index(text[at:], plumbing.ResultMarker)
		if i < 0 {
			break
		}
		i += at
		if i == 0 || text[i-1] == '\n' {
			out = append(out, text[start:i])
			start = i
		}
		at = i + len(plumbing.ResultMarker)
	}
	return append(out, text[start:])
}

// cliGetHeader reads the conversation a CLI get answer shows from its
// header line ("[ireneo-result] title · source · session_id"), and checks
// the line after it is get's too.
func cliGetHeader(answer string) (source, sid string, ok bool) {
	head, rest, _ := strings.Cut(answer, "\n")
	head, ok = strings.CutPrefix(head, plumbing.ResultMarker+" ")
	if !ok {
		return "", "", false
	}
	i := strings.LastIndex(head, " · ")
	if i < 0 {
		return "", "", false
	}
	sid = head[i+len(" · "):]
	j := strings.LastIndex(head[:i], " · ")
	if j < 0 {
		return "", "", false
	}
	source = head[j+len(" · ") : i]
	if sid == "" || source == "" || strings.ContainsAny(sid+source, " \t\r") {
		return "", "", false
	}
	next, after, _ := strings.Cut(rest, "\n")
	if strings.HasPrefix(next, "projects: ") {
		next, after, _ = strings.Cut(after, "\n")
	}
	// A blank line, then the first turn's header (or nothing: no turns).
	if next != "" || after != "" && !cliGetTurn.MatchString(after) {
		return "", "", false
	}
	return source, sid, true
}

// cliGetEnd is where a CLI get answer (cliGetHeader's) ends: after its
// header, projects line and turns, each a blank line, the turn's header and
// its lines, all indented by two spaces (app/cli's indent). The output of
// the next command in the shell begins there.
func cliGetEnd(answer string) int {
	at := 0
	line := func(i int) (string, int) { // the line at i, and where the next begins
		j := strings.IndexByte(answer[i:], '\n')
		if j < 0 {
			return answer[i:], len(answer)
		}
		return answer[i : i+j], i + j + 1
	}
	_, at = line(at) // the header
	if l, next := line(at); strings.HasPrefix(l, "projects: ") {
		at = next
	}
	for at < len(answer) {
		blank, next := line(at)
		if blank != "" || next >= len(answer) {
			break
		}
		head, after := line(next)
		if !cliGetTurn.MatchString(head) { // as loose as cliGetHeader's: a turn cut short would stay
			break
		}
		at = after
		for at < len(answer) {
			l, next := line(at)
			if !strings.HasPrefix(l, "  ") {
				break
			}
			at = next
		}
	}
	return at
}

// cliSessionsTable reports whether answer is a CLI table (sessions' or
// projects'): the marker alone on its first line.
func cliSessionsTable(answer string) bool {
	head, _, _ := strings.Cut(answer, "\n")
	return strings.TrimSpace(head) == plumbing.ResultMarker
}

// cliMayQuoteGone is mayQuoteGone for the CLI's text answers, which do not
// name their ids "session_id": only text holding the marker is read.
func cliMayQuoteGone(text string, gone goneFunc) bool {
	if !strings.Contains(text, plumbing.ResultMarker) {
		return false
	}
	for _, a := range cliAnswers(text) {
		if source, sid, ok := cliGetHeader(a); ok {
			if gone(source, sid) {
				return true
			}
			continue
		}
		if !cliSessionsTable(a) {
			continue
		}
		for _, line := range strings.Split(a, "\n") {
			if m := cliSessionLine.FindStringSubmatch(line); m != nil && gone(m[1], m[2]) {
				return true
			}
		}
	}
	return false
}

// eraseCLIQuotes erases the quotes of forgotten conversations from the
// CLI's text answers in text: a get answer whole, a sessions line alone.
func eraseCLIQuotes(text string, gone goneFunc, passages []string) (string, int) {
	var (
		out strings.Builder
		n   int
	)
	for _, a := range cliAnswers(text) {
		if source, sid, ok := cliGetHeader(a); ok {
			if gone(source, sid) {
				n++
				out.WriteString(plumbing.ResultMarker + " " + ForgottenText + "\n")
				out.WriteString(a[cliGetEnd(a):]) // the shell's next output
				continue
			}
			out.WriteString(a)
			continue
		}
		if body, ok := strings.CutPrefix(a, plumbing.ResultMarker+" "); ok && (strings.HasPrefix(body, `Past conversations matching "`) || sessionsHead.MatchString(body)) {
			// recall's context block among them (those forms never come
			// back here).
			e, k := eraseTextQuotes(a, gone, passages)
			out.WriteString(e)
			n += k
			continue
		}
		if !cliSessionsTable(a) {
			out.WriteString(a)
			continue
		}
		for _, line := range strings.SplitAfter(a, "\n") {
			if m := cliSessionLine.FindStringSubmatch(line); m != nil && gone(m[1], m[2]) {
				n++
				out.WriteString("  " + ForgottenText + line[len(strings.TrimRight(line, "\n")):])
				continue
			}
			out.WriteString(line)
		}
	}
	if n == 0 {
		return text, 0
	}
	return out.String(), n
}
