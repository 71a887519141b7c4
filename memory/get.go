package memory

import (
	"context"
	"fmt"

	"github.com/ireneo-app/ireneo/funes"
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
	Session SessionInfo  `json:"session"`
	Focus   int          `json:"focus"` // seq of TurnUUID, or -1
	Turns   []funes.Turn `json:"turns"`
}

// Get returns a conversation's turns, whole or around one turn. Out of scope
// and nonexistent answer the same ErrNotFound.
func (m *Memory) Get(ctx context.Context, o GetOptions) (*Transcript, error) {
	ref, err := findSession(ctx, m.db, o.SessionID, o.Scope)
	if err != nil {
		return nil, err
	}
	s, err := m.loadRef(ref)
	if err != nil {
		return nil, err
	}
	info, err := m.sessionInfo(ctx, ref)
	if err != nil {
		return nil, err
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
		return nil, fmt.Errorf("turn %s in conversation %s: %w", o.TurnUUID, o.SessionID, ErrNotFound)
	}
	tr.Focus = s.Turns[at].Seq
	if o.Window > 0 {
		lo, hi := max(0, at-o.Window), min(len(s.Turns), at+o.Window+1)
		tr.Turns = s.Turns[lo:hi]
	}
	return tr, nil
}

func (m *Memory) sessionInfo(ctx context.Context, ref sessionRef) (SessionInfo, error) {
	var si SessionInfo
	var started, updated int64
	var star int
	err := m.db.QueryRowContext(ctx, `SELECT s.session_id, s.harness, s.title, s.workdir, s.started, s.updated, s.turns, s.tokens, s.bytes, s.path,
			COALESCE((SELECT starred FROM stars st WHERE st.harness=s.harness AND st.session_id=s.session_id), 0)
		FROM sessions s WHERE s.id=?`, ref.id).Scan(&si.SessionID, &si.Source, &si.Title, &si.Workdir, &started, &updated, &si.Turns, &si.Tokens, &si.Bytes, &si.path, &star)
	if err != nil {
		return si, err
	}
	si.Started, si.Updated, si.Starred = fromUnix(started), fromUnix(updated), star != 0
	si.Projects, err = m.sessionProjects(ctx, m.db, si.Source, si.SessionID)
	return si, err
}
