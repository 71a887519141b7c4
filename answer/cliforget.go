package answer

import (
	"fmt"
	"strings"
)

// `ireneo forget`: what was erased. It names the forgotten conversations,
// whose titles an agent running it through its shell must not bring back
// into the index: marked like every answer.

// ForgetReport says what a forget erased.
type ForgetReport struct {
	Sessions []ForgottenSession `json:"sessions"`
	Files    int                `json:"files_removed"`
	// Quoting counts the other conversations whose copies of Ireneo's
	// answers quoted these and were rewritten without the quotes; Quotes
	// counts the quotes erased from them.
	Quoting  int  `json:"quoting_rewritten"`
	Quotes   int  `json:"quotes_erased"`
	Vacuumed bool `json:"vacuumed"`
}

// ForgottenSession is one conversation that is gone.
type ForgottenSession struct {
	SessionID string `json:"session_id"`
	Source    string `json:"source"`
	Title     string `json:"title"`
	Turns     int    `json:"turns"`
	Bytes     int64  `json:"bytes"`
	File      string `json:"file"`
}

// CLIForgetJSON is forget's --json answer.
func CLIForgetJSON(rep *ForgetReport) any {
	return struct {
		Marker string `json:"marker"`
		*ForgetReport
	}{Marker, rep}
}

// CLIForget is forget's text answer, safe for a terminal.
func CLIForget(rep *ForgetReport) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	for _, s := range rep.Sessions {
		fmt.Fprintf(&b, "%s%s %s %q: %d turns, %d bytes, file %s%s\n", forgotHead, s.Source, s.SessionID, s.Title, s.Turns, s.Bytes, s.File, forgotTail)
	}
	fmt.Fprintf(&b, "erased %s and their index rows; freed pages zeroed, search index merged, WAL truncated", plural(rep.Files, "file", "files"))
	if rep.Vacuumed {
		b.WriteString(", database vacuumed")
	}
	b.WriteString(". A tombstone keeps a re-import from bringing them back (import --include-forgotten overrides).\n")
	if rep.Quotes > 0 {
		fmt.Fprintf(&b, "erased %s of them from %s (Ireneo's answers kept in agents' transcripts).\n",
			plural(rep.Quotes, "quote", "quotes"), plural(rep.Quoting, "other conversation", "other conversations"))
	} else {
		b.WriteString("No other conversation kept a quote of them in Ireneo's answers.\n")
	}
	return Terminal(b.String())
}
