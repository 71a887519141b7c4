package memory

import (
	"context"
	"database/sql"
	"fmt"
)

// What package sync needs of memory besides its reads (sync/reads.go):
// the names it shares conversations under, and the one write it makes
// besides imports, forgets and scrubs: the choices other machines made,
// applied without being reported again (choices.go).

// ConversationHash names a conversation without its id: the hash its
// tombstone is kept under (a SHA-256 of harness and id, in hex). Sync
// names conversations by it in every file it shares.
func ConversationHash(harness, id string) string { return tombstoneHash(harness, id) }

// ChoiceChange is what to change of one conversation's tags and star.
type ChoiceChange struct {
	Harness, SessionID string
	Tag, Untag         []string
	Star               *bool // nil: leave it
}

// ApplyChoices makes the changes in one transaction, without reporting
// them to the observer: they are choices made on another machine. A
// conversation no longer stored is passed over.
func (m *Memory) ApplyChoices(ctx context.Context, changes []ChoiceChange) error {
	if len(changes) == 0 {
		return nil
	}
	return m.withTx(ctx, func(tx *sql.Tx) error {
		for _, c := range changes {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE harness=? AND session_id=?`, c.Harness, c.SessionID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				continue
			}
			for _, p := range c.Tag {
				p, err := CleanProject(p)
				if err != nil {
					return fmt.Errorf("tag %s: %w", c.SessionID, err)
				}
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_projects(harness,session_id,project) VALUES(?,?,?)`, c.Harness, c.SessionID, p); err != nil {
					return err
				}
			}
			for _, p := range c.Untag {
				if _, err := tx.ExecContext(ctx, `DELETE FROM session_projects WHERE harness=? AND session_id=? AND project=?`, c.Harness, c.SessionID, p); err != nil {
					return err
				}
			}
			switch {
			case c.Star == nil:
			case *c.Star:
				if _, err := tx.ExecContext(ctx, `INSERT INTO stars(harness,session_id,starred) VALUES(?,?,1) ON CONFLICT DO UPDATE SET starred=1`, c.Harness, c.SessionID); err != nil {
					return err
				}
			default:
				if _, err := tx.ExecContext(ctx, `DELETE FROM stars WHERE harness=? AND session_id=?`, c.Harness, c.SessionID); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// KnownHarness says whether h is a source Ireneo imports from (the
// harness field of a funes jsonl file).
func KnownHarness(h string) bool { return isHarness(h) }
