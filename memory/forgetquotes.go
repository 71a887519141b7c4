package memory

import (
	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/plumbing"
)

// Ireneo's own answers in an agent's transcript quote other conversations:
// a recall hit carries a passage and its receipt, a get answer a window of
// one conversation, a sessions answer a title per line. Once a conversation
// is forgotten those quotes must go too, or its text stays on disk inside
// other conversations' files. Package answer, which writes every answer,
// reads them back: answer.Erase says where each quote begins and ends and
// what stands in its place (the unit erased is the smallest that holds all
// of the quote, and never a byte that may be another's). Here forget says
// which conversations are gone and which blocks hold an answer.

// ForgottenText replaces what was erased.
const ForgottenText = answer.ForgottenText

// minVerbatimBytes is the shortest passage looked for verbatim: shorter
// ones ("Thanks, that settles it.") are said in many conversations.
const minVerbatimBytes = answer.MinPassageBytes

// eraseQuotesInSession erases, in place, every quote of a forgotten
// conversation from the Ireneo answers in s, and returns how many it
// erased. passages, when given, are the forgotten conversations' own
// texts (answer.Erase looks for them verbatim where a forgotten hit could
// reach).
func eraseQuotesInSession(s *funes.Session, gone answer.Gone, passages []string) int {
	n := 0
	for ti := range s.Turns {
		t := &s.Turns[ti]
		for bi := range t.Blocks {
			b := &t.Blocks[bi]
			if b.Type != funes.BlockToolResult || !answer.MayQuote(b.Text, gone) || !holdsRecallResult(t.Role, *b) {
				continue
			}
			text, k := answer.Erase(b.Text, gone, passages)
			if k == 0 {
				continue
			}
			b.Text = text
			n += k
		}
	}
	return n
}

// jsonInner is s as a JSON string holds it, without the quotes.
func jsonInner(s string, escapeHTML bool) string {
	q := jsonString(s, escapeHTML)
	return q[1 : len(q)-1]
}

// isRecallResult reports whether the whole block is one of Ireneo's
// answers, as the index sees it.
func isRecallResult(role string, b funes.Block) bool {
	sp := plumbing.Classify(role, b.Type, b.ToolName, b.Text)
	return len(sp) == 1 && sp[0].Kind == plumbing.RecallResult
}

// holdsRecallResult reports whether the block, or part of it (the CLI's
// answer after other commands' output in a shell's), is one of Ireneo's
// answers, as the index sees it: only there are quotes looked for.
func holdsRecallResult(role string, b funes.Block) bool {
	for _, sp := range plumbing.Classify(role, b.Type, b.ToolName, b.Text) {
		if sp.Kind == plumbing.RecallResult {
			return true
		}
	}
	return false
}
