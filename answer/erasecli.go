package answer

import (
	"strconv"
	"strings"
)

// Erasing from the CLI's text answers, as an agent that ran it through a
// shell has them in its transcript (cliget.go, clisessions.go): each
// begins with the marker, and a shell's output may hold several
// (`ireneo sessions; ireneo get …`), so each is read from its marker on. A
// get answer goes whole, as the server's does, up to its last turn's last
// line (every line of a turn's text is indented, so what the shell printed
// next is known); a sessions line goes alone, the table around it stays.

// cliAnswers cuts text at each line that begins with the marker: the
// first piece is what came before any (often ""), each other one answer.
func cliAnswers(text string) []string {
	var out []string
	start := 0
	for at := 0; ; {
		i := strings.Index(text[at:], Marker)
		if i < 0 {
			break
		}
		i += at
		if i == 0 || text[i-1] == '\n' {
			out = append(out, text[start:i])
			start = i
		}
		at = i + len(Marker)
	}
	return append(out, text[start:])
}

// readCLITurnHeader reports whether line is a get turn's header:
// "> [3] …" for the turn asked for, "  [3] …" for the others.
func readCLITurnHeader(line string) bool {
	if len(line) < 2 || line[0] != ' ' && line[0] != cliFocus || line[1] != ' ' {
		return false
	}
	rest, ok := strings.CutPrefix(line[2:], "[")
	n := digits(rest)
	return ok && n > 0 && strings.HasPrefix(rest[n:], "] ")
}

// cliGetHeader reads the conversation a CLI get answer shows from its
// header line ("[ireneo-result] title · source · session_id"), and checks
// the line after it is get's too.
func cliGetHeader(answer string) (source, sid string, ok bool) {
	head, rest, _ := strings.Cut(answer, "\n")
	head, ok = strings.CutPrefix(head, Marker+" ")
	if !ok {
		return "", "", false
	}
	i := strings.LastIndex(head, sep)
	if i < 0 {
		return "", "", false
	}
	sid = head[i+len(sep):]
	j := strings.LastIndex(head[:i], sep)
	if j < 0 {
		return "", "", false
	}
	source = head[j+len(sep) : i]
	if sid == "" || source == "" || strings.ContainsAny(sid+source, " \t\r") {
		return "", "", false
	}
	next, after, _ := strings.Cut(rest, "\n")
	if strings.HasPrefix(next, cliProjects) {
		next, after, _ = strings.Cut(after, "\n")
	}
	// A blank line, then the first turn's header (or nothing: no turns).
	if next != "" || after != "" && !readCLITurnHeader(after) {
		return "", "", false
	}
	return source, sid, true
}

// cliGetEnd is where a CLI get answer (cliGetHeader's) ends: after its
// header, projects line and turns, each a blank line, the turn's header and
// its lines, all indented. The output of the next command in the shell
// begins there.
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
	if l, next := line(at); strings.HasPrefix(l, cliProjects) {
		at = next
	}
	for at < len(answer) {
		blank, next := line(at)
		if blank != "" || next >= len(answer) {
			break
		}
		head, after := line(next)
		if !readCLITurnHeader(head) { // as loose as cliGetHeader's: a turn cut short would stay
			break
		}
		at = after
		for at < len(answer) {
			l, next := line(at)
			if !strings.HasPrefix(l, cliIndent) {
				break
			}
			at = next
		}
	}
	return at
}

// cliTable reports whether answer is a CLI table (sessions' or projects'):
// the marker alone on its first line.
func cliTable(answer string) bool {
	head, _, _ := strings.Cut(answer, "\n")
	return strings.TrimSpace(head) == Marker
}

