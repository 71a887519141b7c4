package answer

import (
	"fmt"
	"strings"
)

// `ireneo get`: a conversation, or the turns around one turn.
//
//	[ireneo-result] Title · claude_code · 5d1f0c7e-…     the header line
//	projects: plant
//
//	> [3] 2026-03-01 09:00 user (turn-uuid)             ">" marks the turn asked for
//	  ‹tool_use Bash›
//	  the turn's text, every line indented
//
// The header names the conversation on one line, so forget knows whose
// answer it is; every line of a turn is indented, so forget knows where
// the answer ends and a shell's next output begins.

// CLIGet is get's text answer, safe for a terminal.
func CLIGet(w *Window) string {
	var b strings.Builder
	s := w.Session
	fmt.Fprintf(&b, "%s %s%s%s%s%s\n", Marker, oneLine(orDash(s.Title)), sep, s.Source, sep, s.SessionID)
	if len(s.Projects) > 0 {
		fmt.Fprintf(&b, "%s%s\n", cliProjects, strings.Join(s.Projects, ", "))
	}
	for _, t := range w.Turns {
		mark := ' '
		if t.Seq == w.Focus {
			mark = cliFocus
		}
		fmt.Fprintf(&b, "\n%c [%d] %s %s (%s)\n", mark, t.Seq, t.TS.UTC().Format("2006-01-02 15:04"), t.Role, t.TurnUUID)
		for _, bl := range t.Blocks {
			if bl.Type != BlockText {
				name := bl.Type
				if bl.ToolName != "" {
					name += " " + bl.ToolName
				}
				fmt.Fprintf(&b, "%s‹%s›\n", cliIndent, name)
			}
			b.WriteString(indent(bl.Text, cliIndent))
			b.WriteByte('\n')
		}
	}
	return Terminal(b.String())
}

// CLIGetJSON is get's --json answer: the window, marked.
func CLIGetJSON(w *Window) any {
	return struct {
		Marker string `json:"marker"`
		*Window
	}{Marker, w}
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

// oneLine keeps a title on its line, so the header and table lines stay
// whole for a reader and for forget, which finds the session id on them.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
