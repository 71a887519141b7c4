package memory

import "github.com/ireneo-app/ireneo/answer"

// memory's values as package answer shows them (get, sessions and
// projects, on the CLI and over MCP): the same fields, so the answers'
// JSON reads as these types' did.

// Conversation is si as the answers describe a conversation.
func (si SessionInfo) Conversation() answer.Conversation {
	return answer.Conversation{
		SessionID: si.SessionID, Source: si.Source, Title: si.Title, Workdir: si.Workdir, Projects: si.Projects,
		Started: si.Started, Updated: si.Updated, Turns: si.Turns, Tokens: si.Tokens, Bytes: si.Bytes, Starred: si.Starred,
	}
}

// Window is the transcript as get's answers show it.
func (tr *Transcript) Window() answer.Window {
	w := answer.Window{Session: tr.Session.Conversation(), Focus: tr.Focus, Turns: make([]answer.Turn, len(tr.Turns))}
	for i, t := range tr.Turns {
		bs := make([]answer.Block, len(t.Blocks))
		for j, b := range t.Blocks {
			bs[j] = answer.Block{Type: b.Type, Text: b.Text, ToolName: b.ToolName}
		}
		w.Turns[i] = answer.Turn{TurnUUID: t.TurnUUID, Seq: t.Seq, TS: t.TS, Role: t.Role, Blocks: bs}
	}
	return w
}

// ProjectCounts is ps as list_projects and `ireneo projects` show them;
// nil for none.
func ProjectCounts(ps []ProjectCount) []answer.ProjectCount {
	if ps == nil {
		return nil
	}
	out := make([]answer.ProjectCount, len(ps))
	for i, p := range ps {
		out[i] = answer.ProjectCount{Name: p.Name, Count: p.Count}
	}
	return out
}