// readCLISessionLine reads a line of the CLI's sessions table:
// "* 2026-03-01  chatgpt     conv-1      12 turns  Title  [plant]".
func readCLISessionLine(line string) (source, sid string, ok bool) {
	if len(line) < 2 || line[0] != ' ' && line[0] != cliStarred || line[1] != ' ' {
		return "", "", false
	}
	rest := line[2:]
	var fields [3]string
	for i := range fields {
		n := strings.IndexAny(rest, " \t\n\f\r")
		if n <= 0 {
			return "", "", false
		}
		fields[i], rest = rest[:n], rest[n:]
		if i < 2 && !strings.HasPrefix(rest, " ") {
			return "", "", false
		}
		rest = strings.TrimLeft(rest, " ")
	}
	// fields: the day, the source, the id; then the count and "turns".
	n := digits(rest)
	if n == 0 || !strings.HasPrefix(rest[n:], cliTurns) {
		return "", "", false
	}
	return fields[1], fields[2], true
}

// readForgotLine reads a line of the CLI's forget report: "forgot source
// id "title": N turns, N bytes, file F erased". The title is the
// forgotten conversation's, so a copy of the report in an agent's
// transcript, imported later, quotes it.
func readForgotLine(line string) (source, sid string, ok bool) {
	rest, ok := strings.CutPrefix(line, forgotHead)
	if !ok || !strings.HasSuffix(line, forgotTail) {
		return "", "", false
	}
	source, rest, _ = strings.Cut(rest, " ")
	sid, rest, _ = strings.Cut(rest, " ")
	if source == "" || sid == "" {
		return "", "", false
	}
	if _, err := strconv.QuotedPrefix(rest); err != nil {
		return "", "", false
	}
	return source, sid, true
}

// tableLine reads a line of a CLI table answer that names a conversation:
// sessions' or forget's.
func tableLine(line string) (source, sid string, ok bool) {
	if source, sid, ok = readCLISessionLine(line); ok {
		return source, sid, ok
	}
	return readForgotLine(line)
}

// cliMayQuoteGone is mayQuoteGone for the CLI's text answers, which do not
// name their ids "session_id": only text holding the marker is read.
func cliMayQuoteGone(text string, gone Gone) bool {
	if !strings.Contains(text, Marker) {
		return false
	}
	// Behind a shell's envelope, as Erase reads it: Gemini CLI's "Output: "
	// puts the answer's marker mid-line, where cliAnswers does not cut.
	if head, out := ShellOutput(strings.TrimSpace(text)); head != "" {
		text = out
	}
	for _, a := range cliAnswers(text) {
		if source, sid, ok := cliGetHeader(a); ok {
			if gone(source, sid) {
				return true
			}
			continue
		}
		if !cliTable(a) {
			continue
		}
		for _, line := range strings.Split(a, "\n") {
			if source, sid, ok := tableLine(line); ok && gone(source, sid) {
				return true
			}
		}
	}
	return false
}

// eraseCLI erases the quotes of forgotten conversations from the CLI's
// text answers in text: a get answer whole, a sessions line alone, and
// recall's context block among them.
func eraseCLI(text string, gone Gone, passages []string) (string, int) {
	var (
		out strings.Builder
		n   int
	)
	for _, a := range cliAnswers(text) {
		if source, sid, ok := cliGetHeader(a); ok {
			if gone(source, sid) {
				n++
				out.WriteString(Marker + " " + ForgottenText + "\n")
				out.WriteString(a[cliGetEnd(a):]) // the shell's next output
				continue
			}
			out.WriteString(a)
			continue
		}
		if body, ok := strings.CutPrefix(a, Marker+" "); ok && (strings.HasPrefix(body, recallHead+`"`) || sessionsHeader.MatchString(body)) {
			// recall's context block among them (those forms never come
			// back here).
			e, k := eraseText(a, gone, passages)
			out.WriteString(e)
			n += k
			continue
		}
		if !cliTable(a) {
			out.WriteString(a)
			continue
		}
		e, k := eraseLines(a, gone, func(line string) (string, string, string, bool) {
			if source, sid, ok := readCLISessionLine(line); ok {
				return source, sid, cliIndent + ForgottenText, true
			}
			source, sid, ok := readForgotLine(line)
			return source, sid, forgotHead + ForgottenText, ok
		})
		out.WriteString(e)
		n += k
	}
	if n == 0 {
		return text, 0
	}
	return out.String(), n
}
