package conversations

import (
	"context"
	"fmt"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// GetOptions asks for the turns around a receipt.
type GetOptions struct {
	SessionID string
	TurnUUID  string // optional; "" means from the start
	Window    int    // turns either side of TurnUUID; 0 means the whole conversation
	Scope     []string
}

// Transcript is a conversation, or a window of it, verbatim.
type Transcript struct {
	Session answer.Conversation `json:"session"`
	Focus   int                 `json:"focus"` // seq of TurnUUID, or -1
	Turns   []funes.Turn        `json:"turns"`
}

// Get returns a conversation's turns, whole or around one turn, read in
// one snapshot of m. Out of scope and nonexistent answer the same
// memory.ErrNotFound.
func Get(ctx context.Context, m *memory.Memory, o GetOptions) (*Transcript, error) {
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	s, err := rt.LoadSession(ctx, o.SessionID, o.Scope)
	if err != nil {
		return nil, err
	}
	harness, sid := s.Harness, s.ID
	info, err := scanInfo(rt.QueryRowContext(ctx, `SELECT `+listColumns+` FROM sessions s WHERE s.harness=? AND s.session_id=?`, harness, sid))
	if err != nil {
		return nil, fmt.Errorf("conversation %s: %w", sid, err)
	}
	if info.Projects, err = projectsOf(ctx, rt, harness, sid); err != nil {
		return nil, fmt.Errorf("conversation %s: %w", sid, err)
	}
	tr := &Transcript{Session: info, Focus: -1, Turns: s.Turns}
	if o.TurnUUID == "" {
		if o.Window > 0 && len(s.Turns) > 2*o.Window+1 {
			tr.Turns = s.Turns[:2*o.Window+1]
		}
		return tr, nil
	}
	at := -1
	for i, t := range s.Turns {
		if t.TurnUUID == o.TurnUUID {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("turn %s in conversation %s: %w", o.TurnUUID, o.SessionID, memory.ErrNotFound)
	}
	tr.Focus = s.Turns[at].Seq
	if o.Window > 0 {
		lo, hi := max(0, at-o.Window), min(len(s.Turns), at+o.Window+1)
		tr.Turns = s.Turns[lo:hi]
	}
	return tr, nil
}

// Window is the transcript as get's answers show it.
func (tr *Transcript) Window() answer.Window {
	w := answer.Window{Session: tr.Session, Focus: tr.Focus, Turns: make([]answer.Turn, len(tr.Turns))}
	for i, t := range tr.Turns {
		bs := make([]answer.Block, len(t.Blocks))
		for j, b := range t.Blocks {
			bs[j] = answer.Block{Type: b.Type, Text: b.Text, ToolName: b.ToolName}
		}
		w.Turns[i] = answer.Turn{TurnUUID: t.TurnUUID, Seq: t.Seq, TS: t.TS, Role: t.Role, Blocks: bs}
	}
	return w
}
