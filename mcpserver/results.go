package mcpserver

import (
	ans "github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/o200k"
	"github.com/ireneo-app/ireneo/plumbing"
	"github.com/ireneo-app/ireneo/recall"
)

// The tools' answers are package answer's: their structured types, text,
// budget and marker. Here memory's values are handed to it, with the
// caller's scope and budget and memory's token counter. (answer is imported
// as ans: call.go's answer is what a tool body returns.)

// The structured answers, by the names the tools registered them under.
type (
	RecallOutput   = ans.RecallOutput
	RecallHit      = ans.RecallHit
	Preview        = ans.Preview
	GetOutput      = ans.GetOutput
	TurnOut        = ans.TurnOut
	SessionBrief   = ans.SessionBrief
	SessionsResult = ans.SessionsResult
	ProjectsResult = ans.ProjectsResult
)

func buildRecall(query string, res *recall.Result, scope []string, budget int) (*RecallOutput, string) {
	return ans.MCPRecall(query, res, scope, budget, o200k.Count)
}

// buildGet hands get's window to answer with what of each block is no
// one's words (Ireneo's earlier answers, harness plumbing), to be shown as
// one line: they are in src/ verbatim, and no one's words; calls to
// Ireneo (short, and they say what was searched) are shown as written.
func buildGet(tr *conversations.Transcript, scope []string, budget int) (*GetOutput, string) {
	w := tr.Window()
	for ti := range w.Turns {
		t := &w.Turns[ti]
		for bi := range t.Blocks {
			b := &t.Blocks[bi]
			for _, sp := range plumbing.Classify(t.Role, b.Type, b.ToolName, b.Text) {
				if sp.Kind != plumbing.Said && sp.Kind != plumbing.RecallCall {
					b.Folds = append(b.Folds, ans.Fold{Start: sp.Start, End: sp.End, Label: sp.Kind.Label()})
				}
			}
		}
	}
	return ans.MCPGet(&w, scope, budget, o200k.Count)
}

func buildSessions(list []ans.Conversation, total, offset int, scope []string, budget int) (*SessionsResult, string) {
	return ans.MCPSessions(list, total, offset, scope, budget, o200k.Count)
}

func buildProjects(ps []ans.ProjectCount, untagged int) (*ProjectsResult, string) {
	return ans.MCPProjects(nonNil(ps), untagged)
}
