package memory

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// What package sync reads of a memory in one go, and the one write it
// makes besides imports, forgets and scrubs: the choices other machines
// made, applied without being reported again (choices.go).

// ConversationHash names a conversation without its id: the hash its
// tombstone is kept under (a SHA-256 of harness and id, in hex). Sync
// names conversations by it in every file it shares.
func ConversationHash(harness, id string) string { return tombstoneHash(harness, id) }

// SyncConversation is one stored conversation as sync compares it.
type SyncConversation struct {
	Harness, SessionID string
	Hash               string // of its funes jsonl file, as stored
	Path               string // its file, relative to the memory directory
	Turns              int
	Updated            int64 // Unix seconds of its latest turn; 0 if undated
	Bytes              int64
	DerivedProject     string // the project its file carries, trimmed
	Projects           []string
	Starred            bool
}

// SyncSnapshot is the whole memory as sync compares it: every stored
// conversation with its tags and star, and every tombstone's hash.
type SyncSnapshot struct {
	Conversations []SyncConversation
	Tombstones    map[string]int64 // hash → when forgotten (Unix seconds)
}

// SyncSnapshot reads every conversation, tag, star and tombstone in one
// read transaction.
func (m *Memory) SyncSnapshot(ctx context.Context) (SyncSnapshot, error) {
	snap := SyncSnapshot{Tombstones: map[string]int64{}}
	tx, err := m.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return snap, fmt.Errorf("read the memory for sync: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT harness, session_id, hash, path, turns, updated, bytes, derived_project FROM sessions ORDER BY harness, session_id`)
	if err != nil {
		return snap, fmt.Errorf("read the memory for sync: %w", err)
	}
	at := map[string]int{}
	for rows.Next() {
		var c SyncConversation
		if err := rows.Scan(&c.Harness, &c.SessionID, &c.Hash, &c.Path, &c.Turns, &c.Updated, &c.Bytes, &c.DerivedProject); err != nil {
			rows.Close()
			return snap, err
		}
		c.DerivedProject = strings.TrimSpace(c.DerivedProject)
		at[c.Harness+"\x00"+c.SessionID] = len(snap.Conversations)
		snap.Conversations = append(snap.Conversations, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return snap, err
	}
	each := func(q string, scan func(*sql.Rows) error) error {
		rows, err := tx.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	err = each(`SELECT harness, session_id, project FROM session_projects ORDER BY 1,2,3`, func(r *sql.Rows) error {
		var h, id, p string
		if err := r.Scan(&h, &id, &p); err != nil {
			return err
		}
		if i, ok := at[h+"\x00"+id]; ok {
			snap.Conversations[i].Projects = append(snap.Conversations[i].Projects, p)
		}
		return nil
	})
	if err == nil {
		err = each(`SELECT harness, session_id FROM stars WHERE starred`, func(r *sql.Rows) error {
			var h, id string
			if err := r.Scan(&h, &id); err != nil {
				return err
			}
			if i, ok := at[h+"\x00"+id]; ok {
				snap.Conversations[i].Starred = true
			}
			return nil
		})
	}
	if err == nil {
		err = each(`SELECT hash, forgotten FROM tombstones`, func(r *sql.Rows) error {
			var h string
			var when int64
			err := r.Scan(&h, &when)
			snap.Tombstones[h] = when
			return err
		})
	}
	if err != nil {
		return snap, fmt.Errorf("read the memory for sync: %w", err)
	}
	return snap, nil
}

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
				p, err := cleanProject(p)
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
